#include "engine/decoding/verify_typical.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/common/error.h"

namespace draftbench {
namespace {

constexpr double kRejected = -std::numeric_limits<double>::infinity();

// A root copy (parent -1 beyond node 0) stands for node 0 (verify.h).
bool is_root_copy(const TokenTree& tree, int32_t node) { return node > 0 && tree.parent[node] < 0; }
int32_t as_canonical(const TokenTree& tree, int32_t node) { return tree.parent[node] < 0 ? 0 : node; }
// The parent of a draft node, with root copies folded into node 0.
int32_t canonical_parent(const TokenTree& tree, int32_t node) { return as_canonical(tree, tree.parent[node]); }

// Per node, the sum of log p over its root path, or kRejected. Kept as doubles in
// out.path's int32 storage (two slots per node) so that a call allocates nothing else;
// memcpy because that storage is only 4-byte aligned.
class PathScores {
 public:
  PathScores(std::vector<int32_t>& storage, int32_t n_nodes) : storage_(storage) {
    storage_.resize(2 * static_cast<size_t>(n_nodes));
    for (int32_t v = 0; v < n_nodes; ++v) set(v, kRejected);
  }
  double get(int32_t node) const {
    double value;
    std::memcpy(&value, storage_.data() + 2 * static_cast<size_t>(node), sizeof value);
    return value;
  }
  void set(int32_t node, double value) { std::memcpy(storage_.data() + 2 * static_cast<size_t>(node), &value, sizeof value); }

 private:
  std::vector<int32_t>& storage_;
};

// What the rule needs of p = softmax(logits / T) at one node.
struct TypicalThreshold {
  double log_z = 0.0;      // log sum exp(logits / T)
  double threshold = 0.0;  // a child x is acceptable iff p(x) > threshold
};

TypicalThreshold typical_threshold(std::span<const float> logits, const TypicalParams& params) {
  const double inv_t = 1.0 / static_cast<double>(params.temperature);
  double max_scaled = -std::numeric_limits<double>::infinity();
  for (const float l : logits) max_scaled = std::max(max_scaled, static_cast<double>(l) * inv_t);
  double sum = 0.0;
  for (const float l : logits) sum += std::exp(static_cast<double>(l) * inv_t - max_scaled);
  const double log_sum = std::log(sum);
  // H = -sum p log(p + 1e-5), with Medusa's 1e-5 (it keeps p = 0 terms finite).
  double entropy = 0.0;
  for (const float l : logits) {
    const double p = std::exp(static_cast<double>(l) * inv_t - max_scaled - log_sum);
    entropy -= p * std::log(p + 1e-5);
  }
  return {max_scaled + log_sum, std::min(static_cast<double>(params.epsilon), static_cast<double>(params.delta) * std::exp(-entropy))};
}

}  // namespace

void verify_typical(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, const TypicalParams& params, Acceptance& out) {
  const int32_t n = tree.size();
  DB_CHECK(n >= 1 && tokens.size() == static_cast<size_t>(n) && tree.parent[0] == -1);
  DB_CHECK(target.valid());
  DB_CHECK(params.temperature > 0.0f && params.epsilon >= 0.0f && params.delta >= 0.0f);
  for (int32_t v = 0; v < n; ++v) {
    DB_CHECK(tokens[v] >= 0 && tokens[v] < target.n_vocab);
    if (is_root_copy(tree, v)) DB_CHECK(tokens[v] == tokens[0]);
  }
  const double inv_t = 1.0 / static_cast<double>(params.temperature);

  PathScores scores(out.path, n);
  scores.set(0, 0.0);
  int32_t best = 0;
  double best_score = 0.0;
  // Nodes in order: a node's verdict is final before it is reached (its parent precedes it),
  // so one pass decides its children and ranks it. The softmax at a node is computed only if
  // the node is accepted and has children.
  for (int32_t v = 0; v < n; ++v) {
    if (is_root_copy(tree, v)) continue;
    const double score = scores.get(v);
    if (score == kRejected) continue;
    // Longer, then larger sum of log p; strict comparisons keep the first in node order.
    if (tree.depth[v] > tree.depth[best] || (tree.depth[v] == tree.depth[best] && score > best_score)) {
      best = v;
      best_score = score;
    }
    bool have_threshold = false;
    TypicalThreshold at_v;
    const std::span<const float> logits = target.at(v);
    for (int32_t c = v + 1; c < n; ++c) {
      if (is_root_copy(tree, c) || canonical_parent(tree, c) != v) continue;
      if (!have_threshold) {
        at_v = typical_threshold(logits, params);
        have_threshold = true;
      }
      const double log_p = static_cast<double>(logits[tokens[c]]) * inv_t - at_v.log_z;
      if (std::exp(log_p) > at_v.threshold) scores.set(c, score + log_p);
    }
  }
  out.next_token = target.argmax_at(best);

  // The path over the scores' storage: it is no longer needed, and has room for n nodes.
  out.path.clear();
  for (int32_t v = best; v != 0; v = canonical_parent(tree, v)) out.path.push_back(v);
  out.path.push_back(0);
  std::reverse(out.path.begin(), out.path.end());
}

}  // namespace draftbench
