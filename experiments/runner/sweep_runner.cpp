#include "experiments/runner/sweep_runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "engine/common/atomic_file.h"
#include "engine/common/dir_lock.h"
#include "engine/common/error.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/model.h"
#include "engine/model/forward_pass.h"
#include "experiments/runner/conversations.h"
#include "experiments/runner/point_runner.h"
#include "experiments/runner/progress_bar.h"
#include "experiments/runner/results_log.h"
#include "reports/render/report_files.h"
#include "reports/report/environment.h"
#include "reports/report/report_json.h"

namespace draftbench {

namespace fs = std::filesystem;

namespace {

// "redrafter T=0 bs=1 bw=8 bl=5 | mt_bench": the axes with a label (axis_table.h), in
// expansion order.
std::string point_label(const SweepPoint& p) {
  std::string s = p.drafter;
  for (const Setting& axis : settings())
    if (axis.label && p.params.contains(axis.name)) {
      const nlohmann::json& v = p.params[axis.name];
      s += fmt::format(" {}={}", axis.label, v.is_string() ? fs::path(v.get<std::string>()).stem().string() : v.dump());
    }
  return s + " | " + p.dataset;
}

// "--only drafter=redrafter,temperature=0": every given axis (or `dataset`) must match.
bool passes(const SweepPoint& p, const std::vector<std::pair<std::string, std::string>>& filter) {
  for (const auto& [axis, value] : filter) {
    if (axis == "dataset") {
      if (p.dataset != value) return false;
      continue;
    }
    if (!p.params.contains(axis)) return false;
    const nlohmann::json& v = p.params[axis];
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    const std::string& wanted = value;  // clang before 16 cannot capture a structured binding
    const bool numeric_equal = v.is_number() && !wanted.empty() && [&] {
      try {
        return std::stod(wanted) == v.get<double>();
      } catch (const std::exception&) {
        return false;
      }
    }();
    if (text != value && !numeric_equal) return false;
  }
  return true;
}

std::vector<std::pair<std::string, std::string>> parse_filter(const std::string& only) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t at = 0;
  while (at <= only.size() && !only.empty()) {
    const size_t comma = std::min(only.find(',', at), only.size());
    const std::string term = only.substr(at, comma - at);
    const size_t eq = term.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == term.size())
      throw InputError("run", "--only", fmt::format("'{}' (expected axis=value terms separated by commas, e.g. drafter=redrafter,temperature=0)", term));
    const std::string axis = term.substr(0, eq);
    if (axis != "dataset" && !is_sweep_axis(axis))
      throw InputError("run", "--only", fmt::format("unknown axis '{}' (expected dataset or one of: {})", axis, sweep_axis_names()));
    out.emplace_back(axis, term.substr(eq + 1));
    at = comma + 1;
  }
  return out;
}

// The run's identity in its output directory (run.json): what a resumed run or a merged
// shard must not contradict.
nlohmann::json run_identity(const ExperimentSpec& spec) { return {{"spec_file", spec.file}, {"spec", spec.source}}; }

void require_same_spec(const fs::path& dir, const ExperimentSpec& spec, const char* why) {
  const fs::path path = dir / "run.json";
  std::ifstream f(path);
  const nlohmann::json recorded = nlohmann::json::parse(f, nullptr, false);
  if (recorded.is_discarded() || recorded.value("spec", nlohmann::json()) != spec.source)
    throw InputError(path.string(), "spec", fmt::format("missing or differs from {} ({})", spec.file, why));
}

}  // namespace

std::vector<SweepPoint> select_points(const ExperimentSpec& spec, const RunOptions& o) {
  if (o.n_shards < 1 || o.shard < 0 || o.shard >= o.n_shards)
    throw InputError("run", "--shard", fmt::format("{}/{} (expected i/n with 0 <= i < n)", o.shard, o.n_shards));
  const std::vector<SweepPoint> all = expand_sweep(spec, o.max_points);
  const auto filter = parse_filter(o.only);
  std::set<std::string> wanted;
  for (size_t i = 0; i < all.size(); ++i)
    if (passes(all[i], filter)) {
      wanted.insert(all[i].key());
      if (!all[i].baseline.empty()) wanted.insert(all[i].baseline);
    }
  if (wanted.empty()) throw InputError("run", "--only", fmt::format("'{}' matches none of the {} points", o.only, all.size()));
  std::vector<SweepPoint> out;
  for (size_t i = 0, kept = 0; i < all.size(); ++i) {
    if (!wanted.count(all[i].key())) continue;
    if (static_cast<int>(kept++ % static_cast<size_t>(o.n_shards)) == o.shard) out.push_back(all[i]);
  }
  return out;
}

// A rough model of a point's wall time, fitted to experiments/paper/table5.yaml run with
// Gemma 3 270M on a 2-core CPU (experiments/README.md, "Time estimates"): a single-token step
// streams the weights at about 7 GB/s; a speculative step costs a fixed 1.45 of that (the
// batched-row kernels, the drafter, the lazily computed logits of the accepted nodes), 0.45
// of it per further sequence in the batch, and 0.14 of it per verified token. The tokens
// verified and gained per step are the drafter kind's StepEstimate (drafter_registry.h).
double estimate_seconds(const ExperimentSpec& spec, const SweepPoint& p, int64_t prompts, uint64_t model_bytes) {
  const double ar_step_s = static_cast<double>(model_bytes) / 7e9;
  const double batch = p.params["batch_size"].get<double>();
  const DrafterKind* kind = find_drafter_kind(p.kind);
  DB_CHECK(kind != nullptr);
  const StepEstimate e = kind->estimate ? kind->estimate(drafter_options(spec, p)) : StepEstimate{};
  const double verified = e.verified, tokens_per_step = e.tokens_per_step;  // per sequence and step
  const double step_s = !kind->estimate ? ar_step_s * (1 + 0.35 * (batch - 1)) : ar_step_s * (1.45 + 0.45 * (batch - 1) + 0.14 * verified * batch);
  const double steps = p.params["max_new_tokens"].get<double>() / tokens_per_step;
  const double batches = std::ceil(static_cast<double>(prompts) / batch) * spec.dataset(p.dataset).turns;
  return batches * steps * step_s * (spec.repeats + (spec.warmup > 0 ? 0.1 : 0.0));
}

namespace {

// --dry-run: every point with its estimate, and the total.
void print_dry_run(const std::vector<SweepPoint>& points, std::map<std::string, std::vector<PromptItem>>& prompts, const std::vector<double>& estimates,
                   double estimated_total) {
  for (size_t i = 0; i < points.size(); ++i)
    fmt::print("{:4}  {}{}  ~{:.0f} s\n", i + 1, point_label(points[i]), points[i].added_baseline ? "  (baseline)" : "", estimates[i]);
  size_t prompts_in_all = 0;
  for (const SweepPoint& p : points) prompts_in_all += prompts[p.dataset].size();
  fmt::print("{} points, {} prompts per point on average; estimated {:.1f} min on this machine (rough: from model size and tree sizes)\n", points.size(),
             prompts_in_all / points.size(), estimated_total / 60.0);
}

// Per dataset, the tokens of its longest first-turn prompt: every point plans its memory
// from it, so each prompt is tokenized once per sweep.
std::map<std::string, int64_t> longest_first_prompts(const ExperimentSpec& spec, const Model& model,
                                                     const std::map<std::string, std::vector<PromptItem>>& prompts) {
  std::map<std::string, int64_t> longest;
  for (const auto& [name, items] : prompts)
    for (const PromptItem& item : items)
      longest[name] = std::max<int64_t>(longest[name], static_cast<int64_t>(Conversation(item).next_prompt(model, spec.chat).size()));
  return longest;
}

// The point's record for results.jsonl: its measurements, or how it failed ("timeout",
// "error", the latter counted in `errors`).
nlohmann::json point_record(const PointContext& context, const SweepPoint& p, int& errors) {
  nlohmann::json record;
  try {
    record = run_point(context, p);
  } catch (const PointTimeout& e) {
    record = {{"status", "timeout"}, {"message", e.what()}};
  } catch (const std::exception& e) {
    record = {{"status", "error"}, {"message", e.what()}};
    ++errors;
  }
  record["key"] = p.key();
  record["point"] = p.to_json();
  return record;
}

}  // namespace

int run_sweep(const ExperimentSpec& spec, const RunOptions& o) {
  const std::vector<SweepPoint> points = select_points(spec, o);
  std::map<std::string, std::vector<PromptItem>> prompts;
  for (const DatasetSpec& d : spec.datasets) prompts[d.name] = select_prompts(d, spec.file);
  const uint64_t model_bytes = bytes_on_disk(spec.model);
  std::vector<double> estimates;
  double estimated_total = 0;
  for (const SweepPoint& p : points) {
    estimates.push_back(estimate_seconds(spec, p, static_cast<int64_t>(prompts[p.dataset].size()), model_bytes));
    estimated_total += estimates.back();
  }
  if (o.dry_run) {
    print_dry_run(points, prompts, estimates, estimated_total);
    return 0;
  }

  fs::create_directories(o.out_dir);
  const DirectoryLock lock(o.out_dir);
  const fs::path results_path = fs::path(o.out_dir) / "results.jsonl", identity_path = fs::path(o.out_dir) / "run.json";
  if (fs::exists(results_path)) {
    if (!o.resume) throw InputError(results_path.string(), "", "already holds results (expected --resume to continue this run, or another --out)");
    require_same_spec(o.out_dir, spec, "a resumed run must use the spec it started with");
  }
  write_file_atomically(identity_path.string(), run_identity(spec).dump(2) + "\n");
  ResultsLog log(results_path.string());

  auto model = Model::load(spec.model);
  ThreadPool pool(spec.threads > 0 ? spec.threads : ThreadPool::default_threads());
  const std::unique_ptr<ForwardPass> target = make_forward_pass(spec.device, model->config(), model->weights(), pool);
  std::map<std::string, int64_t> longest_first_prompt = longest_first_prompts(spec, *model, prompts);
  std::shared_ptr<const CostModel> cost;
  DraftTimer timer;
  auto cost_model = [&] {
    if (!cost) {
      const auto note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
      const CostKey key = cost_key(*target, model->path(), pool.size());
      cost = obtain_cost_model(*target, model->config(), key, false, note);
      timer = cached_draft_timer(key, cost, model->config(), note);
    }
    return cost;
  };
  auto time_drafter = [&](Drafter& drafter, const std::string& weights_dir) { return timer(drafter, weights_dir); };
  ProgressBar bar(static_cast<int>(points.size()), estimated_total);
  int errors = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    if (const nlohmann::json* done = log.find(p.key()); done && !(o.retry_errors && (*done)["status"] == "error")) continue;
    bar.begin_point(static_cast<int>(i), point_label(p), estimates[i]);
    PointContext context{spec,
                         *model,
                         *target,
                         pool,
                         spec.dataset(p.dataset),
                         prompts[p.dataset],
                         longest_first_prompt[p.dataset],
                         [&](int64_t done, int64_t total) { bar.prompt(done, total); },
                         cost_model,
                         time_drafter};
    const nlohmann::json record = point_record(context, p, errors);
    log.append(record);
    bar.end_point(record["status"].get<std::string>() + (record.contains("message") ? ": " + record["message"].get<std::string>() : ""));
  }
  fmt::print("{}", write_sweep_report(spec, o));
  return errors;
}

namespace {

// The records of `path` whose point is in the spec's grid, in file order. Others (another
// spec's results appended by hand, or records from an edited spec) would add points the
// spec never asked for and break its tables' layout: they are left out, as merge leaves
// them out, and counted on stderr.
std::vector<nlohmann::json> spec_records(const ExperimentSpec& spec, const RunOptions& o, const std::string& path) {
  std::set<std::string> keys;
  for (const SweepPoint& p : expand_sweep(spec, o.max_points)) keys.insert(p.key());
  std::vector<nlohmann::json> kept;
  size_t foreign = 0;
  for (nlohmann::json& r : ResultsLog::read(path)) {
    if (keys.count(r["key"].get<std::string>())) kept.push_back(std::move(r));
    else ++foreign;
  }
  if (foreign > 0) fmt::print(stderr, "{}: {} record(s) whose point is not in the spec were left out of the report\n", path, foreign);
  return kept;
}

// Each shard's measured environment (its report.json's), null where it has none.
nlohmann::json shard_environments(const std::vector<std::string>& shard_dirs) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& dir : shard_dirs) {
    std::ifstream in(fs::path(dir) / "report.json");
    const nlohmann::json report = in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json();
    out.push_back({{"dir", dir}, {"environment", report.is_object() && report.contains("environment") ? report["environment"] : nlohmann::json()}});
  }
  return out;
}

// The environment shared by every shard, or null.
nlohmann::json shared_environment(const nlohmann::json& shards) {
  if (shards.empty()) return nullptr;
  const nlohmann::json& first = shards[0]["environment"];
  for (const nlohmann::json& s : shards)
    if (s["environment"].is_null() || s["environment"] != first) return nullptr;
  return first;
}

}  // namespace

void merge_shards(const ExperimentSpec& spec, const std::vector<std::string>& shard_dirs, const RunOptions& o) {
  if (shard_dirs.empty()) throw InputError("merge", "shards", "none given (expected the --out directories of the shard runs)");
  std::map<std::string, nlohmann::json> merged;
  for (const std::string& dir : shard_dirs) {
    require_same_spec(dir, spec, "every shard must have run the same spec");
    for (nlohmann::json& r : ResultsLog::read((fs::path(dir) / "results.jsonl").string())) {
      const std::string key = r["key"];
      const auto [it, fresh] = merged.emplace(key, r);
      if (!fresh && it->second["status"] != r["status"])
        throw InputError(
            dir, "results.jsonl",
            fmt::format("point {} is '{}' here but '{}' in another shard", key, r["status"].get<std::string>(), it->second["status"].get<std::string>()));
    }
  }
  fs::create_directories(o.out_dir);
  const DirectoryLock lock(o.out_dir);
  const fs::path results = fs::path(o.out_dir) / "results.jsonl";
  if (fs::exists(results)) throw InputError(results.string(), "", "already exists (expected an empty --out for the merged results)");
  write_file_atomically((fs::path(o.out_dir) / "run.json").string(), run_identity(spec).dump(2) + "\n");
  ResultsLog log(results.string());
  // In the order of the whole sweep, so the merged report reads like an unsharded one.
  RunOptions all = o;
  all.shard = 0;
  all.n_shards = 1;
  all.only.clear();
  const std::vector<SweepPoint> points = select_points(spec, all);
  for (const SweepPoint& p : points)
    if (merged.count(p.key())) log.append(merged[p.key()]);
  fmt::print("{}", write_sweep_report(spec, o, shard_environments(shard_dirs)));
  fmt::print(stderr, "merged {} shard(s): {} of the sweep's {} points have results\n", shard_dirs.size(), log.records().size(), points.size());
}

std::string slurm_script(const ExperimentSpec& spec, const RunOptions& o, int n_shards, const std::string& draftbench) {
  const fs::path out = fs::absolute(o.out_dir);
  return fmt::format(
      "#!/bin/bash\n"
      "# Runs {spec} as a Slurm job array of {n} shards (written by `draftbench run --emit-slurm`).\n"
      "# Submit:  sbatch {out}/slurm.sh\n"
      "# Then:    {bin} merge {spec} --out {out}/merged{max_points} {out}/shard-*\n"
      "# Each task runs one shard; a requeued task resumes where it stopped.\n"
      "#SBATCH --job-name=draftbench-{name}\n"
      "#SBATCH --array=0-{last}\n"
      "#SBATCH --cpus-per-task={cpus}\n"
      "#SBATCH --output={out}/slurm-%A_%a.log\n"
      "#SBATCH --requeue\n"
      "{gpu}"
      "set -euo pipefail\n"
      "cd {checkout}\n"
      "shard_dir={out}/shard-${{SLURM_ARRAY_TASK_ID}}\n"
      "resume=()\n"
      "[[ -f $shard_dir/results.jsonl ]] && resume=(--resume)\n"
      "{bin} run {spec} --shard ${{SLURM_ARRAY_TASK_ID}}/{n} --out \"$shard_dir\"{max_points} \"${{resume[@]}}\"\n",
      fmt::arg("spec", fs::absolute(spec.file).string()), fmt::arg("n", n_shards), fmt::arg("out", out.string()), fmt::arg("bin", draftbench),
      fmt::arg("name", spec.name), fmt::arg("last", n_shards - 1), fmt::arg("cpus", spec.threads > 0 ? spec.threads : 8),
      fmt::arg("checkout", fs::absolute(o.checkout).string()),
      fmt::arg("max_points", o.max_points == kDefaultMaxPoints ? std::string() : fmt::format(" --max-points {}", o.max_points)),
      fmt::arg("gpu", spec.device == ForwardDevice::kCuda ? "#SBATCH --gres=gpu:1\n" : ""));
}

std::string write_sweep_report(const ExperimentSpec& spec, const RunOptions& o, const nlohmann::json& shard_environments) {
  const fs::path dir(o.out_dir);
  const std::vector<nlohmann::json> records = spec_records(spec, o, (dir / "results.jsonl").string());
  EnvironmentInputs env;
  env.checkout = o.checkout;
  env.model_path = spec.model;
  env.threads = spec.threads > 0 ? spec.threads : ThreadPool::default_threads();
  std::set<std::string> drafters, devices;
  for (const nlohmann::json& r : records) {
    drafters.insert(r["point"]["drafter"].get<std::string>());
    if (r.contains("device")) devices.insert(r["device"].get<std::string>());
  }
  // Shards may have run on different machines: name every device that measured a point.
  env.device = devices.empty() ? forward_device_name(spec.device) : fmt::format("{}", fmt::join(devices, "; "));
  for (const std::string& name : drafters) {
    const DrafterSpec& d = spec.drafter(name);
    if (!d.weights.empty()) env.drafter_weights.emplace_back(name, d.weights);
    if (!d.ground_truth_weights.empty()) env.drafter_weights.emplace_back(name + " (ground truth)", d.ground_truth_weights);
  }
  nlohmann::json environment = shared_environment(shard_environments);
  if (environment.is_null()) {
    environment = describe_environment(env);
    if (!shard_environments.empty()) environment["shards"] = shard_environments;
  }
  const nlohmann::json report = build_report(resolved_spec_json(spec), spec.source, environment, records);
  write_report(report, (dir / "report.json").string());
  return render_report(report, (dir / "report.json").string(), dir.string(), o.checkout);
}

}  // namespace draftbench
