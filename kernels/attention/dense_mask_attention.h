// The dense-mask counterpart of tree_attention_head, kept as the test reference and for
// the memory comparison of kernels/bench (README "Tree attention memory"): the tree is
// first expanded into an explicit [n_nodes][n_committed + n_nodes] additive mask (0 or
// -inf, sliding window included), as a framework's attention with a 4-D mask takes it,
// and every query then scores every slot. Its extra memory is O(N^2 + N * context); the
// DFS-interval kernel's is O(N).
//
// Masked slots contribute exactly zero (exp(-inf) = 0, and x + 0 = x), and slots are
// reduced in the same canonical order as tree_attention_head's, so the two kernels give
// bit-identical outputs: the test checks that, not a tolerance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/attention/tree_attention.h"

namespace draftbench {

struct DenseTreeMask {
  int64_t n_committed = 0;
  int32_t n_nodes = 0;
  std::vector<float> bias;  // [n_nodes][n_committed + n_nodes]
  int64_t n_slots() const { return n_committed + n_nodes; }
  size_t bytes() const { return bias.size() * sizeof(float); }
};

DenseTreeMask build_dense_tree_mask(const TreeView& tree, int64_t n_committed, int64_t window);

// Same arguments as tree_attention_head, with the mask in place of the tree. `scores`
// holds at least mask.n_slots() floats.
void dense_mask_attention_head(const AttentionShape& shape, int head, const float* q, const float* k_cache, const float* v_cache, int64_t kv_stride,
                               const DenseTreeMask& mask, int32_t query_node, float* scores, float* out);

}  // namespace draftbench
