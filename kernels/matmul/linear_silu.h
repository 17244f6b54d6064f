// A SiLU layer over one or more linear terms, fused into one pass over the weights:
//
//   y[r][i] = residual[r][i] + SiLU( dot(W_0 row i, x_0 row r) + dot(W_1 row i, x_1 row r)
//                                    + ... + bias[i] )
//
// (residual and bias optional). Two shapes of the drafters are this layer:
//   - ReDrafter's recurrent step, s' = SiLU(W e + U s + b): two terms, no residual;
//   - the draft heads' residual blocks (ReDrafter, Medusa), x + SiLU(W x + b): one term,
//     residual x.
//
// The arithmetic, which the reference spells out and every form reproduces bit for bit:
// each dot product is dot_rows' (kernels/quant/vec_dot.h, activations quantised per row by
// quantize_activation_row), the terms are added in order, then the bias, then
// activation_math::silu_value (the polynomial exp the gated activations use, so the CUDA
// form gives the same bits), then the residual. Each output depends only on its own
// activation rows: batch-invariant.
//
//   linear_silu_ref  plain loops over dot_row_ref;
//   linear_silu      quantises each term's activation rows once, then splits the output rows
//                    into tiles over the pool; per tile every term's product runs through
//                    dot_rows_batch (each weight block unpacked once for several activation
//                    rows) and the bias, SiLU and residual are applied while the tile is in
//                    cache: one parallel loop instead of a matmul per term, no
//                    [n][n_out] intermediates.
//
// Shapes: every term's W has the same n_out; x_k is [n][W_k.n_in]; bias [n_out];
// residual and y [n][n_out]. y must not overlap any x_k (the products read whole rows of x
// while other tiles are written); residual may be y itself, or one of the x_k.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/matmul/linear_silu_epilogue.h"
#include "kernels/matmul/matmul.h"
#include "kernels/runtime/thread_pool.h"

namespace draftbench {

struct LinearTerm {
  WeightMatrix w;
  const float* x = nullptr;  // [n][w.n_in]
};

struct LinearSiluArgs {
  std::span<const LinearTerm> terms;  // 1 .. kMaxLinearTerms, all with the same n_out
  const float* bias = nullptr;        // [n_out] or null
  const float* residual = nullptr;    // [n][n_out] or null
  int64_t n = 0;                      // activation rows
  float* y = nullptr;                 // [n][n_out]
  int64_t n_out() const { return terms.empty() ? 0 : terms[0].w.n_out; }
};

void linear_silu_ref(const LinearSiluArgs& a);

// Bytes of scratch linear_silu needs for these terms and rows on a pool of n_threads.
size_t linear_silu_scratch_bytes(std::span<const LinearTerm> terms, int64_t n, int n_threads);

void linear_silu(const LinearSiluArgs& a, ThreadPool& pool, std::span<uint8_t> scratch);

}  // namespace draftbench
