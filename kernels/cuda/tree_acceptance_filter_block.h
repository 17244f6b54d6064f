// Top-k and top-p for the one-hot sampling walk (tree_acceptance_block.h), as block-program
// pieces: the list engine/decoding/sampling.cpp's target_distribution makes when it
// filters, and verify.cpp's arithmetic over it. The list is the best tokens in
// kernels/sampling/top_k.h's order (larger weight first, equal weights by smaller id), cut
// to top_k, then to the shortest prefix whose weights, added in double one after another,
// reach top_p times the sum of all the weights. The walk over it runs the host's operations
// in the host's order, so a filtered walk makes verify_sampling_one_hot's decisions exactly,
// with none of the unfiltered walk's near-threshold exceptions.
//
// The list is written best first to a workspace of order keys (the weight's bits, then the
// complemented id: the order as one integer comparison):
//   * the best 64 (top_k_block.h's per-thread lists, one pass over the row) end it when
//     top_k <= 64 or the top-p cut falls within them, as peaked distributions' nuclei do;
//   * past them, a binary search over the weight's bits (about 30 block reductions) finds
//     the smallest weight floor whose tokens number top_k or weigh enough to hold the cut
//     (with the slack below), and only those tokens are gathered and sorted: a sort of the
//     list, never of the vocabulary.
// The cut's threshold needs the host's sum of the weights, which the host takes in eight
// lanes (kernels/ops/double_lanes.h). The kernel's own sum (another order) decides unless a
// running sum lies within `slack` of the threshold; only there is the host's sum re-taken,
// n/8 sequential adds in each of 8 threads (exactly tied masses do it; random ones almost
// never). slack bounds both sums' rounding, (n - 1) * 2^-53 of the total each, with margin.
//
// The walk at a node is thread 0's alone (ListResidual): a long list, a flat distribution's
// nucleus, is then a long sequential loop, the price of the host's order of additions.
#pragma once

#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/sampling_block.h"
#include "kernels/cuda/top_k_block.h"
#include "kernels/ops/double_lanes.h"

namespace draftbench::cuda {

// target_distribution's filters, as SamplingParams holds them: top_k <= 0 and top_p >= 1
// (or NaN) are off.
struct TargetFilter {
  int top_k = 0;
  float top_p = 1.0f;
  DB_HOST_DEVICE bool by_k() const { return top_k > 0; }
  DB_HOST_DEVICE bool by_p() const { return top_p < 1.0f; }
  DB_HOST_DEVICE bool on() const { return by_k() || by_p(); }
};

// Weights are >= 0, whose bits order as their values; the low half puts smaller ids first.
DB_HOST_DEVICE inline uint64_t order_key(float w, int32_t id) { return (static_cast<uint64_t>(bit_cast_of<uint32_t>(w)) << 32) | ~static_cast<uint32_t>(id); }
DB_HOST_DEVICE inline int32_t key_id(uint64_t key) { return static_cast<int32_t>(~static_cast<uint32_t>(key)); }
DB_HOST_DEVICE inline float key_weight(uint64_t key) { return bit_cast_of<float>(static_cast<uint32_t>(key >> 32)); }

inline constexpr uint32_t kSmallestWeightBits = 1;  // w >= this weight <=> w > 0

struct FilterShared {
  TopKShared best;                  // the best 64
  int32_t count[kSamplingThreads];  // per-thread counts, then the gather's offsets
  int64_t result;                   // a value thread 0 hands to the block
};

// f() in thread 0, its value in every thread. The second barrier lets the next phase write
// `slot` again.
template <class Block, class F>
DB_HOST_DEVICE int64_t from_thread_0(const Block& block, int64_t& slot, F&& f) {
  block.each_thread([&](Dim3 t) {
    if (t.x == 0) slot = f();
  });
  block.sync();
  const int64_t value = slot;
  block.sync();
  return value;
}

struct WeightsAbove {
  int64_t count;
  double mass;  // the kernel's order: strided partials and a tree
};

// The tokens of weight >= bit_cast<float>(floor_bits) (a floor > 0).
template <class Block>
DB_HOST_DEVICE WeightsAbove weights_at_least(const Block& block, const float* w, int64_t n, uint32_t floor_bits, FilterShared& sh, SoftmaxShared& sums) {
  const float floor = bit_cast_of<float>(floor_bits);
  block.each_thread([&](Dim3 t) {
    int32_t count = 0;
    double mass = 0.0;
    for (int64_t i = t.x; i < n; i += kSamplingThreads)
      if (w[i] >= floor) ++count, mass += w[i];
    sh.count[t.x] = count;
    sums.partial[t.x] = mass;
  });
  block.sync();
  fold_tree(block, kSamplingThreads, [&](unsigned t, unsigned half) {
    sh.count[t] += sh.count[t + half];
    sums.partial[t] += sums.partial[t + half];
  });
  const WeightsAbove above{sh.count[0], sums.partial[0]};
  block.sync();
  return above;
}

// The host's sum of the weights: softmax_exp's eight lanes (lane = index mod 8), folded as
// fold_double_lanes does.
template <class Block>
DB_HOST_DEVICE double host_weight_sum(const Block& block, const float* w, int64_t n, SoftmaxShared& sums) {
  block.each_thread([&](Dim3 t) {
    if (t.x >= kDoubleLanes) return;
    double lane = 0.0;
    for (int64_t i = t.x; i < n; i += kDoubleLanes) lane += w[i];
    sums.partial[t.x] = lane;
  });
  block.sync();
  const double sum = fold_double_lanes(sums.partial);
  block.sync();
  return sum;
}

// top_p times the sum of the weights, from the kernel's sum, and how far the host's
// threshold can lie from it.
struct NucleusMass {
  double threshold, slack;
};

DB_HOST_DEVICE inline NucleusMass nucleus_mass(float top_p, double device_sum, int64_t n) {
  const double p = top_p, scale = p > 1.0 ? p : p < -1.0 ? -p : 1.0;
  return {p * device_sum, (8.0 * static_cast<double>(n) + 32.0) * 0x1p-53 * device_sum * scale};
}

inline constexpr int64_t kNoCut = -1;      // no prefix reaches the threshold: the list stays whole
inline constexpr int64_t kCutUnsure = -2;  // a running sum lies between `low` and `high`

// keep_mass_prefix's running sum over order[0 .. len): the length of the first prefix that
// reaches `low`, if it reaches `high` too. With low == high, keep_mass_prefix exactly.
DB_HOST_DEVICE inline int64_t mass_prefix_length(const uint64_t* order, int64_t len, double low, double high) {
  double kept = 0.0;
  for (int64_t m = 0; m < len; ++m) {
    kept += key_weight(order[m]);
    if (kept >= low) return kept >= high ? m + 1 : kCutUnsure;
  }
  return kNoCut;
}

// The top-p cut of order[0 .. len) (a prefix of the order; w the node's weights, untouched):
// its length, or kNoCut.
template <class Block>
DB_HOST_DEVICE int64_t top_p_cut(const Block& block, const uint64_t* order, int64_t len, float top_p, const float* w, int64_t n, double device_sum,
                                 FilterShared& sh, SoftmaxShared& sums) {
  const NucleusMass mass = nucleus_mass(top_p, device_sum, n);
  const int64_t cut = from_thread_0(block, sh.result, [&] { return mass_prefix_length(order, len, mass.threshold - mass.slack, mass.threshold + mass.slack); });
  if (cut != kCutUnsure) return cut;
  const double threshold = static_cast<double>(top_p) * host_weight_sum(block, w, n, sums);
  return from_thread_0(block, sh.result, [&] { return mass_prefix_length(order, len, threshold, threshold); });
}

// The largest floor (weight bits >= 1) whose tokens number at least k (k > 0) or weigh at
// least `mass` (by_mass), kSmallestWeightBits if none: both only shrink as the floor rises,
// so a binary search; its upper end, +inf, holds no token.
template <class Block>
DB_HOST_DEVICE uint32_t weight_floor_holding(const Block& block, const float* w, int64_t n, int64_t k, bool by_mass, double mass, FilterShared& sh,
                                             SoftmaxShared& sums) {
  uint32_t lo = kSmallestWeightBits, hi = 0x7F800000u;
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    const WeightsAbove above = weights_at_least(block, w, n, mid, sh, sums);
    if ((k > 0 && above.count >= k) || (by_mass && above.mass >= mass)) lo = mid;
    else hi = mid;
  }
  return lo;
}

// The keys of the tokens of weight >= the floor into order[0 ..), in no particular order;
// returns their number.
template <class Block>
DB_HOST_DEVICE int64_t gather_at_least(const Block& block, const float* w, int64_t n, uint32_t floor_bits, uint64_t* order, FilterShared& sh) {
  const float floor = bit_cast_of<float>(floor_bits);
  block.each_thread([&](Dim3 t) {
    int32_t count = 0;
    for (int64_t i = t.x; i < n; i += kSamplingThreads) count += w[i] >= floor;
    sh.count[t.x] = count;
  });
  block.sync();
  const int64_t total = from_thread_0(block, sh.result, [&] {
    int64_t offset = 0;
    for (unsigned t = 0; t < kSamplingThreads; ++t) {
      const int32_t count = sh.count[t];
      sh.count[t] = static_cast<int32_t>(offset);
      offset += count;
    }
    return offset;
  });
  block.each_thread([&](Dim3 t) {
    int64_t at = sh.count[t.x];
    for (int64_t i = t.x; i < n; i += kSamplingThreads)
      if (w[i] >= floor) order[at++] = order_key(w[i], static_cast<int32_t>(i));
  });
  block.sync();
  return total;
}

// order[0 .. m) best first: a bitonic network in the form whose every comparator puts the
// better key at the lower position (each merge's first step pairs mirror positions), so the
// positions past m behave as keys worse than any, which never move, and are left out.
template <class Block>
DB_HOST_DEVICE void sort_best_first(const Block& block, uint64_t* order, int64_t m) {
  for (int64_t size = 2; size / 2 < m; size *= 2) {
    for (int64_t stride = size / 2; stride > 0; stride /= 2) {
      block.each_thread([&](Dim3 t) {
        for (int64_t i = t.x; i < m; i += kSamplingThreads) {
          const int64_t j = stride == size / 2 ? i ^ (size - 1) : i ^ stride;
          if (j <= i || j >= m || order[j] <= order[i]) continue;
          const uint64_t better = order[j];
          order[j] = order[i];
          order[i] = better;
        }
      });
      block.sync();
    }
  }
}

// The best k (1 <= k <= kTopKMax) into order[0 ..); returns min(k, n). Threads past
// kTopKThreads idle.
template <class Block>
DB_HOST_DEVICE int64_t best_of_order(const Block& block, const float* w, int64_t n, int k, uint64_t* order, FilterShared& sh) {
  const TopKArgs args{w, nullptr, n, n, k, nullptr, nullptr};
  block.each_thread([&](Dim3 t) {
    if (t.x < kTopKThreads) top_k_partial(args, 0, 0, t.x, sh.best);
  });
  block.sync();
  fold_tree(block, kTopKThreads, [&](unsigned t, unsigned half) { top_k_merge(k, t, half, sh.best); });
  return from_thread_0(block, sh.result, [&] {
    const TopKList& best = sh.best.list[0];
    for (int i = 0; i < best.count; ++i) order[i] = order_key(best.value[i], best.id[i]);
    return static_cast<int64_t>(best.count);
  });
}

// target_distribution's list at a node into order[0 ..), best first; returns its length.
// w: the node's weights; device_sum: their sum in the kernel's order. The list may end in
// tokens of weight 0 (a top-k past the support), which the host leaves out and ListResidual
// skips.
template <class Block>
DB_HOST_DEVICE int64_t filtered_list(const Block& block, const float* w, int64_t n, double device_sum, const TargetFilter& filter, uint64_t* order,
                                     FilterShared& sh, SoftmaxShared& sums) {
  const bool k_within_best = filter.by_k() && filter.top_k <= kTopKMax;
  const int64_t best = best_of_order(block, w, n, k_within_best ? filter.top_k : kTopKMax, order, sh);
  if (filter.by_p()) {
    const int64_t cut = top_p_cut(block, order, best, filter.top_p, w, n, device_sum, sh, sums);
    if (cut >= 0) return cut;
  }
  if (k_within_best || best == n) return best;
  const NucleusMass mass = nucleus_mass(filter.top_p, device_sum, n);
  const uint32_t floor_bits = weight_floor_holding(block, w, n, filter.by_k() ? filter.top_k : 0, filter.by_p(), mass.threshold + mass.slack, sh, sums);
  const int64_t gathered = gather_at_least(block, w, n, floor_bits, order, sh);
  sort_best_first(block, order, gathered);
  const int64_t len = filter.by_k() && filter.top_k < gathered ? filter.top_k : gathered;
  if (filter.by_p()) {
    const int64_t cut = top_p_cut(block, order, len, filter.top_p, w, n, device_sum, sh, sums);
    if (cut >= 0) return cut;
  }
  return len;
}

// verify.cpp's refreshed_mass re-sums a residual mass (of probabilities, normalised) below
// this; the unfiltered walk, whose masses are weights, below this fraction of the node's.
inline constexpr double kResidualRefreshMass = 1e-6;

// The next token from the host's list, entry i of probability prob(i) and token token(i):
// draw (sampling.cpp) over the untouched list, compared with u; draw_residual (verify.cpp)
// after a rejection (`residual`), compared with u times the residual's sum. Both in the
// list's order. Thread 0's alone.
template <class Prob, class Token>
DB_HOST_DEVICE int32_t draw_in_list_order(int64_t len, double u, bool residual, Prob&& prob, Token&& token) {
  double threshold = u;
  if (residual) {
    double sum = 0.0;
    for (int64_t i = 0; i < len; ++i) sum += prob(i);
    threshold = u * sum;
  }
  double running = 0.0;
  int32_t last = -1;
  for (int64_t i = 0; i < len; ++i) {
    const double p = prob(i);
    if (p <= 0.0) continue;
    running += p;
    last = token(i);
    if (threshold < running) break;
  }
  return last;  // past the end only by rounding: the last token of positive probability
}

// verify_sampling_one_hot's residual at a node over the filtered list order[0 .. len):
// probabilities w / total in double, the host's dist entry by entry; a rejected token's
// weight zeroed in w. Thread 0's alone.
struct ListResidual {
  const uint64_t* order;
  int64_t len;
  float* w;
  double total = 0.0;  // target_distribution's normaliser: the list's weights in order
  double mass = 0.0;   // locate_marked_tokens' sum of the probabilities, then the residual's
  int32_t support = 0;
  bool changed = false;

  DB_HOST_DEVICE ListResidual(const uint64_t* list, int64_t length, float* weights) : order(list), len(length), w(weights) {
    for (int64_t i = 0; i < len; ++i)
      if (key_weight(order[i]) > 0.0f) total += key_weight(order[i]);
    for (int64_t i = 0; i < len; ++i) {
      const double p = prob_at(i);
      mass += p;
      support += p > 0.0;
    }
  }
  DB_HOST_DEVICE double prob_at(int64_t i) const {
    const float weight = w[key_id(order[i])];
    return weight > 0.0f ? static_cast<double>(weight) / total : 0.0;
  }
  // 0 outside the list (keys below its last) and for a rejected token.
  DB_HOST_DEVICE double prob(int32_t token) const {
    const float weight = w[token];
    return weight > 0.0f && order_key(weight, token) >= order[len - 1] ? static_cast<double>(weight) / total : 0.0;
  }
  DB_HOST_DEVICE void reject(int32_t token, double p) {
    w[token] = 0.0f;
    mass = mass - p > 0.0 ? mass - p : 0.0;
    if (mass < kResidualRefreshMass) {
      mass = 0.0;
      for (int64_t i = 0; i < len; ++i) mass += prob_at(i);
    }
    --support;
    changed = true;
  }
  DB_HOST_DEVICE int32_t draw(double u) const {
    return draw_in_list_order(
        len, u, changed, [&](int64_t i) { return prob_at(i); }, [&](int64_t i) { return key_id(order[i]); });
  }
};

}  // namespace draftbench::cuda
