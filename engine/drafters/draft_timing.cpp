#include "engine/drafters/draft_timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "engine/common/error.h"

namespace draftbench {
namespace {

constexpr int32_t kPromptTokens = 48;
constexpr int32_t kDepths[] = {1, 2, 3, 5, 0};  // limit_draft shapes timed; 0 = the whole draft
constexpr int32_t kWidths[] = {1, 2, 4, 0};
constexpr int kRepeats = 3;  // timed proposes per shape, after one untimed

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

constexpr int kTerms = 5;  // DraftTiming's: fixed, estimate, passes, tokens, rows
using Coefficients = std::array<double, kTerms>;

double term(const DraftTimingSample& s, int k) {
  const double x[kTerms] = {1.0, s.estimate_s, static_cast<double>(s.work.passes), static_cast<double>(s.work.tokens), static_cast<double>(s.work.rows)};
  return x[k];
}

// Least squares over the terms in `used`: the normal equations, solved by Gauss-Jordan
// elimination with partial pivoting. Empty when they are singular.
std::optional<Coefficients> least_squares(std::span<const DraftTimingSample> samples, const std::vector<int>& used) {
  const size_t n = used.size(), w = n + 1;  // the augmented matrix is n x (n + 1)
  std::vector<double> a(n * w, 0.0);
  for (const auto& s : samples)
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) a[i * w + j] += term(s, used[i]) * term(s, used[j]);
      a[i * w + n] += term(s, used[i]) * s.measured_s;
    }
  for (size_t c = 0; c < n; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r * w + c]) > std::abs(a[pivot * w + c])) pivot = r;
    if (std::abs(a[pivot * w + c]) < 1e-18) return std::nullopt;
    for (size_t j = 0; j < w; ++j) std::swap(a[c * w + j], a[pivot * w + j]);
    for (size_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[r * w + c] / a[c * w + c];
      for (size_t j = c; j < w; ++j) a[r * w + j] -= f * a[c * w + j];
    }
  }
  Coefficients coef{};
  for (size_t i = 0; i < n; ++i) coef[static_cast<size_t>(used[i])] = a[i * w + n] / a[i * w + i];
  return coef;
}

double squared_error(std::span<const DraftTimingSample> samples, const Coefficients& coef) {
  double error = 0;
  for (const auto& s : samples) {
    double predicted = 0;
    for (int k = 0; k < kTerms; ++k) predicted += coef[static_cast<size_t>(k)] * term(s, k);
    error += (predicted - s.measured_s) * (predicted - s.measured_s);
  }
  return error;
}

}  // namespace

DraftTiming fit_draft_timing(std::span<const DraftTimingSample> samples) {
  DB_CHECK(!samples.empty());
  double best_error = std::numeric_limits<double>::infinity();
  Coefficients best{};
  for (int mask = 1; mask < (1 << kTerms); ++mask) {
    std::vector<int> used;
    for (int k = 0; k < kTerms; ++k)
      if (mask & (1 << k)) used.push_back(k);
    const std::optional<Coefficients> coef = least_squares(samples, used);
    if (!coef || std::any_of(coef->begin(), coef->end(), [](double c) { return !(c >= 0); })) continue;
    if (const double error = squared_error(samples, *coef); error < best_error) {
      best_error = error;
      best = *coef;
    }
  }
  return DraftTiming{best[0], best[1], best[2], best[3], best[4]};
}

DraftTiming measure_draft_timing(Drafter& drafter, const CostModel& cost, const ModelConfig& config) {
  const int64_t E = config.n_embd;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int32_t> token(0, static_cast<int32_t>(config.n_vocab) - 1);
  std::normal_distribution<float> value(0.0f, 1.0f);
  std::vector<int32_t> context(kPromptTokens);
  for (int32_t& t : context) t = token(rng);
  const int32_t hidden_rows = drafter.wants_prompt_hidden() ? kPromptTokens : 1;
  std::vector<float> hidden(static_cast<size_t>(hidden_rows * E));
  for (float& h : hidden) h = value(rng);
  drafter.reset(1);
  drafter.begin(0, context, hidden);
  hidden.resize(static_cast<size_t>(E));

  Draft draft;
  std::vector<DraftTimingSample> samples;
  std::vector<double> measured;
  const int32_t root_node = 0;
  for (int32_t depth : kDepths)
    for (int32_t width : kWidths) {
      drafter.limit_draft(depth, width);
      measured.clear();
      double estimate = 0;
      DraftWork work;
      for (int r = 0; r <= kRepeats; ++r) {
        const int32_t root = token(rng);
        const auto t0 = std::chrono::steady_clock::now();
        drafter.propose(DraftContext{0, context, root, hidden}, draft);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r > 0) {  // the first is a warm-up
          measured.push_back(s);
          estimate = drafter.draft_seconds(cost);
          work = drafter.draft_work();
        }
        drafter.accept(0, AcceptedPath{{&root_node, 1}, {&root, 1}, hidden, token(rng)});
        context.push_back(root);
      }
      samples.push_back(DraftTimingSample{estimate, work, median(measured)});
    }
  drafter.limit_draft(0, 0);
  drafter.reset(1);
  return fit_draft_timing(samples);
}

DraftTimer cached_draft_timer(const CostKey& key, std::shared_ptr<const CostModel> cost, const ModelConfig& config,
                              std::function<void(const std::string&)> note) {
  return [key, cost = std::move(cost), config, note = std::move(note)](Drafter& model, const std::string& weights_dir) {
    const std::string variant = model.cost_variant();
    const std::string identity = model.name() + "@" + model_identity(weights_dir) + (variant.empty() ? "" : "/" + variant);
    if (const auto it = cost->drafters.find(identity); it != cost->drafters.end()) return it->second;
    const std::string dir = cost_cache_dir();
    std::string why_not;
    std::optional<CostModel> cached = load_cost_model(dir, key, why_not);
    if (cached)
      if (const auto it = cached->drafters.find(identity); it != cached->drafters.end()) return it->second;
    const DraftTiming t = measure_draft_timing(model, *cost, config);
    if (note)
      note(
          fmt::format("timed the {} drafter's proposals: {:.3f} ms + {:.2f} x its estimate + {:.3f} ms per pass + {:.4f} ms per token + "
                      "{:.4f} ms per row",
                      model.name(), t.fixed_s * 1e3, t.per_estimate, t.per_pass_s * 1e3, t.per_token_s * 1e3, t.per_row_s * 1e3));
    CostModel updated = cached ? std::move(*cached) : *cost;
    updated.drafters[identity] = t;
    store_cost_model(dir, key, updated);
    return t;
  };
}

}  // namespace draftbench
