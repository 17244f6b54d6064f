// The work one call of a benchmarked kernel does, counted the same way in the CPU suite
// (kernel_bench) and the CUDA suite (cuda_kernel_bench), so that their rates compare.
#pragma once

#include <cstdint>

#include "kernels/attention/token_tree.h"
#include "kernels/bench/bench_suite.h"
#include "kernels/bench/model_shapes.h"
#include "kernels/quant/ggml_type.h"
#include "kernels/quant/quantize_activation.h"

namespace draftbench {

// A weight matrix against n_x quantised activation rows: bytes count the weights (read from
// DRAM: every benchmark cycles them through an arena larger than the caches), the
// activations and the float outputs; FLOPs 2 per multiply-add.
inline Work product_work(const MatrixShape& m, int64_t n_x) {
  const double weights = static_cast<double>(ggml_row_bytes(m.type, m.n_in)) * m.n_out;
  const double acts = static_cast<double>(activation_row_bytes(m.type, m.n_in)) * n_x;
  return {weights + acts + 4.0 * m.n_out * n_x, 2.0 * m.n_in * m.n_out * n_x, /*from_dram=*/true};
}

// Every head of every node of `tree` over `context` committed positions, float K/V rows of
// n_kv_heads * head_dim values: bytes count the K/V rows read once (context + tree) and the
// queries and outputs; FLOPs count q.k and p.v over the keys each node sees (the context
// and its ancestors-or-self). The K/V rows are not cycled, so not from DRAM.
inline Work tree_attention_work(const ModelShape& m, int64_t context, const TokenTree& tree) {
  const int64_t nodes = tree.size();
  const double kv_values = static_cast<double>(context + nodes) * m.n_kv_heads * m.head_dim;
  const double q_values = static_cast<double>(nodes) * m.n_heads * m.head_dim;
  double visible = 0;
  for (int32_t node = 0; node < nodes; ++node) visible += static_cast<double>(context + tree.depth[node] + 1);
  return {2.0 * 4.0 * kv_values + 2.0 * 4.0 * q_values, 4.0 * m.head_dim * m.n_heads * visible};
}

}  // namespace draftbench
