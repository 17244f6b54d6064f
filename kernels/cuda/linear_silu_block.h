// The fused SiLU layer's block program (reference: kernels/matmul/linear_silu.h), shared by
// the CUDA kernel and the CPU emulation. It is quant_matvec_block.h's tile — four weight
// rows (a warp each) by four activation rows, every weight block read once for all four —
// run once per term, each term's product folded into a running sum in shared memory; the
// last phase applies linear_silu_output. Every product is dot_rows_ref's float order and
// the sum, bias, SiLU and residual are linear_silu_ref's operations, so on a GPU without
// FMA contraction (--fmad=false) each output is bit-identical to the CPU's.
//
// All terms share one weight type (the Dot): a drafter stores its matrices alike.
#pragma once

#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/quant_matvec_block.h"
#include "kernels/matmul/linear_silu_epilogue.h"

namespace draftbench::cuda {

struct LinearSiluBlockArgs {
  QuantMatvecArgs terms[kMaxLinearTerms];  // each term's product (its y unused); all with the same n_rows and n_x
  int n_terms;
  const float* bias;      // [n_rows] or null
  const float* residual;  // [n_x][n_rows] or null; may be y
  float* y;               // [n_x][n_rows]
};

template <class Dot>
struct LinearSiluShared {
  QuantMatvecShared<Dot> product;
  float sum[kQuantRowsPerBlock][kQuantActivationsPerBlock];  // the terms folded so far
};

inline Launch linear_silu_launch(int64_t n_rows, int64_t n_x) { return quant_matvec_launch(n_rows, n_x); }

template <class Dot, class Block>
DB_HOST_DEVICE void linear_silu_block(const Block& block, const LinearSiluBlockArgs& a, LinearSiluShared<Dot>& sh) {
  const int64_t n_rows = a.terms[0].n_rows, n_x = a.terms[0].n_x;
  const int64_t first_row = static_cast<int64_t>(block.index().x) * kQuantRowsPerBlock;
  const int64_t first_x = static_cast<int64_t>(block.index().y) * kQuantActivationsPerBlock;
  for (int k = 0; k < a.n_terms; ++k) {
    quant_matvec_accumulate<Dot>(block, a.terms[k], sh.product);
    // Lanes past the last row or activation fold zeros: harmless, never written out.
    block.each_thread([&](Dim3 t) {
      if (t.x >= kQuantActivationsPerBlock) return;
      const float v = fold_row_lanes<Dot>(sh.product.row_lanes[t.y][t.x]);
      sh.sum[t.y][t.x] = k == 0 ? v : sh.sum[t.y][t.x] + v;
    });
    block.sync();  // the next term's accumulation starts by clearing row_lanes
  }
  block.each_thread([&](Dim3 t) {
    const int64_t row = first_row + t.y, x = first_x + t.x;
    if (t.x < kQuantActivationsPerBlock && row < n_rows && x < n_x)
      a.y[x * n_rows + row] = linear_silu_output(sh.sum[t.y][t.x], a.bias, a.residual, x, row, n_rows);
  });
}

}  // namespace draftbench::cuda
