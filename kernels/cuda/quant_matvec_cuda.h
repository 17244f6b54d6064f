// CUDA products of quantised weight rows with one quantised activation row, for Q8_0,
// Q5_0, Q4_K and Q6_K weights; the body is kernels/cuda/quant_matvec_block.h, which the
// CPU emulation runs too. Same arguments and results as dot_rows_ref
// (kernels/quant/vec_dot.h): `xq` is the row as quantize_activation_row(type, ...) writes
// it (Q8_0 blocks for Q8_0/Q5_0, Q8_K for the K-quants), copied to the device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace draftbench::cuda {

// Device pointers; default stream. y[r] = row r of w . xq for r < n_rows; n must be a
// multiple of the type's block size. Returns the CUDA error code of the launch (0 =
// success; cudaErrorInvalidValue for an unsupported type or a bad n).
int quant_matvec(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y);

}  // namespace draftbench::cuda
