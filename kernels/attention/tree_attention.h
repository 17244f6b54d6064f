// Attention of one query token over its sequence's committed context plus its ancestors
// in a token tree, with the DFS-interval ancestor test (engine/DESIGN.md §4): tree node i is an
// ancestor-or-self of node j iff start[i] <= start[j] && end[j] <= end[i]. Memory is O(N)
// in the number of tree nodes; no N x N mask exists anywhere.
//
// Keys are reduced in one canonical order: committed slots by position, then the query's
// ancestors root-down (tree nodes are stored parents-first, so index order is root-down).
// That is exactly the order autoregressive decoding sees the same keys in, whatever the
// tree's shape or packing, which is what makes speculative decoding bit-identical to it.
//
// Shapes: q and out are one head's [head_dim] values; the K and V caches hold one row of
// [n_kv_heads][head_dim] per slot, `kv_stride` floats apart: committed position p is slot
// p (p < n_committed), tree node i is slot n_committed + i. scores is scratch of at least
// n_committed + n_tree floats.
#pragma once

#include <cstdint>

namespace draftbench {

struct AttentionShape {
  int n_heads = 0, n_kv_heads = 0, head_dim = 0;
  float scale = 1.0f;  // multiplies q.k
  int64_t window = 0;  // sliding window in positions (0 = none): key visible iff q_pos - k_pos < window
};

struct TreeView {
  int32_t n_nodes = 0;
  const int32_t* dfs_start = nullptr;  // [n_nodes]
  const int32_t* dfs_end = nullptr;    // [n_nodes]
  const int32_t* depth = nullptr;      // [n_nodes]; position of node i = n_committed + depth[i]
};

// One query head h: q and out point at that head's [head_dim] values.
void tree_attention_head(const AttentionShape& shape, int head, const float* q, const float* k_cache, const float* v_cache, int64_t kv_stride,
                         int64_t n_committed, const TreeView& tree, int32_t query_node, float* scores, float* out);

}  // namespace draftbench
