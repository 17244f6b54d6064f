// CUDA rotary embedding over a batch of tokens, in place; the body is
// kernels/cuda/rope_thread.h, which the CPU emulation runs too. Reference: kernels/ops/rope.h
// (one token per call there; here token t of x is at x + t * token_stride and has
// position positions[t]).
#pragma once

#include <cstdint>

namespace draftbench::cuda {

// Device pointers; default stream; n_tokens <= 65535 (one grid row per token). Returns
// the CUDA error code of the launch (0 = success; cudaErrorInvalidValue past that limit).
int rope_neox(float* x, int64_t n_tokens, int64_t token_stride, const int64_t* positions, int n_heads, int head_dim, float base);
int rope_norm(float* x, int64_t n_tokens, int64_t token_stride, const int64_t* positions, int n_heads, int head_dim, float base);

}  // namespace draftbench::cuda
