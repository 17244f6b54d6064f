// The CUDA fused SiLU layer, y = residual + SiLU(sum_k W_k x_k + bias), for the weight
// types of visit_row_dot (F32, F16 with f32 activations; Q8_0, Q5_0, Q4_K, Q6_K); the
// body is kernels/cuda/linear_silu_block.h, which the CPU emulation runs too. Reference:
// linear_silu_ref (kernels/matmul/linear_silu.h), whose results it reproduces bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace draftbench::cuda {

// One term on the device: n_out weight rows of n_in values, w_stride bytes apart, and n_x
// activation rows prepared as quantize_activation_row(type, ...) writes them, copied to the
// device back to back (activation_row_bytes(type, n_in) apart).
struct DeviceLinearTerm {
  const uint8_t* w;
  size_t w_stride;
  const void* xq;
  int64_t n_in;
};

// Device pointers; default stream. All terms have weight type `type`; n_in a multiple of
// its block (16 for the float types). bias [n_out] and residual [n_x][n_out] may be null;
// residual may be y. Returns the CUDA error code of the launch (0 = success;
// cudaErrorInvalidValue for an unsupported type, 0 or more than kMaxLinearTerms terms, a
// bad n_in or a grid too large).
int linear_silu(GgmlType type, const DeviceLinearTerm* terms, int n_terms, int64_t n_out, int64_t n_x, const float* bias, const float* residual, float* y);

}  // namespace draftbench::cuda
