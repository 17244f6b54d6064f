// CUDA RMSNorm, one block per row; the body is kernels/cuda/rms_norm_block.h, which the
// CPU emulation runs too. Reference: kernels/ops/rms_norm.h.
#pragma once

#include <cstdint>

namespace draftbench::cuda {

// Device pointers (weight may be nullptr; out may equal x); runs on the default stream.
// Returns the CUDA error code of the launch (0 = success).
int rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps);

}  // namespace draftbench::cuda
