#include "engine/decoding/cost_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "engine/common/sha256.h"
#include "engine/decoding/sampling.h"
#include "kernels/runtime/cpu_features.h"
#include "kernels/sampling/counter_rng.h"

namespace draftbench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Piecewise-linear through (sizes[i], seconds[i]); the last segment's slope past the end.
double interpolate(const std::vector<int32_t>& sizes, const std::vector<double>& seconds, int32_t at) {
  DB_CHECK(!sizes.empty() && sizes.size() == seconds.size());
  if (sizes.size() == 1 || at <= sizes.front()) return seconds.front();
  size_t i = 1;
  while (i + 1 < sizes.size() && sizes[i] < at) ++i;
  const double x0 = sizes[i - 1], x1 = sizes[i];
  return seconds[i - 1] + (seconds[i] - seconds[i - 1]) * (at - x0) / (x1 - x0);
}

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Median seconds of `repeats` calls of `fn` after one warm-up call.
template <class Fn>
double median_seconds(int repeats, Fn&& fn) {
  fn();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return median(std::move(t));
}

}  // namespace

std::string model_identity(const std::string& path) {
  if (!fs::is_directory(path)) return sha256_file(path);
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(path))
    if (e.is_regular_file()) entries.push_back(fmt::format("{}:{}", e.path().filename().string(), e.file_size()));
  std::sort(entries.begin(), entries.end());
  std::string all;
  for (const auto& e : entries) all += e + "\n";
  return sha256_hex(all);
}

double CostModel::forward(int32_t tokens) const { return interpolate(sizes, forward_s, tokens); }
double CostModel::head(int32_t rows) const { return interpolate(sizes, head_s, rows); }
double CostModel::head_row_in_passes() const {
  const double one = head(1);
  return one > 0 ? std::clamp((head(8) - one) / 7.0 / one, 0.01, 1.0) : 1.0;
}

nlohmann::json CostModel::to_json() const {
  nlohmann::json timed = nlohmann::json::object();
  for (const auto& [identity, t] : drafters)
    timed[identity] = {
        {"fixed_s", t.fixed_s}, {"per_estimate", t.per_estimate}, {"per_pass_s", t.per_pass_s}, {"per_token_s", t.per_token_s}, {"per_row_s", t.per_row_s}};
  return {{"version", kVersion}, {"context", context},   {"sizes", sizes},   {"forward_s", forward_s},
          {"head_s", head_s},    {"sample_s", sample_s}, {"drafters", timed}};
}

namespace {

// Times a real machine can measure: a forward pass over one token takes at least a
// microsecond, and a larger tree (or more LM-head rows) never takes under half the time of a
// smaller one; timing noise stays well inside that factor. A cache that breaks these (edited,
// or measured while the clock misbehaved) would size every draft wrongly, so it is refused
// and measured again.
template <typename Fail>
void check_plausible(const CostModel& m, const Fail& fail) {
  if (m.forward_s[0] < 1e-6) fail(fmt::format("expected a forward pass over 1 token to take at least 1 us, got {} s", m.forward_s[0]));
  for (size_t i = 1; i < m.sizes.size(); ++i) {
    if (m.forward_s[i] < 0.5 * m.forward_s[i - 1])
      fail(fmt::format("expected forward_s to grow with the tree: {} tokens take {} s, under half the {} s of {} tokens", m.sizes[i], m.forward_s[i],
                       m.forward_s[i - 1], m.sizes[i - 1]));
    if (m.head_s[i] < 0.5 * m.head_s[i - 1])
      fail(fmt::format("expected head_s to grow with the rows: {} rows take {} s, under half the {} s of {} rows", m.sizes[i], m.head_s[i], m.head_s[i - 1],
                       m.sizes[i - 1]));
  }
}

}  // namespace

CostModel CostModel::from_json(const nlohmann::json& j, const std::string& where) {
  auto fail = [&](const std::string& what) { throw InputError(where, "cost model", what); };
  if (!j.is_object() || j.value("version", -1) != kVersion) fail(fmt::format("expected version {}", kVersion));
  CostModel m;
  try {
    m.context = j.at("context").get<int32_t>();
    m.sizes = j.at("sizes").get<std::vector<int32_t>>();
    m.forward_s = j.at("forward_s").get<std::vector<double>>();
    m.head_s = j.at("head_s").get<std::vector<double>>();
    m.sample_s = j.at("sample_s").get<double>();
    const nlohmann::json timed = j.value("drafters", nlohmann::json::object());  // named: items() refers into it
    for (const auto& [identity, t] : timed.items())
      m.drafters[identity] = DraftTiming{t.at("fixed_s").get<double>(), t.at("per_estimate").get<double>(), t.at("per_pass_s").get<double>(),
                                         t.at("per_token_s").get<double>(), t.at("per_row_s").get<double>()};
  } catch (const nlohmann::json::exception&) {
    fail(
        "expected fields context, sizes, forward_s, head_s and sample_s of numbers, and drafters of "
        "{fixed_s, per_estimate, per_pass_s, per_token_s, per_row_s}");
  }
  for (const auto& [identity, t] : m.drafters)
    for (double c : {t.fixed_s, t.per_estimate, t.per_pass_s, t.per_token_s, t.per_row_s})
      if (!(c >= 0 && c < 1e4)) fail(fmt::format("expected drafter {}'s timing coefficients finite and >= 0", identity));
  if (!(m.sample_s >= 0 && m.sample_s < 1e4)) fail("expected a non-negative, finite sample_s");
  if (m.sizes.empty() || m.sizes.front() != 1 || m.forward_s.size() != m.sizes.size() || m.head_s.size() != m.sizes.size())
    fail("expected sizes starting at 1 and one time per size");
  for (size_t i = 0; i < m.sizes.size(); ++i) {
    if (i > 0 && m.sizes[i] <= m.sizes[i - 1]) fail("expected ascending sizes");
    if (!(m.forward_s[i] > 0 && m.forward_s[i] < 1e4 && m.head_s[i] >= 0 && m.head_s[i] < 1e4)) fail("expected positive, finite times");
  }
  check_plausible(m, fail);
  return m;
}

nlohmann::json CostKey::to_json() const { return {{"model_sha256", model_sha256}, {"cpu", cpu}, {"device", device}, {"threads", threads}, {"build", build}}; }

std::string CostKey::file_name() const { return "cost-" + sha256_hex(to_json().dump()).substr(0, 16) + ".json"; }

CostModel measure_cost_model(ForwardPass& pass, const ModelConfig& c, int32_t max_tokens, int32_t context,
                             const std::function<void(const std::string&)>& progress) {
  KvCache cache(c, 1, context + max_tokens, pass.device());
  // Committed context of random ids (as bench decode's), so attention reads a real cache.
  ForwardBatch fill;
  SequenceInput in{0, {}, TokenTree::chain(context), {}, {}};
  for (int32_t i = 0; i < context; ++i)
    in.tokens.push_back(1000 + static_cast<int32_t>(uniform(RngKey{7, 0, static_cast<uint64_t>(i), 0}) * static_cast<double>(c.n_vocab - 2000)));
  fill.sequences.push_back(in);
  ForwardResult out;
  pass.forward(fill, cache, out);
  cache.commit_prefix(0, context);

  CostModel m;
  m.context = context;
  for (int32_t n = 1; n <= max_tokens; n *= 2) m.sizes.push_back(n);
  m.forward_s.resize(m.sizes.size());
  m.head_s.resize(m.sizes.size());
  std::vector<ForwardBatch> batches(m.sizes.size());
  for (size_t i = 0; i < m.sizes.size(); ++i) {
    const int32_t n = m.sizes[i];
    SequenceInput s{0, std::vector<int32_t>(in.tokens.begin(), in.tokens.begin() + n), TokenTree::chain(n), {}, {}};
    for (int32_t r = 0; r < n; ++r) s.hidden_rows.push_back(r);
    batches[i].sequences.push_back(s);
  }
  // Rounds that each time every size once, alternately smallest first and largest first,
  // and each size's median over the rounds. What decides sizing is the ratio between sizes,
  // and on a shared machine the speed drifts by a quarter within seconds (two identical
  // runs back to back: 36 and 48 tokens/s): sizes timed one after another, each in its own
  // stretch, had ratios the drift made up (a second token 27% of a step in one calibration,
  // 45% in the next). Interleaved, every size sees the same drift. The first round warms up.
  constexpr int kRounds = 9;
  std::vector<std::vector<double>> forward_t(m.sizes.size()), head_t(m.sizes.size());
  std::vector<float> hidden;
  std::vector<int32_t> ids;
  for (int round = 0; round <= kRounds; ++round)
    for (size_t k = 0; k < m.sizes.size(); ++k) {
      const size_t i = round % 2 == 0 ? k : m.sizes.size() - 1 - k;
      const int32_t n = m.sizes[i];
      auto t0 = Clock::now();
      pass.forward(batches[i], cache, out);
      const double forward_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      hidden = out.hidden;
      ids.resize(static_cast<size_t>(n));
      t0 = Clock::now();
      pass.argmax_from_hidden(hidden.data(), n, ids.data());
      const double head_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      if (round == 0) continue;
      forward_t[i].push_back(forward_seconds);
      head_t[i].push_back(head_seconds);
    }
  for (size_t i = 0; i < m.sizes.size(); ++i) {
    m.forward_s[i] = median(forward_t[i]);
    m.head_s[i] = median(head_t[i]);
    if (progress) progress(fmt::format("{} tree tokens: forward {:.2f} ms, LM head {:.2f} ms", m.sizes[i], m.forward_s[i] * 1e3, m.head_s[i] * 1e3));
  }
  // More tokens or rows never cost less: a size measured dearer than a larger one was
  // disturbed, and takes the larger one's time.
  for (size_t i = m.sizes.size() - 1; i-- > 0;) {
    m.forward_s[i] = std::min(m.forward_s[i], m.forward_s[i + 1]);
    m.head_s[i] = std::min(m.head_s[i], m.head_s[i + 1]);
  }
  // Sampling a row: logits spread like a language model's (a few large, most small).
  std::vector<float> logits(static_cast<size_t>(c.n_vocab));
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<float>(8.0 * uniform(RngKey{8, 0, i, 0}) - 4.0);
  DistributionScratch scratch;
  const SamplingParams at_one{1.0f, 0, 1.0f};
  m.sample_s = median_seconds(7, [&] { sample_token(logits, at_one, RngKey{9, 0, 0, 0}, scratch); });
  if (progress) progress(fmt::format("sampling a row: {:.2f} ms", m.sample_s * 1e3));
  return m;
}

std::string cost_cache_dir() {
  if (const char* d = std::getenv("DRAFTBENCH_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "draftbench").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "draftbench").string();
  return (fs::temp_directory_path() / "draftbench-cache").string();
}

std::optional<CostModel> load_cost_model(const std::string& dir, const CostKey& key, std::string& why_not) {
  const fs::path path = fs::path(dir) / key.file_name();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    why_not = "no cost model for this model, CPU, thread count, device and build of draftbench yet";
    return std::nullopt;
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  try {
    const nlohmann::json j = nlohmann::json::parse(text.str());
    if (!j.is_object() || j.value("key", nlohmann::json()) != key.to_json()) {
      why_not = fmt::format("{} was measured for another model, CPU, thread count, device or build of draftbench", path.string());
      return std::nullopt;
    }
    return CostModel::from_json(j.at("model"), path.string());
  } catch (const std::exception& e) {
    why_not = fmt::format("{} is unreadable or corrupt ({})", path.string(), e.what());
    return std::nullopt;
  }
}

void store_cost_model(const std::string& dir, const CostKey& key, const CostModel& model) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir, "", "cannot create the cost-model cache directory: " + ec.message());
  write_file_atomically((fs::path(dir) / key.file_name()).string(), nlohmann::json{{"key", key.to_json()}, {"model", model.to_json()}}.dump(1) + "\n");
}

CostKey cost_key(ForwardPass& pass, const std::string& model_path, int threads) {
  // The features in use, not only the CPU: with DRAFTBENCH_NO_AMX=1 the same CPU runs other
  // kernels at other speeds.
  return CostKey{model_identity(model_path), cpu_identity() + ", " + cpu_features().describe(), pass.describe(), threads, sha256_file("/proc/self/exe")};
}

std::shared_ptr<const CostModel> obtain_cost_model(ForwardPass& pass, const ModelConfig& config, const CostKey& key, bool refresh,
                                                   const std::function<void(const std::string&)>& note) {
  const std::string dir = cost_cache_dir();
  std::string why_not = "asked to measure again";
  if (!refresh)
    if (auto cached = load_cost_model(dir, key, why_not)) return std::make_shared<const CostModel>(std::move(*cached));
  if (note) note(fmt::format("calibrating the cost model ({}): this takes a few seconds, once per model, CPU, thread count and device", why_not));
  auto measured = std::make_shared<const CostModel>(measure_cost_model(pass, config, 64, 256, note));
  store_cost_model(dir, key, *measured);
  return measured;
}

}  // namespace draftbench
