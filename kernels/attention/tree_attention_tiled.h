// Tree attention for every head of every query node of one sequence's tree at once, with
// the committed context tiled: each tile of K (then V) rows is read once for all the
// queries that share its KV head (GQA group x tree nodes) while it sits in L1, instead of
// once per (node, head) as tree_attention_head streams it.
//
// The result is bit-identical to tree_attention_head for every (node, head) — the test
// checks it with memcmp — because each query's arithmetic is the reference's, in the
// reference's order: the same dot16 per key, max, exp and a double sum in canonical key
// order, then p * v accumulated key by key in that order. Tiling only changes which
// query is worked on between two keys, never the order within one query. That is why
// this is a tiled two-pass softmax and not an online (flash) one: rescaling a running sum
// rounds differently from the reference, and decoding's bit-identity would then rest on
// every path using the online form.
//
// Shapes: queries are nodes first_node .. tree.n_nodes-1; q and out are
// [n_queries][n_heads][head_dim]; K/V caches as for tree_attention_head.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/attention/tree_attention.h"
#include "kernels/runtime/thread_pool.h"

namespace draftbench {

struct TreeAttentionJob {
  AttentionShape shape;
  TreeView tree;
  int32_t first_node = 0;
  const float* q = nullptr;
  const float* k_cache = nullptr;
  const float* v_cache = nullptr;
  int64_t kv_stride = 0;
  int64_t n_committed = 0;
  float* out = nullptr;
  int32_t n_queries() const { return tree.n_nodes - first_node; }
};

// Floats of scratch tree_attention needs on a pool of n_threads: per thread, one score row
// for each query of the chunk it works on (at most 64 queries).
size_t tree_attention_scratch_floats(const AttentionShape& shape, int64_t n_committed, int32_t n_nodes, int32_t first_node, int n_threads);

void tree_attention(const TreeAttentionJob& job, std::span<float> scratch, ThreadPool& pool);

// The single-threaded bodies, for the tests and the benchmarks: the same computation for
// queries [q_begin, q_end) of the flattened (kv head, query node, head in group) order;
// scratch holds a score row of n_committed + n_nodes floats for each of them.
void tree_attention_tiled_generic(const TreeAttentionJob& job, int64_t q_begin, int64_t q_end, float* scratch);
void tree_attention_tiled_avx2(const TreeAttentionJob& job, int64_t q_begin, int64_t q_end, float* scratch);

}  // namespace draftbench
