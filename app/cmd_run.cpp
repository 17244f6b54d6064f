// draftbench run SPEC: expand an experiment spec and run its points (experiments/runner);
// draftbench merge: join shard runs.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "app/commands.h"
#include "engine/common/error.h"
#include "experiments/runner/sweep_runner.h"
#include "experiments/spec/experiment_spec.h"

namespace draftbench::cli {

namespace {
struct RunArgs {
  std::string spec, out, only, shard;
  bool resume = false, retry_errors = false, dry_run = false, emit_slurm = false;
  int slurm_shards = 8;
  uint64_t max_points = kDefaultMaxPoints;
};

std::string default_out(const ExperimentSpec& spec) { return (std::filesystem::path(checkout_root()) / "reports" / spec.name).string(); }

void parse_shard(const std::string& text, RunOptions& o) {
  const size_t slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    size_t used = 0;
    o.shard = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("trailing");
    o.n_shards = std::stoi(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw InputError("run", "--shard", fmt::format("'{}' (expected i/n, e.g. 0/4)", text));
  }
}
}  // namespace

Run add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "Run an experiment spec (a sweep) and write its results and report");
  sub->add_option("spec", a->spec, "Experiment spec (YAML or JSON; see experiments/README.md)")->required();
  sub->add_option("--out", a->out, "Output directory (default: reports/<spec name>)");
  sub->add_flag("--resume", a->resume, "Continue a run whose output directory already holds results: finished points are skipped");
  sub->add_flag("--retry-errors", a->retry_errors, "With --resume: run again the points recorded as 'error' (their new record supersedes the old)");
  sub->add_option("--only", a->only, "Run only points matching axis=value[,axis=value...] (and their baselines)");
  sub->add_option("--shard", a->shard, "i/n: run the points whose index modulo n is i (join shards with `draftbench merge`)");
  sub->add_flag("--dry-run", a->dry_run, "Print the expanded points and an estimated time; run nothing");
  sub->add_option("--max-points", a->max_points, "The largest grid (points before exclusions) the spec may plan")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  sub->add_flag("--emit-slurm", a->emit_slurm, "Write <out>/slurm.sh, a Slurm job array running the sweep in shards; run nothing");
  sub->add_option("--slurm-shards", a->slurm_shards, "Array tasks for --emit-slurm")->capture_default_str()->check(CLI::Range(1, 100000));
  return [sub, a]() -> int {
    if (!sub->parsed()) return -1;
    const ExperimentSpec spec = load_experiment_spec(a->spec, checkout_root(), default_model_path());
    RunOptions o;
    o.checkout = checkout_root();
    o.out_dir = a->out.empty() ? default_out(spec) : a->out;
    o.resume = a->resume;
    o.retry_errors = a->retry_errors;
    if (o.retry_errors && !o.resume) throw InputError("run", "--retry-errors", "needs --resume (it re-runs the failed points of an existing run)");
    o.only = a->only;
    o.dry_run = a->dry_run;
    o.max_points = a->max_points;
    if (!a->shard.empty()) parse_shard(a->shard, o);
    if (a->emit_slurm) {
      std::filesystem::create_directories(o.out_dir);
      const std::string path = (std::filesystem::path(o.out_dir) / "slurm.sh").string();
      std::ofstream(path) << slurm_script(spec, o, a->slurm_shards, std::filesystem::canonical("/proc/self/exe").string());
      fmt::print("wrote {} ({} array tasks)\n", path, a->slurm_shards);
      return 0;
    }
    const int errors = run_sweep(spec, o);
    if (errors > 0) {
      fmt::print(stderr, "draftbench: {} point(s) ended in error; see {}/results.jsonl\n", errors, o.out_dir);
      return 1;
    }
    return 0;
  };
}

Run add_merge(CLI::App& app) {
  auto spec_path = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto shards = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand("merge", "Join the results of `run --shard i/n` runs into one results file and report");
  sub->add_option("spec", *spec_path, "The experiment spec every shard ran")->required();
  sub->add_option("shards", *shards, "The shard runs' output directories")->required();
  sub->add_option("--out", *out, "Output directory for the merged results (default: reports/<spec name>)");
  auto max_points = std::make_shared<uint64_t>(kDefaultMaxPoints);
  sub->add_option("--max-points", *max_points, "As for run: the largest grid the spec may plan")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  return [sub, spec_path, out, shards, max_points]() -> int {
    if (!sub->parsed()) return -1;
    const ExperimentSpec spec = load_experiment_spec(*spec_path, checkout_root(), default_model_path());
    RunOptions o;
    o.checkout = checkout_root();
    o.out_dir = out->empty() ? default_out(spec) : *out;
    o.max_points = *max_points;
    merge_shards(spec, *shards, o);
    return 0;
  };
}

}  // namespace draftbench::cli
