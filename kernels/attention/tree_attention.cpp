#include "kernels/attention/tree_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/attention/attention_arithmetic.h"

namespace draftbench {

void tree_attention_head(const AttentionShape& s, int head, const float* qh, const float* k_cache, const float* v_cache, int64_t kv_stride, int64_t n_committed,
                         const TreeView& tree, int32_t query_node, float* scores, float* oh) {
  const int64_t kv_offset = static_cast<int64_t>(head / (s.n_heads / s.n_kv_heads)) * s.head_dim;
  const int32_t qs = tree.dfs_start[query_node], qe = tree.dfs_end[query_node];
  const int64_t q_pos = n_committed + tree.depth[query_node];
  const int64_t first_visible = s.window > 0 ? std::max<int64_t>(0, q_pos - s.window + 1) : 0;
  auto visible_node = [&](int32_t i) { return tree.dfs_start[i] <= qs && qe <= tree.dfs_end[i] && n_committed + tree.depth[i] >= first_visible; };

  int64_t n = 0;
  float max_score = -std::numeric_limits<float>::infinity();
  auto score_slot = [&](int64_t slot) {
    const float sc = dot16(qh, k_cache + slot * kv_stride + kv_offset, s.head_dim) * s.scale;
    scores[n++] = sc;
    max_score = std::max(max_score, sc);
  };
  for (int64_t p = first_visible; p < n_committed; ++p) score_slot(p);
  for (int32_t i = 0; i < tree.n_nodes; ++i)
    if (visible_node(i)) score_slot(n_committed + i);

  softmax_weights(scores, n, max_score);
  for (int d = 0; d < s.head_dim; ++d) oh[d] = 0.0f;
  int64_t k = 0;
  auto accumulate = [&](int64_t slot) { add_weighted_row(oh, scores[k++], v_cache + slot * kv_stride + kv_offset, s.head_dim); };
  for (int64_t p = first_visible; p < n_committed; ++p) accumulate(p);
  for (int32_t i = 0; i < tree.n_nodes; ++i)
    if (visible_node(i)) accumulate(n_committed + i);
}

}  // namespace draftbench
