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

// Queries of one node taken through their ancestors together (a KV head's group of query
// heads; larger groups are taken this many at a time).
constexpr int kSameNodeQueries = 16;

struct QueryRef {
  int32_t node;   // tree node index
  int head;       // query head
  int64_t first;  // first visible committed position
  float* scores;  // this query's score row
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
    auto ancestor = [&](int32_t i, int32_t node) { return tree.dfs_start[i] <= tree.dfs_start[node] && tree.dfs_end[node] <= tree.dfs_end[i]; };
    auto in_window = [&](const QueryRef& r, int32_t i) { return job.n_committed + tree.depth[i] >= r.first; };
    // Keys go to the arithmetic kKeysAtOnce at a time (a short last group one by one), in
    // visiting order: f(rows, count) for committed positions [b, e), or for query r's
    // visible ancestors root-down.
    auto positions_in_groups = [&](int64_t b, int64_t e, const float* cache, auto f) {
      const float* rows[kKeysAtOnce];
      for (int64_t p = b; p < e; p += kKeysAtOnce) {
        const int count = static_cast<int>(std::min<int64_t>(kKeysAtOnce, e - p));
        for (int j = 0; j < count; ++j) rows[j] = cache + (p + j) * job.kv_stride + kv_offset;
        f(rows, count);
      }
    };
    auto ancestors_in_groups = [&](const QueryRef& r, const float* cache, auto f) {
      const float* rows[kKeysAtOnce];
      int count = 0;
      for (int32_t i = 0; i < tree.n_nodes; ++i)
        if (ancestor(i, r.node) && in_window(r, i)) {
          rows[count++] = cache + (job.n_committed + i) * job.kv_stride + kv_offset;
          if (count == kKeysAtOnce) {
            f(rows, count);
            count = 0;
          }
        }
      if (count > 0) f(rows, count);
    };
    auto score_keys = [&](const float* qh, const float* const* rows, int count, float* dst) {
      if (count == kKeysAtOnce) {
        float dots[kKeysAtOnce];
        dot16_keys(qh, rows, s.head_dim, dots);
        for (int j = 0; j < count; ++j) dst[j] = dots[j] * s.scale;
      } else {
        for (int j = 0; j < count; ++j) dst[j] = dot16(qh, rows[j], s.head_dim) * s.scale;
      }
    };
    auto weigh_values = [&](float* oh, const float* p, const float* const* rows, int count) {
      if (count == kKeysAtOnce) add_weighted_rows(oh, p, rows, s.head_dim);
      else
        for (int j = 0; j < count; ++j) add_weighted_row(oh, p[j], rows[j], s.head_dim);
    };
    int64_t lowest_first = job.n_committed;
    for (int64_t f = begin; f < end; ++f) lowest_first = std::min(lowest_first, query(f).first);

    // Pass 1: scores. Committed keys tile by tile, every query of the range per tile.
    for (int64_t p0 = lowest_first; p0 < job.n_committed; p0 += tile) {
      const int64_t p1 = std::min(p0 + tile, job.n_committed);
      for (int64_t f = begin; f < end; ++f) {
        const QueryRef r = query(f);
        const float* qh = q_ptr(r);
        const int64_t b = std::max(p0, r.first);
        float* dst = r.scores + (b - r.first);
        positions_in_groups(b, p1, job.k_cache, [&](const float* const* rows, int count) {
          score_keys(qh, rows, count, dst);
          dst += count;
        });
      }
    }
    // The queries of one node (its heads in the group, consecutive in the flat order) see the
    // same keys: their ancestor passes go key group by key group over all of them at once,
    // so each K or V row is read from memory once per node, not once per head.
    auto same_node_queries = [&](int64_t f, QueryRef* refs) {
      int n = 0;
      refs[n++] = query(f);
      while (f + n < end && n < kSameNodeQueries && query(f + n).node == refs[0].node) {
        refs[n] = query(f + n);
        ++n;
      }
      return n;
    };
    QueryRef refs[kSameNodeQueries];
    // Ancestors root-down after the committed keys; then pass 2, each query on its own:
    // the softmax weights, in place.
    for (int64_t f = begin; f < end;) {
      const int n_refs = same_node_queries(f, refs);
      int64_t n = std::max<int64_t>(0, job.n_committed - refs[0].first);
      ancestors_in_groups(refs[0], job.k_cache, [&](const float* const* rows, int count) {
        for (int j = 0; j < n_refs; ++j) score_keys(q_ptr(refs[j]), rows, count, refs[j].scores + n);
        n += count;
      });
      for (int j = 0; j < n_refs; ++j) {
        const QueryRef& r = refs[j];
        float max_score = -std::numeric_limits<float>::infinity();
        for (int64_t k = 0; k < n; ++k) max_score = std::max(max_score, r.scores[k]);
        softmax_weights(r.scores, n, max_score);
        float* oh = out_ptr(r);
        for (int d = 0; d < s.head_dim; ++d) oh[d] = 0.0f;
      }
      f += n_refs;
    }
    // Pass 3: p * v, committed tiles first, then each query's ancestors in order.
    for (int64_t p0 = lowest_first; p0 < job.n_committed; p0 += tile) {
      const int64_t p1 = std::min(p0 + tile, job.n_committed);
      for (int64_t f = begin; f < end; ++f) {
        const QueryRef r = query(f);
        float* oh = out_ptr(r);
        const int64_t b = std::max(p0, r.first);
        const float* p = r.scores + (b - r.first);
        positions_in_groups(b, p1, job.v_cache, [&](const float* const* rows, int count) {
          weigh_values(oh, p, rows, count);
          p += count;
        });
      }
    }
    for (int64_t f = begin; f < end;) {
      const int n_refs = same_node_queries(f, refs);
      int64_t k = std::max<int64_t>(0, job.n_committed - refs[0].first);
      ancestors_in_groups(refs[0], job.v_cache, [&](const float* const* rows, int count) {
        for (int j = 0; j < n_refs; ++j) weigh_values(out_ptr(refs[j]), refs[j].scores + k, rows, count);
        k += count;
      });
      f += n_refs;
    }
    begin = end;
  }
}

}  // namespace
}  // namespace draftbench
