// CUDA argmax and softmax weights over rows of logits, one block per row; the bodies are
// kernels/cuda/sampling_block.h, which the CPU emulation runs too. Reference:
// kernels/sampling/softmax.h. Device pointers; default stream; each returns the launch's
// CUDA error code (0 = success).
#pragma once

#include <cstdint>

namespace draftbench::cuda {

// out[r] = the first index of the largest value of row r.
int argmax(const float* x, int64_t n_rows, int64_t n, int64_t* out);

// w[r][i] = softmax_weight(logits[r][i], max_logit[r], inv_t); sum[r] = their sum (double).
int softmax_exp(const float* logits, const float* max_logit, int64_t n_rows, int64_t n, float inv_t, float* w, double* sum);

}  // namespace draftbench::cuda
