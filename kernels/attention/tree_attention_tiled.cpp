#include "kernels/attention/tree_attention_tiled.h"

#include "kernels/attention/tree_attention_tiled_body.h"
#include "kernels/runtime/check.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench {

size_t tree_attention_scratch_floats(const AttentionShape& shape, int64_t n_committed, int32_t n_nodes, int32_t first_node) {
  const int64_t queries = static_cast<int64_t>(n_nodes - first_node) * shape.n_heads;
  return static_cast<size_t>(queries * (n_committed + n_nodes));
}

void tree_attention_tiled_generic(const TreeAttentionJob& job, int64_t q_begin, int64_t q_end, float* scratch) {
  tree_attention_tiled_body(job, q_begin, q_end, scratch);
}

void tree_attention(const TreeAttentionJob& job, std::span<float> scratch, ThreadPool& pool) {
  const AttentionShape& s = job.shape;
  DB_CHECK(s.n_kv_heads > 0 && s.n_heads % s.n_kv_heads == 0 && job.first_node >= 0 && job.first_node < job.tree.n_nodes);
  DB_CHECK(scratch.size() >= tree_attention_scratch_floats(s, job.n_committed, job.tree.n_nodes, job.first_node));
  auto body = cpu_features().avx2 ? &tree_attention_tiled_avx2 : &tree_attention_tiled_generic;
  const int64_t queries = static_cast<int64_t>(job.n_queries()) * s.n_heads;
  // Contiguous query ranges per thread: each thread reads every K/V tile once for its range.
  pool.parallel_for(queries, 1, [&](int64_t b, int64_t e, int) { body(job, b, e, scratch.data()); });
}

}  // namespace draftbench
