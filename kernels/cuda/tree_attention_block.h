// Tree attention's block program (one block per (head, query node)), shared by the CUDA
// kernel and the CPU emulation. Reference: tree_attention_head (kernels/attention/
// tree_attention.h), whose DFS-interval ancestor test, sliding window, GQA head mapping
// and key order (visible committed slots by position, then tree nodes root-down) are kept.
//
// Keys go in tiles of kTreeAttentionTile, one key per thread, with an online softmax
// (running max and sum, earlier tiles rescaled when the max grows), so memory is O(tile)
// whatever the context. Scores are bit-identical to the reference's (same 16-lane q.k);
// the softmax differs in rounding only: the reference normalises with a double sum before
// weighting V, this weights V first and divides by a float sum at the end.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/attention/attention_arithmetic.h"
#include "kernels/attention/tree_attention.h"
#include "kernels/cuda/host_device.h"

namespace draftbench::cuda {

inline constexpr unsigned kTreeAttentionThreads = 128;
inline constexpr unsigned kTreeAttentionTile = kTreeAttentionThreads;  // keys per tile, one per thread
inline constexpr int kTreeAttentionMaxHeadDim = 256;

struct TreeAttentionArgs {
  AttentionShape shape;
  const float* q;  // query node i, head h: q + i * q_stride + h * head_dim
  int64_t q_stride;
  const float* k_cache;  // slot s, kv head g: k_cache + s * kv_stride + g * head_dim (slots as in tree_attention.h)
  const float* v_cache;
  int64_t kv_stride;
  int64_t n_committed;
  TreeView tree;  // device arrays
  float* out;     // like q, out_stride floats per query node
  int64_t out_stride;
};

struct TreeAttentionShared {
  float score[kTreeAttentionTile];   // this tile's scaled q.k, -inf where the key is not visible
  float weight[kTreeAttentionTile];  // exp(score - running_max), 0 where not visible
  int64_t slot[kTreeAttentionTile];  // cache slot of each key, -1 where not visible
  float acc[kTreeAttentionMaxHeadDim];
  float running_max, running_sum, rescale;
};

// Block-uniform facts about one (head, query node).
struct TreeQuery {
  int head;
  int32_t node;
  int64_t kv_offset;      // floats into a cache row for this head's kv head
  int64_t first_visible;  // first position inside the sliding window
  int64_t n_committed_keys;
  int64_t n_keys;  // committed keys in the window, then every tree node (visible or not)
};

DB_HOST_DEVICE inline TreeQuery tree_query(const TreeAttentionArgs& a, Dim3 block) {
  TreeQuery tq{};
  tq.head = static_cast<int>(block.x);
  tq.node = static_cast<int32_t>(block.y);
  tq.kv_offset = static_cast<int64_t>(tq.head / (a.shape.n_heads / a.shape.n_kv_heads)) * a.shape.head_dim;
  const int64_t q_pos = a.n_committed + a.tree.depth[tq.node];
  const int64_t window_start = q_pos - a.shape.window + 1;
  tq.first_visible = a.shape.window > 0 && window_start > 0 ? window_start : 0;
  tq.n_committed_keys = a.n_committed > tq.first_visible ? a.n_committed - tq.first_visible : 0;
  tq.n_keys = tq.n_committed_keys + a.tree.n_nodes;
  return tq;
}

// Cache slot of key k, or -1 when the query cannot see it (not an ancestor-or-self, or a
// tree node outside the window).
DB_HOST_DEVICE inline int64_t tree_key_slot(const TreeAttentionArgs& a, const TreeQuery& tq, int64_t k) {
  if (k < tq.n_committed_keys) return tq.first_visible + k;
  const int32_t i = static_cast<int32_t>(k - tq.n_committed_keys);
  const TreeView& t = a.tree;
  const bool ancestor = t.dfs_start[i] <= t.dfs_start[tq.node] && t.dfs_end[tq.node] <= t.dfs_end[i];
  return ancestor && a.n_committed + t.depth[i] >= tq.first_visible ? a.n_committed + i : -1;
}

DB_HOST_DEVICE inline void tree_attention_init(const TreeAttentionArgs& a, unsigned t, TreeAttentionShared& sh) {
  for (int d = static_cast<int>(t); d < a.shape.head_dim; d += kTreeAttentionThreads) sh.acc[d] = 0.0f;
  if (t == 0) {
    sh.running_max = -INFINITY;
    sh.running_sum = 0.0f;
  }
}

DB_HOST_DEVICE inline void tree_attention_score(const TreeAttentionArgs& a, const TreeQuery& tq, int64_t tile_start, unsigned t, TreeAttentionShared& sh) {
  const int64_t k = tile_start + t;
  const int64_t slot = k < tq.n_keys ? tree_key_slot(a, tq, k) : -1;
  sh.slot[t] = slot;
  if (slot < 0) {
    sh.score[t] = -INFINITY;
    return;
  }
  const float* q = a.q + tq.node * a.q_stride + static_cast<int64_t>(tq.head) * a.shape.head_dim;
  sh.score[t] = dot16(q, a.k_cache + slot * a.kv_stride + tq.kv_offset, a.shape.head_dim) * a.shape.scale;
}

// Thread 0: the new running max, and the factor that brings earlier tiles to it.
DB_HOST_DEVICE inline void tree_attention_update_max(unsigned t, TreeAttentionShared& sh) {
  if (t != 0) return;
  float m = sh.running_max;
  for (unsigned k = 0; k < kTreeAttentionTile; ++k) m = sh.score[k] > m ? sh.score[k] : m;
  // Nothing visible yet (m = -inf): nothing to rescale, and exp(-inf - -inf) would be NaN.
  sh.rescale = m == -INFINITY ? 1.0f : expf(sh.running_max - m);
  sh.running_max = m;
}

DB_HOST_DEVICE inline void tree_attention_weight(unsigned t, TreeAttentionShared& sh) {
  sh.weight[t] = sh.score[t] == -INFINITY ? 0.0f : expf(sh.score[t] - sh.running_max);
}

// Thread t owns output dims t, t + 128; thread 0 also keeps the running sum.
DB_HOST_DEVICE inline void tree_attention_accumulate(const TreeAttentionArgs& a, const TreeQuery& tq, unsigned t, TreeAttentionShared& sh) {
  for (int d = static_cast<int>(t); d < a.shape.head_dim; d += kTreeAttentionThreads) {
    float acc = sh.acc[d] * sh.rescale;
    for (unsigned k = 0; k < kTreeAttentionTile; ++k) {
      const float w = sh.weight[k];
      if (w == 0.0f) continue;  // not visible or past the last key (or underflowed: adds nothing either way)
      acc += w * a.v_cache[sh.slot[k] * a.kv_stride + tq.kv_offset + d];
    }
    sh.acc[d] = acc;
  }
  if (t == 0) {
    float sum = sh.running_sum * sh.rescale;
    for (unsigned k = 0; k < kTreeAttentionTile; ++k) sum += sh.weight[k];
    sh.running_sum = sum;
  }
}

DB_HOST_DEVICE inline void tree_attention_write(const TreeAttentionArgs& a, const TreeQuery& tq, unsigned t, const TreeAttentionShared& sh) {
  float* out = a.out + tq.node * a.out_stride + static_cast<int64_t>(tq.head) * a.shape.head_dim;
  for (int d = static_cast<int>(t); d < a.shape.head_dim; d += kTreeAttentionThreads) out[d] = sh.acc[d] / sh.running_sum;
}

// The head shapes the block program handles: head_dim up to kTreeAttentionMaxHeadDim,
// query heads a multiple of the key/value heads.
inline bool tree_attention_supports(const AttentionShape& s) {
  return s.head_dim > 0 && s.head_dim <= kTreeAttentionMaxHeadDim && s.n_kv_heads > 0 && s.n_heads % s.n_kv_heads == 0;
}

inline Launch tree_attention_launch(const AttentionShape& shape, int32_t n_nodes) { return {shape.n_heads, n_nodes, Dim3{kTreeAttentionThreads}}; }

template <class Block>
DB_HOST_DEVICE void tree_attention_block(const Block& block, const TreeAttentionArgs& a, TreeAttentionShared& sh) {
  const TreeQuery tq = tree_query(a, block.index());
  block.each_thread([&](Dim3 t) { tree_attention_init(a, t.x, sh); });
  block.sync();
  for (int64_t tile_start = 0; tile_start < tq.n_keys; tile_start += kTreeAttentionTile) {
    block.each_thread([&](Dim3 t) { tree_attention_score(a, tq, tile_start, t.x, sh); });
    block.sync();
    block.each_thread([&](Dim3 t) { tree_attention_update_max(t.x, sh); });
    block.sync();
    block.each_thread([&](Dim3 t) { tree_attention_weight(t.x, sh); });
    block.sync();
    block.each_thread([&](Dim3 t) { tree_attention_accumulate(a, tq, t.x, sh); });
    block.sync();
  }
  block.each_thread([&](Dim3 t) { tree_attention_write(a, tq, t.x, sh); });
}

}  // namespace draftbench::cuda
