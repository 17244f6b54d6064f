// Turning the target model's logits into a next token. A temperature below
// kGreedyTemperature (0, a subnormal, NaN) is greedy (argmax, first index on ties), exactly
// as temperature 0; otherwise softmax(logits / T), then top-k and top-p filtering of
// that target distribution, then an inverse-CDF draw with a counter-based uniform.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/sampling/counter_rng.h"

namespace draftbench {

// Below this a temperature decodes greedily: 1/T stays far from float overflow, and the
// softmax of a T this small is a one-hot of the argmax anyway.
inline constexpr float kGreedyTemperature = 1e-4f;

struct SamplingParams {
  float temperature = 0.0f;
  int top_k = 0;                                                        // 0 = off
  float top_p = 1.0f;                                                   // 1 = off
  bool greedy() const { return !(temperature >= kGreedyTemperature); }  // NaN too
};

int32_t argmax(std::span<const float> logits);

struct TokenProb {
  int32_t token;
  double p;
};

// target_distribution's working arrays, kept by the caller from call to call: the whole
// vocabulary's softmax weights, the ids top-k / top-p keep, and the result.
struct DistributionScratch {
  std::vector<float> weights;
  std::vector<int32_t> ids;
  std::vector<TokenProb> dist;
};

// The filtered target distribution into scratch.dist as (token, probability) pairs summing
// to 1: in decreasing probability (ties by id) when filtered, else in id order; tokens of
// probability 0 left out. The softmax weights are kernels/sampling's (softmax_math.h).
// Not for greedy. Never empty: logits whose weights are all zero or not finite (NaN or
// infinite logits) give the argmax with probability 1.
void target_distribution(std::span<const float> logits, const SamplingParams& params, DistributionScratch& scratch);

// Draw from a distribution with a uniform u in [0, 1); `dist` must not be empty.
int32_t draw(std::span<const TokenProb> dist, double u);

int32_t sample_token(std::span<const float> logits, const SamplingParams& params, const RngKey& key, DistributionScratch& scratch);

// Coupled drafting (verify_sampling_coupled): a drafter that knows the uniform u of the
// target's next draw proposes the token that draw would give if the target's logits were
// the drafter's. `logits` are the drafter's over the target ids `ids` (others count as
// -infinity); `by_id` lists the indices of `ids` in increasing id order. The draw takes the
// tokens in target_distribution's order (by id when unfiltered, else by decreasing
// probability) with the same temperature, top-k and top-p. Far from the ends of the pick's
// interval [low, high) of draft probability mass, a target close to the drafter draws the
// same token; near an end, a neighbour.
struct CoupledPick {
  int32_t index = -1;        // into `ids`
  double low = 0, high = 0;  // the draft mass before the pick and through it, in the draw's order
  // For automatic sizing: twice u's distance to the nearer end, at most the pick's probability.
  float confidence(double u) const { return static_cast<float>(2 * std::min(u - low, high - u)); }
};
struct CoupledScratch {
  std::vector<float> weights;
  std::vector<int32_t> order;
};
CoupledPick coupled_pick(std::span<const float> logits, std::span<const int32_t> ids, std::span<const int32_t> by_id, const SamplingParams& params, double u,
                         CoupledScratch& scratch);

// coupled_pick's `by_id` for the ids `ids`: their indices in increasing id order.
std::vector<int32_t> indices_by_id(std::span<const int32_t> ids);

}  // namespace draftbench
