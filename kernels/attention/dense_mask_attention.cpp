#include "kernels/attention/dense_mask_attention.h"

#include <cmath>
#include <limits>

#include "kernels/attention/attention_arithmetic.h"

namespace draftbench {

DenseTreeMask build_dense_tree_mask(const TreeView& tree, int64_t n_committed, int64_t window) {
  DenseTreeMask m;
  m.n_committed = n_committed;
  m.n_nodes = tree.n_nodes;
  const int64_t slots = m.n_slots();
  m.bias.assign(static_cast<size_t>(tree.n_nodes) * static_cast<size_t>(slots), -std::numeric_limits<float>::infinity());
  for (int32_t q = 0; q < tree.n_nodes; ++q) {
    float* row = m.bias.data() + static_cast<size_t>(q) * static_cast<size_t>(slots);
    const int64_t q_pos = n_committed + tree.depth[q];
    auto in_window = [&](int64_t pos) { return window <= 0 || q_pos - pos < window; };
    for (int64_t p = 0; p < n_committed; ++p)
      if (in_window(p)) row[p] = 0.0f;
    for (int32_t i = 0; i < tree.n_nodes; ++i)
      if (tree.dfs_start[i] <= tree.dfs_start[q] && tree.dfs_end[q] <= tree.dfs_end[i] && in_window(n_committed + tree.depth[i])) row[n_committed + i] = 0.0f;
  }
  return m;
}

void dense_mask_attention_head(const AttentionShape& s, int head, const float* qh, const float* k_cache, const float* v_cache, int64_t kv_stride,
                               const DenseTreeMask& mask, int32_t query_node, float* scores, float* oh) {
  const int64_t kv_offset = static_cast<int64_t>(head / (s.n_heads / s.n_kv_heads)) * s.head_dim;
  const int64_t slots = mask.n_slots();
  const float* bias = mask.bias.data() + static_cast<size_t>(query_node) * static_cast<size_t>(slots);
  float max_score = -std::numeric_limits<float>::infinity();
  for (int64_t slot = 0; slot < slots; ++slot) {
    scores[slot] = dot16(qh, k_cache + slot * kv_stride + kv_offset, s.head_dim) * s.scale + bias[slot];
    max_score = std::max(max_score, scores[slot]);
  }
  softmax_weights(scores, slots, max_score);
  for (int d = 0; d < s.head_dim; ++d) oh[d] = 0.0f;
  for (int64_t slot = 0; slot < slots; ++slot) add_weighted_row(oh, scores[slot], v_cache + slot * kv_stride + kv_offset, s.head_dim);
}

}  // namespace draftbench
