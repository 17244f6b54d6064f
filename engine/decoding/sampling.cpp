#include "engine/decoding/sampling.h"

#include <algorithm>
#include <cmath>

#include "engine/common/error.h"

namespace draftbench {

int32_t argmax(std::span<const float> logits) {
  DB_CHECK(!logits.empty());
  int32_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i)
    if (logits[i] > logits[best]) best = static_cast<int32_t>(i);
  return best;
}

void target_distribution(std::span<const float> logits, const SamplingParams& params, std::vector<TokenProb>& out) {
  DB_CHECK(!params.greedy());
  const double inv_t = 1.0 / params.temperature;
  const float max_logit = logits[argmax(logits)];
  out.clear();
  double sum = 0.0;
  for (size_t i = 0; i < logits.size(); ++i) {
    const double p = std::exp((static_cast<double>(logits[i]) - max_logit) * inv_t);
    if (p > 0.0) {
      out.push_back({static_cast<int32_t>(i), p});
      sum += p;
    }
  }
  auto by_prob = [](const TokenProb& a, const TokenProb& b) { return a.p > b.p || (a.p == b.p && a.token < b.token); };
  // Filtering needs probability order; a plain draw does not (index order is as reproducible).
  if (params.top_k > 0 || params.top_p < 1.0f) std::sort(out.begin(), out.end(), by_prob);
  if (params.top_k > 0 && out.size() > static_cast<size_t>(params.top_k)) out.resize(static_cast<size_t>(params.top_k));
  if (params.top_p < 1.0f) {
    double kept = 0.0;
    size_t n = 0;
    while (n < out.size() && kept < params.top_p * sum) kept += out[n++].p;
    out.resize(std::max<size_t>(n, 1));
  }
  double total = 0.0;
  for (const auto& tp : out) total += tp.p;
  for (auto& tp : out) tp.p /= total;
}

int32_t draw(std::span<const TokenProb> dist, double u) {
  double acc = 0.0;
  for (const auto& tp : dist) {
    acc += tp.p;
    if (u < acc) return tp.token;
  }
  return dist.back().token;  // u within rounding of 1
}

int32_t sample_token(std::span<const float> logits, const SamplingParams& params, const RngKey& key, std::vector<TokenProb>& scratch) {
  if (params.greedy()) return argmax(logits);
  target_distribution(logits, params, scratch);
  return draw(scratch, uniform(key));
}

}  // namespace draftbench
