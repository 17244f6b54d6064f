#include "kernels/attention/tree_attention_tiled.h"

#include <algorithm>

#include "kernels/attention/tree_attention_tiled_body.h"
#include "kernels/runtime/check.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench {

namespace {

// Queries a thread works on between two passes over the K/V tiles. Each tile is reused this
// many times while it sits in L1; and the score rows, one per query of a chunk, stay bounded:
// a 512-token prefill chunk over 32k committed tokens needs 8 MiB per thread, not 256 MiB.
constexpr int64_t kMaxChunk = 64;

// Queries per chunk: the queries spread evenly over the threads first (a 16-node tree's 64
// queries use both cores), capped at kMaxChunk.
int64_t chunk_queries(int64_t queries, int n_threads) { return std::clamp<int64_t>((queries + n_threads - 1) / n_threads, 1, kMaxChunk); }

}  // namespace

size_t tree_attention_scratch_floats(const AttentionShape& shape, int64_t n_committed, int32_t n_nodes, int32_t first_node, int n_threads) {
  const int64_t queries = static_cast<int64_t>(n_nodes - first_node) * shape.n_heads;
  return static_cast<size_t>(n_threads * chunk_queries(queries, n_threads) * (n_committed + n_nodes));
}

void tree_attention_tiled_generic(const TreeAttentionJob& job, int64_t q_begin, int64_t q_end, float* scratch) {
  tree_attention_tiled_body(job, q_begin, q_end, scratch);
}

void tree_attention(const TreeAttentionJob& job, std::span<float> scratch, ThreadPool& pool) {
  const AttentionShape& s = job.shape;
  DB_CHECK(s.n_kv_heads > 0 && s.n_heads % s.n_kv_heads == 0 && job.first_node >= 0 && job.first_node < job.tree.n_nodes);
  DB_CHECK(scratch.size() >= tree_attention_scratch_floats(s, job.n_committed, job.tree.n_nodes, job.first_node, pool.size()));
  auto body = cpu_features().avx2 ? &tree_attention_tiled_avx2 : &tree_attention_tiled_generic;
  const int64_t queries = static_cast<int64_t>(job.n_queries()) * s.n_heads;
  const int64_t chunk = chunk_queries(queries, pool.size());
  const size_t chunk_floats = static_cast<size_t>(chunk * (job.n_committed + job.tree.n_nodes));
  // Chunks dealt round-robin (thread t: chunks t, t + T, ...), not in contiguous halves: a
  // node's work grows with its ancestors, so in a causal prefill the later half of the
  // nodes is about three quarters of the work. Each chunk's result is the same whichever
  // thread computes it.
  const int64_t n_chunks = (queries + chunk - 1) / chunk;
  const int64_t stride = pool.size();
  pool.parallel_for(stride, 1, [&](int64_t b, int64_t e, int thread) {
    for (int64_t first = b; first < e; ++first)
      for (int64_t c = first; c < n_chunks; c += stride)
        body(job, c * chunk, std::min(queries, (c + 1) * chunk), scratch.data() + static_cast<size_t>(thread) * chunk_floats);
  });
}

}  // namespace draftbench
