#include "engine/decoding/tree_sizer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/common/error.h"

namespace draftbench {
namespace {

// Confidence bins of a model's nodes: finer where drafts are usually decided.
constexpr float kBinEdges[] = {0.05f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 0.95f};
constexpr int32_t kBins = static_cast<int32_t>(std::size(kBinEdges)) + 1;
constexpr int32_t kLookupDepths = 8;                     // lookup classes by depth 1..8, deeper shares the last
constexpr int32_t kClasses = 2 * kBins + kLookupDepths;  // model bins, both bins, lookup depths
constexpr double kPriorWeight = 2.0;                     // pseudo-observations behind each class's prior
// Forgetting. A class's counts decay with each of its own tries (the last ~50 tries count),
// so a rarely tried class keeps its evidence rather than sliding back to the prior within
// a few dozen steps and being tried, at a loss, again and again; and slowly with each step
// (~200 steps), so that old evidence still gives way in the end and a class written off
// is tried again.
constexpr double kTryDecay = 0.98, kStepDecay = 0.995;
// A model's probability overstates acceptance early on (drafters are trained on the
// target's outputs, not on the exact argmax); the lookup prior is n-gram acceptance on chat.
// But not below kModelPriorFloor: a drafter's least sure tokens are still right now and then
// (EAGLE on Qwen2.5-Coder-1.5B, MT-Bench-style prompts: a first draft token at probability
// under 0.1 is right 23% of the time at T 0 and 14% at T 1, at 0.1-0.2 18% and 13%), and
// where a verified token is cheap that pays. A class priced at 0.8 x its
// bin (0.02 for the lowest) is never kept, hence never tried, hence never learnt.
constexpr double kModelPriorScale = 0.8, kModelPriorFloor = 0.1, kLookupPrior = 0.6;

int32_t bin_of(float confidence) {
  int32_t b = 0;
  while (b < kBins - 1 && confidence >= kBinEdges[b]) ++b;
  return b;
}

double bin_middle(int32_t b) {
  const double lo = b == 0 ? 0.0 : kBinEdges[b - 1], hi = b == kBins - 1 ? 1.0 : kBinEdges[b];
  return (lo + hi) / 2;
}

}  // namespace

TreeSizer::TreeSizer(const CostModel& cost, int32_t max_nodes) : cost_(cost), max_nodes_(max_nodes), tried_(kClasses, 0.0), accepted_(kClasses, 0.0) {
  DB_CHECK(max_nodes >= 0);
}

int32_t TreeSizer::class_of(uint8_t origin, float confidence, int32_t depth) {
  if (origin == kDraftedByLookup) return 2 * kBins + std::min(depth, kLookupDepths) - 1;
  return (origin == kDraftedByBoth ? kBins : 0) + bin_of(confidence);
}

double TreeSizer::prior_of(int32_t cls) {
  if (cls >= 2 * kBins) return kLookupPrior;
  const double p = bin_middle(cls % kBins);
  return cls < kBins ? std::max(kModelPriorFloor, kModelPriorScale * p) : std::max(kLookupPrior, p);  // both: at least a lookup's
}

double TreeSizer::calibrated(uint8_t origin, float confidence, int32_t depth) const {
  auto estimate = [&](size_t c, double prior) { return (accepted_[c] + prior * kPriorWeight) / (tried_[c] + kPriorWeight); };
  if (origin != kDraftedByLookup) {
    const auto c = static_cast<size_t>(class_of(origin, confidence, depth));
    return estimate(c, prior_of(static_cast<int32_t>(c)));
  }
  // A lookup depth's prior is the estimate of the depth above it: a depth the sizer has not
  // yet kept is expected to do as well as the one before, rather than falling back to a
  // fixed prior. With a fixed prior below the acceptance of the shallower depths, the
  // deeper ones would never be kept, hence never tried, hence never learnt.
  double g = kLookupPrior;
  for (int32_t d = 1; d <= std::min(depth, kLookupDepths); ++d) g = estimate(static_cast<size_t>(class_of(kDraftedByLookup, 1.0f, d)), g);
  return g;
}

void TreeSizer::values(const Draft& draft) {
  const DraftTree& t = draft.tree;
  const int32_t n = t.size();
  value_.assign(static_cast<size_t>(n), 1.0);
  depth_.assign(static_cast<size_t>(n), 0);
  for (int32_t v = 1; v < n; ++v) {
    const int32_t p = t.parents[static_cast<size_t>(v)];
    DB_CHECK(p >= 0 && p < v);  // no root copies: beams without tree attention are not sized
    depth_[static_cast<size_t>(v)] = depth_[static_cast<size_t>(p)] + 1;
    const uint8_t origin = draft.origin.empty() ? uint8_t{kDraftedByModel} : draft.origin[static_cast<size_t>(v)];
    const float confidence = draft.confidence.empty() ? 0.5f : draft.confidence[static_cast<size_t>(v)];
    value_[static_cast<size_t>(v)] = value_[static_cast<size_t>(p)] * calibrated(origin, confidence, depth_[static_cast<size_t>(v)]);
  }
}

TreeSizer::Choice TreeSizer::choose(const Draft& draft, bool sampling, std::vector<int32_t>& keep) {
  values(draft);
  const int32_t n = draft.tree.size();
  order_.resize(static_cast<size_t>(n - 1));
  std::iota(order_.begin(), order_.end(), 1);
  // Most valuable first; a child's value never exceeds its parent's and ties go to the lower
  // index, so every prefix of the order is closed under parents.
  // (std::sort with the index as tie-break: stable_sort would allocate a buffer every step.)
  std::sort(order_.begin(), order_.end(), [&](int32_t a, int32_t b) {
    const double va = value_[static_cast<size_t>(a)], vb = value_[static_cast<size_t>(b)];
    return va != vb ? va > vb : a < b;
  });
  const int32_t limit = std::min(n - 1, max_nodes_);
  Choice best{0, 1.0, autoregressive_seconds(sampling)};
  double expected = 1;
  for (int32_t k = 1; k <= limit; ++k) {
    expected += value_[static_cast<size_t>(order_[static_cast<size_t>(k - 1)])];
    // Verification computes LM-head rows along the path it walks: about E of them, plus one.
    const int32_t rows = std::min(k + 1, static_cast<int32_t>(std::ceil(expected)) + 1);
    const Choice c{k, expected, cost_.step(1 + k, rows, sampling)};
    if (c.tokens_per_second() > best.tokens_per_second()) best = c;
  }
  keep.assign(1, 0);
  keep.insert(keep.end(), order_.begin(), order_.begin() + best.nodes);
  for (size_t i = 1; i < keep.size(); ++i) best.depth = std::max(best.depth, depth_[static_cast<size_t>(keep[i])]);
  std::sort(keep.begin(), keep.end());
  return best;
}

void TreeSizer::observe(const Draft& verified, std::span<const int32_t> path) {
  const DraftTree& t = verified.tree;
  const int32_t n = t.size();
  for (double& c : tried_) c *= kStepDecay;
  for (double& c : accepted_) c *= kStepDecay;
  on_path_.assign(static_cast<size_t>(n), 0);
  for (int32_t v : path) on_path_[static_cast<size_t>(v)] = 1;
  depth_.assign(static_cast<size_t>(n), 0);
  for (int32_t v = 1; v < n; ++v) {
    const int32_t p = t.parents[static_cast<size_t>(v)];
    depth_[static_cast<size_t>(v)] = depth_[static_cast<size_t>(p)] + 1;
    if (!on_path_[static_cast<size_t>(p)]) continue;  // never tried
    const uint8_t origin = verified.origin.empty() ? uint8_t{kDraftedByModel} : verified.origin[static_cast<size_t>(v)];
    const float confidence = verified.confidence.empty() ? 0.5f : verified.confidence[static_cast<size_t>(v)];
    const auto c = static_cast<size_t>(class_of(origin, confidence, depth_[static_cast<size_t>(v)]));
    tried_[c] = kTryDecay * tried_[c] + 1;
    accepted_[c] = kTryDecay * accepted_[c] + on_path_[static_cast<size_t>(v)];
  }
}

}  // namespace draftbench
