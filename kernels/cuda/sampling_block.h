// The sampling kernels' block programs (one block per row of logits), shared by the CUDA
// kernels and the CPU emulation. References: kernels/sampling/softmax.h.
//   argmax: each thread scans a strided share keeping its first maximum, then a tree keeps
//     the larger value, ties to the smaller index: exactly the first index of the maximum,
//     as the reference (comparisons do not round).
//   softmax weights: every w[i] is softmax_weight(...) itself, so the weights are the
//     reference's bits; the sum of the weights is taken in double in strided partials and a
//     tree, a different order from the reference's eight lanes (within 1e-12 relative).
#pragma once

#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/sampling/softmax_math.h"

namespace draftbench::cuda {

inline constexpr unsigned kSamplingThreads = 256;  // a power of two: the trees halve it

// Both kernels: one block per row.
inline Launch sampling_launch(int64_t n_rows) { return {n_rows, 1, Dim3{kSamplingThreads}}; }

struct ArgmaxArgs {
  const float* x;  // [n_rows][n]
  int64_t n;
  int64_t* out;  // [n_rows]
};

struct ArgmaxShared {
  float value[kSamplingThreads];
  int64_t index[kSamplingThreads];
};

DB_HOST_DEVICE inline void argmax_partial(const ArgmaxArgs& a, int64_t row, unsigned t, ArgmaxShared& sh) {
  const float* x = a.x + row * a.n;
  int64_t best = t < a.n ? static_cast<int64_t>(t) : -1;
  for (int64_t i = t + kSamplingThreads; i < a.n; i += kSamplingThreads)
    if (x[i] > x[best]) best = i;
  sh.value[t] = best >= 0 ? x[best] : 0.0f;
  sh.index[t] = best;
}

DB_HOST_DEVICE inline void argmax_fold(unsigned t, unsigned half, ArgmaxShared& sh) {
  const int64_t j = sh.index[t + half];
  if (j < 0) return;
  if (sh.index[t] < 0 || sh.value[t + half] > sh.value[t] || (sh.value[t + half] == sh.value[t] && j < sh.index[t])) {
    sh.value[t] = sh.value[t + half];
    sh.index[t] = j;
  }
}

template <class Block>
DB_HOST_DEVICE void argmax_block(const Block& block, const ArgmaxArgs& a, ArgmaxShared& sh) {
  const int64_t row = block.index().x;
  block.each_thread([&](Dim3 t) { argmax_partial(a, row, t.x, sh); });
  block.sync();
  fold_tree(block, kSamplingThreads, [&](unsigned t, unsigned half) { argmax_fold(t, half, sh); });
  block.each_thread([&](Dim3 t) {
    if (t.x == 0) a.out[row] = sh.index[0];
  });
}

struct SoftmaxArgs {
  const float* logits;     // [n_rows][n]
  const float* max_logit;  // [n_rows]
  float inv_t;
  int64_t n;
  float* w;     // [n_rows][n]
  double* sum;  // [n_rows]
};

struct SoftmaxShared {
  double partial[kSamplingThreads];
};

DB_HOST_DEVICE inline void softmax_partial(const SoftmaxArgs& a, int64_t row, unsigned t, SoftmaxShared& sh) {
  const float* x = a.logits + row * a.n;
  float* w = a.w + row * a.n;
  double sum = 0.0;
  for (int64_t i = t; i < a.n; i += kSamplingThreads) {
    w[i] = softmax_weight(x[i], a.max_logit[row], a.inv_t);
    sum += w[i];
  }
  sh.partial[t] = sum;
}

template <class Block>
DB_HOST_DEVICE void softmax_block(const Block& block, const SoftmaxArgs& a, SoftmaxShared& sh) {
  const int64_t row = block.index().x;
  block.each_thread([&](Dim3 t) { softmax_partial(a, row, t.x, sh); });
  block.sync();
  fold_tree(block, kSamplingThreads, [&](unsigned t, unsigned half) { sh.partial[t] += sh.partial[t + half]; });
  block.each_thread([&](Dim3 t) {
    if (t.x == 0) a.sum[row] = sh.partial[0];
  });
}

}  // namespace draftbench::cuda
