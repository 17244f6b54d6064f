// Test input for the tree-attention tests (emulated and on the GPU): random forests (their
// DFS intervals from TokenTree, as the engine builds them), random caches and queries, and
// the reference outputs.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/attention/token_tree.h"
#include "kernels/attention/tree_attention.h"
#include "kernels/fixtures/random_blocks.h"

namespace draftbench::cuda_test {

// Random parents-first parents: node 0 a root, every later node a child of an earlier
// one, or (when `forest`) a new root one time in five.
inline std::vector<int32_t> random_parents(int n_nodes, bool forest, std::mt19937& rng) {
  std::vector<int32_t> parents(n_nodes);
  for (int i = 0; i < n_nodes; ++i) {
    const bool new_root = i == 0 || (forest && std::uniform_int_distribution<int>(0, 4)(rng) == 0);
    parents[i] = new_root ? -1 : std::uniform_int_distribution<int>(0, i - 1)(rng);
  }
  return parents;
}

// One random tree-attention problem: K/V cache rows padded past n_kv_heads * head_dim.
struct AttentionCase {
  AttentionShape shape;
  int64_t n_committed;
  TokenTree tree;
  std::vector<float> q, k, v;  // q: [nodes][n_heads * head_dim]; k, v: [slots][kv_stride]
  int64_t kv_stride;
};

inline AttentionCase random_attention_case(std::mt19937& rng, int n_heads, int n_kv, int head_dim, int64_t committed, int n_nodes, int64_t window,
                                           bool forest) {
  const AttentionShape shape{n_heads, n_kv, head_dim, 1.0f / std::sqrt(static_cast<float>(head_dim)), window};
  AttentionCase c{shape, committed, TokenTree::from_parents(random_parents(n_nodes, forest, rng)), {}, {}, {}, static_cast<int64_t>(n_kv) * head_dim + 3};
  c.q = random_activations(static_cast<int64_t>(n_nodes) * n_heads * head_dim, rng, 1.0f);
  c.k = random_activations((committed + n_nodes) * c.kv_stride, rng, 1.0f);
  c.v = random_activations((committed + n_nodes) * c.kv_stride, rng, 1.0f);
  return c;
}

// tree_attention_head for every (node, head), q and out rows packed.
inline std::vector<float> reference_outputs(const AttentionCase& c) {
  const int64_t row = static_cast<int64_t>(c.shape.n_heads) * c.shape.head_dim;
  const int32_t n = c.tree.size();
  std::vector<float> out(n * row), scores(c.n_committed + n);
  for (int32_t node = 0; node < n; ++node)
    for (int h = 0; h < c.shape.n_heads; ++h)
      tree_attention_head(c.shape, h, c.q.data() + node * row + h * c.shape.head_dim, c.k.data(), c.v.data(), c.kv_stride, c.n_committed, c.tree.view(), node,
                          scores.data(), out.data() + node * row + h * c.shape.head_dim);
  return out;
}

// Outputs are convex combinations of V rows (|v| <= max|v|). The reference and a tiled
// online softmax both form them with float sums of at most n_keys terms (the reference
// after a double normalisation, the kernel with a running max and one final division);
// each rounding adds at most FLT_EPSILON / 2 relative and expf is within `exp_ulps`, so
// (n_keys + 4 * exp_ulps) * FLT_EPSILON * max|v| bounds the worst case.
inline float output_tolerance(const AttentionCase& c, int exp_ulps) {
  float max_v = 0.0f;
  for (const float x : c.v) max_v = std::max(max_v, std::fabs(x));
  const int64_t n_keys = c.n_committed + c.tree.size();
  return static_cast<float>(n_keys + 4 * exp_ulps) * FLT_EPSILON * max_v;
}

}  // namespace draftbench::cuda_test
