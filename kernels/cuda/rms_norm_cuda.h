// CUDA RMSNorm (one block per row). The per-row body is a __host__ __device__ function,
// so the CPU can run the same index logic (see kernels/ops/rms_norm.h for the reference).
#pragma once

#include <cstdint>

namespace draftbench::cuda {

// Device pointers; returns the CUDA error code (0 = success).
int rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps);

// True when a CUDA device is present and usable.
bool device_available();

}  // namespace draftbench::cuda
