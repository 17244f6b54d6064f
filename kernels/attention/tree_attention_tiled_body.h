// The body of tree_attention_tiled_{generic,avx2}: included by one translation unit per
// instruction set, in an anonymous namespace so that each keeps its own compiled copy.
// Queries are flattened as (kv head g, query node i, head-in-group j); a range of them
// is done in three passes: scores (committed tiles, then ancestors), softmax weights,
// then p * v (committed tiles, then ancestors).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/attention/attention_arithmetic.h"
#include "kernels/attention/tree_attention_tiled.h"

namespace draftbench {
namespace {

struct QueryRef {
  int32_t node;      // tree node index
  int head;          // query head
  int64_t first;     // first visible committed position
  float* scores;     // this query's score row
};

inline void tree_attention_tiled_body(const TreeAttentionJob& job, int64_t q_begin, int64_t q_end, float* scratch) {
  const AttentionShape& s = job.shape;
  const TreeView& tree = job.tree;
  const int group = s.n_heads / s.n_kv_heads;
  const int64_t per_kv = static_cast<int64_t>(job.n_queries()) * group;
  const int64_t row = job.n_committed + tree.n_nodes;  // score row length
  // Keys per tile: about 16 KiB of K or V rows, so a tile stays in L1 across the queries.
  const int64_t tile = std::max<int64_t>(8, 4096 / s.head_dim);

  for (int64_t begin = q_begin; begin < q_end;) {
    const int g = static_cast<int>(begin / per_kv);
    const int64_t end = std::min(q_end, (g + 1) * per_kv);
    const int64_t kv_offset = static_cast<int64_t>(g) * s.head_dim;
    auto query = [&](int64_t flat) {
      const int64_t in_group = flat - g * per_kv;
      QueryRef r;
      r.node = job.first_node + static_cast<int32_t>(in_group / group);
      r.head = g * group + static_cast<int>(in_group % group);
      const int64_t q_pos = job.n_committed + tree.depth[r.node];
      r.first = s.window > 0 ? std::max<int64_t>(0, q_pos - s.window + 1) : 0;
      r.scores = scratch + (flat - q_begin) * row;
      return r;
    };
    auto q_ptr = [&](const QueryRef& r) { return job.q + (static_cast<int64_t>(r.node - job.first_node) * s.n_heads + r.head) * s.head_dim; };
    auto out_ptr = [&](const QueryRef& r) { return job.out + (static_cast<int64_t>(r.node - job.first_node) * s.n_heads + r.head) * s.head_dim; };
    auto ancestor = [&](int32_t i, int32_t node) {
      return tree.dfs_start[i] <= tree.dfs_start[node] && tree.dfs_end[node] <= tree.dfs_end[i];
    };
    auto in_window = [&](const QueryRef& r, int32_t i) { return job.n_committed + tree.depth[i] >= r.first; };
    int64_t lowest_first = job.n_committed;
    for (int64_t f = begin; f < end; ++f) lowest_first = std::min(lowest_first, query(f).first);

    // Pass 1: scores. Committed keys tile by tile, every query of the range per tile.
    for (int64_t p0 = lowest_first; p0 < job.n_committed; p0 += tile) {
      const int64_t p1 = std::min(p0 + tile, job.n_committed);
      for (int64_t f = begin; f < end; ++f) {
        const QueryRef r = query(f);
        const float* qh = q_ptr(r);
        for (int64_t p = std::max(p0, r.first); p < p1; ++p)
          r.scores[p - r.first] = dot16(qh, job.k_cache + p * job.kv_stride + kv_offset, s.head_dim) * s.scale;
      }
    }
    // Ancestors root-down after the committed keys; then pass 2, each query on its own:
    // the softmax weights, in place.
    for (int64_t f = begin; f < end; ++f) {
      const QueryRef r = query(f);
      const float* qh = q_ptr(r);
      int64_t n = std::max<int64_t>(0, job.n_committed - r.first);
      for (int32_t i = 0; i < tree.n_nodes; ++i)
        if (ancestor(i, r.node) && in_window(r, i))
          r.scores[n++] = dot16(qh, job.k_cache + (job.n_committed + i) * job.kv_stride + kv_offset, s.head_dim) * s.scale;
      float max_score = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < n; ++k) max_score = std::max(max_score, r.scores[k]);
      softmax_weights(r.scores, n, max_score);
      float* oh = out_ptr(r);
      for (int d = 0; d < s.head_dim; ++d) oh[d] = 0.0f;
    }
    // Pass 3: p * v, committed tiles first, then each query's ancestors in order.
    for (int64_t p0 = lowest_first; p0 < job.n_committed; p0 += tile) {
      const int64_t p1 = std::min(p0 + tile, job.n_committed);
      for (int64_t f = begin; f < end; ++f) {
        const QueryRef r = query(f);
        float* oh = out_ptr(r);
        for (int64_t p = std::max(p0, r.first); p < p1; ++p)
          add_weighted_row(oh, r.scores[p - r.first], job.v_cache + p * job.kv_stride + kv_offset, s.head_dim);
      }
    }
    for (int64_t f = begin; f < end; ++f) {
      const QueryRef r = query(f);
      float* oh = out_ptr(r);
      int64_t k = std::max<int64_t>(0, job.n_committed - r.first);
      for (int32_t i = 0; i < tree.n_nodes; ++i)
        if (ancestor(i, r.node) && in_window(r, i))
          add_weighted_row(oh, r.scores[k++], job.v_cache + (job.n_committed + i) * job.kv_stride + kv_offset, s.head_dim);
    }
    begin = end;
  }
}

}  // namespace
}  // namespace draftbench
