#include "engine/decoding/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/common/error.h"
#include "kernels/sampling/softmax.h"
#include "kernels/sampling/top_k.h"

namespace draftbench {

int32_t argmax(std::span<const float> logits) {
  DB_CHECK(!logits.empty());
  return static_cast<int32_t>(argmax(logits.data(), static_cast<int64_t>(logits.size())));
}

void target_distribution(std::span<const float> logits, const SamplingParams& params, DistributionScratch& scratch) {
  DB_CHECK(!params.greedy());
  const auto n = static_cast<int64_t>(logits.size());
  std::vector<float>& w = scratch.weights;
  w.resize(logits.size());
  const double sum = softmax_exp(logits.data(), n, logits[argmax(logits)], 1.0f / params.temperature, w.data());
  std::vector<TokenProb>& out = scratch.dist;
  // NaN or infinite logits (or an infinite temperature against them) leave no usable
  // weights; sorting NaN weights for top-k / top-p would be undefined. The argmax stands.
  if (!(sum > 0.0) || !std::isfinite(sum)) {
    out.assign(1, TokenProb{argmax(logits), 1.0});
    return;
  }
  // Filtering needs probability order; a plain draw does not (index order is as reproducible).
  std::vector<int32_t>& ids = scratch.ids;
  const bool filtered = params.top_k > 0 || params.top_p < 1.0f;
  if (params.top_k > 0) {
    top_k(w.data(), n, params.top_k, ids);
    // top-p too: the nucleus of the whole distribution (mass top_p * sum), within the top k.
    if (params.top_p < 1.0f) keep_mass_prefix(w.data(), params.top_p * sum, ids);
  } else if (params.top_p < 1.0f) {
    top_mass(w.data(), n, params.top_p * sum, ids);
  }
  out.clear();
  double total = 0.0;
  const auto keep = [&](int32_t id) {
    if (w[id] > 0.0f) out.push_back({id, static_cast<double>(w[id])}), total += w[id];
  };
  if (filtered)
    for (int32_t id : ids) keep(id);
  else
    for (int32_t id = 0; id < n; ++id) keep(id);
  if (out.empty() || !(total > 0.0) || !std::isfinite(total)) {
    out.assign(1, TokenProb{argmax(logits), 1.0});
    return;
  }
  for (auto& tp : out) tp.p /= total;
}

int32_t draw(std::span<const TokenProb> dist, double u) {
  DB_CHECK(!dist.empty());
  double acc = 0.0;
  for (const auto& tp : dist) {
    acc += tp.p;
    if (u < acc) return tp.token;
  }
  return dist.back().token;  // u within rounding of 1
}

int32_t sample_token(std::span<const float> logits, const SamplingParams& params, const RngKey& key, DistributionScratch& scratch) {
  if (params.greedy()) return argmax(logits);
  target_distribution(logits, params, scratch);
  return draw(scratch.dist, uniform(key));
}

std::vector<int32_t> indices_by_id(std::span<const int32_t> ids) {
  std::vector<int32_t> order(ids.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return ids[static_cast<size_t>(a)] < ids[static_cast<size_t>(b)]; });
  return order;
}

CoupledPick coupled_pick(std::span<const float> logits, std::span<const int32_t> ids, std::span<const int32_t> by_id, const SamplingParams& params, double u,
                         CoupledScratch& scratch) {
  DB_CHECK(!params.greedy() && !logits.empty() && logits.size() == ids.size() && by_id.size() == ids.size());
  const auto n = static_cast<int64_t>(logits.size());
  const int32_t best = argmax(logits);
  std::vector<float>& w = scratch.weights;
  w.resize(logits.size());
  const double sum = softmax_exp(logits.data(), n, logits[static_cast<size_t>(best)], 1.0f / params.temperature, w.data());
  if (!(sum > 0.0) || !std::isfinite(sum)) return CoupledPick{best, 0.0, 1.0};
  // The draw's order over the drafter's tokens, as target_distribution orders the target's.
  std::vector<int32_t>& order = scratch.order;
  if (params.top_k > 0) {
    top_k(w.data(), n, params.top_k, order);
    if (params.top_p < 1.0f) keep_mass_prefix(w.data(), params.top_p * sum, order);
  } else if (params.top_p < 1.0f) {
    top_mass(w.data(), n, params.top_p * sum, order);
  } else {
    order.assign(by_id.begin(), by_id.end());
  }
  double total = 0.0;
  for (int32_t i : order) total += w[static_cast<size_t>(i)];
  if (!(total > 0.0)) return CoupledPick{best, 0.0, 1.0};
  const double threshold = u * total;
  double acc = 0.0;
  int32_t last = best;
  for (int32_t i : order) {
    const double wi = w[static_cast<size_t>(i)];
    if (wi <= 0.0) continue;
    if (threshold < acc + wi) return CoupledPick{i, acc / total, (acc + wi) / total};
    acc += wi;
    last = i;
  }
  return CoupledPick{last, acc / total - w[static_cast<size_t>(last)] / total, 1.0};  // u within rounding of 1
}

}  // namespace draftbench
