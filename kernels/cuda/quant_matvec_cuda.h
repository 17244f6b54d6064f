// CUDA products of quantised weight rows with quantised activation rows, for Q8_0, Q5_0,
// Q4_K and Q6_K weights; the body is kernels/cuda/quant_matvec_block.h, which the CPU
// emulation runs too. Per activation row, the same arguments and results as dot_rows_ref
// (kernels/quant/vec_dot.h): each row of `xq` as quantize_activation_row(type, ...) writes
// it (Q8_0 blocks for Q8_0/Q5_0, Q8_K for the K-quants), copied to the device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace draftbench::cuda {

// Device pointers; default stream. y[x * n_rows + r] = row r of w . activation row x, for
// r < n_rows and x < n_x, the activation rows activation_row_bytes(type, n) apart in xq;
// n must be a multiple of the type's block size. Returns the CUDA error code of the launch
// (0 = success; cudaErrorInvalidValue for an unsupported type, a bad n or a grid too large).
int quant_matvec(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n_x, int64_t n, float* y);

}  // namespace draftbench::cuda
