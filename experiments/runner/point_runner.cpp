#include "experiments/runner/point_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>

#include "engine/common/error.h"
#include "engine/common/peak_memory.h"
#include "engine/decoding/decoder.h"
#include "engine/decoding/request_metrics.h"
#include "experiments/runner/conversations.h"

namespace draftbench {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// FNV-1a over the token ids: a stable fingerprint for "same tokens as the baseline".
std::string tokens_fingerprint(const std::vector<int32_t>& tokens) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t t : tokens)
    for (int b = 0; b < 4; ++b) {
      h ^= (static_cast<uint32_t>(t) >> (8 * b)) & 0xffu;
      h *= 1099511628211ull;
    }
  return fmt::format("{:016x}", h);
}

double mean(const std::vector<double>& v) { return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); }

std::vector<double> sorted(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The q-quantile of sorted values, interpolating linearly between neighbours.
double quantile(const std::vector<double>& sorted_values, double q) {
  if (sorted_values.empty()) return 0;
  const double pos = q * static_cast<double>(sorted_values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos)), hi = static_cast<size_t>(std::ceil(pos));
  return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - static_cast<double>(lo));
}

double median(const std::vector<double>& v) { return quantile(sorted(v), 0.5); }

nlohmann::json distribution(const std::vector<double>& v) {
  const std::vector<double> s = sorted(v);
  return {{"mean", mean(v)}, {"p1", quantile(s, 0.01)}, {"p50", quantile(s, 0.5)}, {"p99", quantile(s, 0.99)}};
}

// Over a point's repeats (at least one).
nlohmann::json spread(const std::vector<double>& v) {
  const std::vector<double> s = sorted(v);
  const double m = mean(v);
  double var = 0;
  for (double x : v) var += (x - m) * (x - m);
  const double stdev = v.size() > 1 ? std::sqrt(var / static_cast<double>(v.size() - 1)) : 0.0;
  return {{"median", quantile(s, 0.5)}, {"min", s.front()}, {"max", s.back()}, {"stdev", stdev}, {"n", v.size()}};
}

// One decoded request (a conversation's turn) of one repeat.
struct Request {
  size_t prompt = 0;
  int turn = 0;
  SequenceResult result;
};

// Decodes every conversation, batch by batch and turn by turn; returns requests in order.
std::vector<Request> decode_all(const PointContext& c, const SweepPoint& point, Decoder& decoder, const DecodeOptions& base,
                                std::span<const PromptItem> prompts, int turns, int64_t& done, int64_t total) {
  const int batch_size = point.params["batch_size"].get<int>();
  std::vector<Request> out;
  for (size_t first = 0; first < prompts.size(); first += static_cast<size_t>(batch_size)) {
    const size_t n = std::min(prompts.size() - first, static_cast<size_t>(batch_size));
    std::vector<Conversation> conversations;
    for (size_t i = 0; i < n; ++i) conversations.emplace_back(prompts[first + i]);
    for (int turn = 0; turn < turns; ++turn) {
      if (c.on_progress) c.on_progress(done, total);
      std::vector<std::vector<int32_t>> batch;
      for (const Conversation& conv : conversations) batch.push_back(conv.next_prompt(c.model, c.spec.chat));
      DecodeOptions opt = base;
      // Each (prompt, turn) is its own request for the sampler, whatever the batching.
      opt.first_request = static_cast<uint64_t>(first) * static_cast<uint64_t>(turns) + static_cast<uint64_t>(turn) * n;
      std::vector<SequenceResult> results = decoder.generate(batch, opt);
      for (size_t i = 0; i < n; ++i) {
        conversations[i].add_answer(c.model, results[i].tokens);
        out.push_back(Request{first + i, turn, std::move(results[i])});
      }
      done += static_cast<int64_t>(n);
    }
  }
  return out;
}

// Sums over requests: a whole repeat, or one category of it.
struct Totals {
  double requests = 0, generated = 0, calls = 0, verified = 0, beam = 0, draft_s = 0, verify_s = 0, accept_s = 0, other_s = 0, ttft = 0;
  std::vector<double> verified_per_step, beam_per_step, request_tps;
  std::vector<int64_t> accepted_histogram;

  void add(const Request& r) {
    const RequestMetrics m = request_metrics(r.result);
    requests += 1;
    generated += static_cast<double>(m.generated_tokens);
    calls += static_cast<double>(m.steps + 1);
    draft_s += m.draft_s;
    verify_s += m.verify_s;
    accept_s += m.accept_s;
    other_s += m.other_s;
    ttft += m.time_to_first_token_s;
    request_tps.push_back(m.tokens_per_second);
    for (const StepRecord& s : r.result.steps) {
      verified += s.verified;
      beam += s.beam_tokens;
      verified_per_step.push_back(s.verified);
      beam_per_step.push_back(s.beam_tokens);
    }
    if (m.accepted_histogram.size() > accepted_histogram.size()) accepted_histogram.resize(m.accepted_histogram.size(), 0);
    for (size_t k = 0; k < m.accepted_histogram.size(); ++k) accepted_histogram[k] += m.accepted_histogram[k];
  }
  double tokens_per_step() const { return calls > 0 ? generated / calls : 0; }
};

}  // namespace

uint64_t bytes_on_disk(const std::string& path) {
  if (path.empty() || !fs::exists(path)) return 0;
  if (!fs::is_directory(path)) return fs::file_size(path);
  uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(path))
    if (e.is_regular_file() && e.path().extension() == ".safetensors") total += e.file_size();
  return total;
}

PointSettings point_settings(const ExperimentSpec& spec, const SweepPoint& point) {
  const DrafterSpec& d = spec.drafter(point.drafter);
  PointSettings s;
  s.drafter.sizing = "fixed";  // what DrafterOptions means without a `sizing` axis
  for (const auto& [axis, value] : point.params.items()) apply_setting(setting(axis), value, s);
  d.apply(s);
  s.drafter.weights_dir = s.distilled ? d.weights : d.ground_truth_weights;
  return s;
}

DrafterOptions drafter_options(const ExperimentSpec& spec, const SweepPoint& point) { return point_settings(spec, point).drafter; }

nlohmann::json MemoryPlan::to_json() const {
  return {{"model_bytes", model_bytes}, {"drafter_bytes", drafter_bytes}, {"kv_bytes", kv_bytes}, {"scratch_bytes", scratch_bytes}, {"total_bytes", total()}};
}

MemoryPlan plan_memory(const Model& model, const DrafterOptions& drafter_options, int32_t max_tree_nodes, int batch_size, int64_t longest_prompt,
                       int max_new_tokens) {
  const ModelConfig& c = model.config();
  MemoryPlan m;
  m.model_bytes = bytes_on_disk(model.path());
  m.drafter_bytes = bytes_on_disk(drafter_options.weights_dir);
  const std::vector<int64_t> lengths(static_cast<size_t>(batch_size), longest_prompt);
  m.kv_bytes = Decoder::kv_bytes(c, lengths, max_new_tokens, max_tree_nodes);
  // The forward's float activations per tree token (residual, norms, q/k/v, attention
  // output, the MLP's gate/up/product) and a full-vocabulary logits row for each.
  const uint64_t per_token = static_cast<uint64_t>(8 * c.n_embd + 2 * c.q_dim() + 2 * c.kv_dim() + 3 * c.n_ff + c.n_vocab) * sizeof(float);
  m.scratch_bytes =
      per_token * static_cast<uint64_t>(batch_size) * static_cast<uint64_t>(std::max<int64_t>(max_tree_nodes, std::min<int64_t>(longest_prompt, 512)));
  return m;
}

namespace {

// The memory the point plans for, from the longest prompt it can see: later turns are
// bounded by the earlier ones' prompts and answers.
MemoryPlan plan_point_memory(const PointContext& c, const PointSettings& settings, const DrafterOptions& options, int32_t max_tree_nodes) {
  const int turns = c.dataset.turns;
  const int max_new_tokens = settings.decode.max_new_tokens;
  const int64_t longest = c.longest_first_prompt * turns + static_cast<int64_t>(turns - 1) * max_new_tokens;
  return plan_memory(c.model, options, max_tree_nodes, std::min<int>(settings.batch_size, static_cast<int>(c.prompts.size())), longest, max_new_tokens);
}

// What every request of the point decodes with; past the spec's time limit, counted from
// `start`, the next token throws PointTimeout.
DecodeOptions point_decode_options(const ExperimentSpec& spec, const PointSettings& settings, std::shared_ptr<const CostModel> cost, Clock::time_point start) {
  DecodeOptions opt;
  opt.cost = std::move(cost);
  opt.max_new_tokens = settings.decode.max_new_tokens;
  opt.sampling.temperature = settings.decode.sampling.temperature;
  opt.seed = settings.decode.seed;
  if (spec.time_limit_s > 0) {
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.time_limit_s));
    opt.on_token = [deadline, limit = spec.time_limit_s](int, int32_t) {
      if (Clock::now() > deadline) throw PointTimeout(fmt::format("the point ran past its time limit of {:.0f} s", limit));
    };
  }
  return opt;
}

// The spec's warm-up: its first prompts, one turn, short answers; nothing recorded.
void warm_up(const PointContext& c, const SweepPoint& point, Decoder& decoder, const DecodeOptions& opt, int64_t total) {
  const std::span<const PromptItem> all(c.prompts);
  int64_t ignored = 0;
  DecodeOptions warm = opt;
  warm.max_new_tokens = std::min(opt.max_new_tokens, 32);
  decode_all(c, point, decoder, warm, all.first(std::min<size_t>(static_cast<size_t>(c.spec.warmup), all.size())), 1, ignored, total);
}

// Every repeat's requests and timings. Counts and step records come from the first repeat
// (the tokens are the same in every repeat); timings are medians over repeats.
struct Repeats {
  std::vector<std::vector<Request>> requests;  // [repeat][request]
  std::vector<double> tps, throughput, wall;   // per repeat
  Totals first;                                // the first repeat's sums
};

Repeats run_repeats(const PointContext& c, const SweepPoint& point, Decoder& decoder, const DecodeOptions& opt, int64_t total) {
  Repeats out;
  int64_t done = 0;
  for (int r = 0; r < c.spec.repeats; ++r) {
    const auto t0 = Clock::now();
    out.requests.push_back(decode_all(c, point, decoder, opt, c.prompts, c.dataset.turns, done, total));
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    Totals repeat;
    for (const Request& request : out.requests.back()) repeat.add(request);
    out.wall.push_back(wall);
    out.tps.push_back(mean(repeat.request_tps));
    out.throughput.push_back(repeat.generated / wall);
    if (r == 0) out.first = std::move(repeat);
  }
  return out;
}

// The record's "metrics": the first repeat's counts, the repeats' median speeds.
nlohmann::json point_metrics(const Repeats& repeats, int batch_size) {
  const Totals& t = repeats.first;
  const double steps = static_cast<double>(t.verified_per_step.size());
  const double tps = median(repeats.tps);
  const double per_step_ms = steps > 0 ? 1e3 / t.calls : 0;
  return {
      {"requests", t.requests},
      {"generated_tokens", t.generated},
      {"tokens_per_step", t.tokens_per_step()},
      {"tps", tps},
      {"tps_x_bsz", tps * batch_size},
      {"throughput", median(repeats.throughput)},
      {"ms_per_token", tps > 0 ? 1e3 / tps : 0},
      {"time_to_first_token_s", t.ttft / t.requests},
      {"compression_ratio", t.verified > 0 ? t.beam / t.verified : 1.0},
      {"verified_tokens", distribution(t.verified_per_step)},
      {"beam_tokens", distribution(t.beam_per_step)},
      {"accepted_histogram", t.accepted_histogram},
      {"step_time_ms",
       {{"draft", t.draft_s * per_step_ms}, {"verify", t.verify_s * per_step_ms}, {"accept", t.accept_s * per_step_ms}, {"other", t.other_s * per_step_ms}}},
  };
}

// The record's "per_prompt" (every turn of every prompt) and "per_category", from the first
// repeat, speeds the median over repeats.
void add_per_prompt(const PointContext& c, const Repeats& repeats, nlohmann::json& record) {
  std::map<std::string, Totals> by_category;
  nlohmann::json per_prompt = nlohmann::json::array();
  const std::vector<Request>& first = repeats.requests[0];
  for (size_t i = 0; i < first.size(); ++i) {
    const Request& r = first[i];
    std::vector<double> tps_over_repeats;
    for (const auto& rep : repeats.requests) tps_over_repeats.push_back(rep[i].result.tokens_per_second());
    const PromptItem& item = c.prompts[r.prompt];
    per_prompt.push_back({{"id", item.id},
                          {"category", item.category},
                          {"turn", r.turn + 1},
                          {"prompt_tokens", r.result.prompt_tokens},
                          {"generated_tokens", r.result.tokens.size()},
                          {"tokens_per_step", r.result.tokens_per_step()},
                          {"tps", median(tps_over_repeats)},
                          {"stopped_on_eos", r.result.stopped_on_eos},
                          {"tokens_fingerprint", tokens_fingerprint(r.result.tokens)}});
    by_category[item.category].add(r);
  }
  nlohmann::json per_category = nlohmann::json::object();
  for (const auto& [category, ct] : by_category)
    per_category[category.empty() ? "(none)" : category] = {
        {"requests", ct.requests}, {"tokens_per_step", ct.tokens_per_step()}, {"tps", mean(ct.request_tps)}};
  record["per_prompt"] = std::move(per_prompt);
  record["per_category"] = std::move(per_category);
}

}  // namespace

nlohmann::json run_point(const PointContext& c, const SweepPoint& point) {
  const PointSettings settings = point_settings(c.spec, point);
  DrafterOptions options = settings.drafter;
  if (drafter_wants_cost_model(options)) {
    options.cost = c.cost_model();
    options.time_drafter = c.time_drafter;
  }
  std::unique_ptr<Drafter> drafter = make_drafter(options, c.model, c.pool);
  const MemoryPlan plan = plan_point_memory(c, settings, options, drafter->max_tree_nodes());
  nlohmann::json record{{"memory", plan.to_json()}};
  if (c.spec.memory_budget_bytes > 0 && plan.total() > c.spec.memory_budget_bytes) {
    record["status"] = "oom";
    record["message"] = fmt::format("planned {:.1f} MiB exceeds the memory budget of {:.1f} MiB", static_cast<double>(plan.total()) / 1048576.0,
                                    static_cast<double>(c.spec.memory_budget_bytes) / 1048576.0);
    return record;
  }

  Decoder decoder(c.model, c.target, *drafter);
  const auto start = Clock::now();
  const DecodeOptions opt = point_decode_options(c.spec, settings, options.cost, start);
  const int64_t total = static_cast<int64_t>(c.prompts.size()) * c.dataset.turns * c.spec.repeats;
  if (c.spec.warmup > 0) warm_up(c, point, decoder, opt, total);
  const Repeats repeats = run_repeats(c, point, decoder, opt, total);

  record["status"] = "ok";
  record["device"] = c.target.describe();
  record["metrics"] = point_metrics(repeats, settings.batch_size);
  record["spread"] = {{"tps", spread(repeats.tps)}, {"throughput", spread(repeats.throughput)}, {"wall_s", spread(repeats.wall)}};
  add_per_prompt(c, repeats, record);
  record["wall_s"] = std::chrono::duration<double>(Clock::now() - start).count();
  record["memory"]["peak_rss_bytes"] = peak_rss_bytes();
  return record;
}

}  // namespace draftbench
