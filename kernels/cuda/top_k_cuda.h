// CUDA top-k over rows of values (beam search's top-W over W x V, sampling's top-k filter);
// the body is kernels/cuda/top_k_block.h, which the CPU emulation runs too. Reference:
// top_k_ref (kernels/sampling/top_k.h), whose ids it returns exactly, in its order.
#pragma once

#include <cstdint>

namespace draftbench::cuda {

// Device pointers; default stream. ids[r][i] / values[r][i] = row r's i-th best, i < k,
// ids -1 past min(k, n). The workspace holds top_k_workspace(n_rows, n, k) entries of
// each (null when that is 0). Returns the CUDA error code (cudaErrorInvalidValue unless
// top_k_supports(n, k)).
int top_k(const float* w, int64_t n_rows, int64_t n, int k, float* workspace_values, int32_t* workspace_ids, float* values, int32_t* ids);

}  // namespace draftbench::cuda
