// RMSNorm's block program (one block per row), shared by the CUDA kernel and the CPU
// emulation. It keeps the reference's contract (kernels/ops/rms_norm.h): the sum of
// squares is taken in double and the scale is 1 / sqrt(float(sum / n) + eps) with IEEE
// division and square root, so only the order of the double additions differs (strided
// partial sums, then a fixed tree), which after the rounding to float almost never shows.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace draftbench::cuda {

inline constexpr unsigned kRmsNormThreads = 256;  // a power of two: the tree halves it

struct RmsNormArgs {
  const float* x;       // [n_rows][n]
  const float* weight;  // [n] or nullptr
  float* out;           // [n_rows][n]; may equal x
  int64_t n;
  float eps;
};

struct RmsNormShared {
  double partial[kRmsNormThreads];
};

// Thread t's strided share of the row's sum of squares.
DB_HOST_DEVICE inline void rms_norm_partial_sum(const RmsNormArgs& a, int64_t row, unsigned t, RmsNormShared& sh) {
  const float* x = a.x + row * a.n;
  double sum = 0.0;
  for (int64_t i = t; i < a.n; i += kRmsNormThreads) sum += static_cast<double>(x[i]) * x[i];
  sh.partial[t] = sum;
}

DB_HOST_DEVICE inline void rms_norm_scale_row(const RmsNormArgs& a, int64_t row, unsigned t, const RmsNormShared& sh) {
  const float scale = 1.0f / sqrtf(static_cast<float>(sh.partial[0] / static_cast<double>(a.n)) + a.eps);
  const float* x = a.x + row * a.n;
  float* y = a.out + row * a.n;
  for (int64_t i = t; i < a.n; i += kRmsNormThreads) y[i] = a.weight ? x[i] * scale * a.weight[i] : x[i] * scale;
}

inline Launch rms_norm_launch(int64_t n_rows) { return {n_rows, 1, Dim3{kRmsNormThreads}}; }

template <class Block>
DB_HOST_DEVICE void rms_norm_block(const Block& block, const RmsNormArgs& a, RmsNormShared& sh) {
  const int64_t row = block.index().x;
  block.each_thread([&](Dim3 t) { rms_norm_partial_sum(a, row, t.x, sh); });
  block.sync();
  fold_tree(block, kRmsNormThreads, [&](unsigned t, unsigned half) { sh.partial[t] += sh.partial[t + half]; });
  block.each_thread([&](Dim3 t) { rms_norm_scale_row(a, row, t.x, sh); });
}

}  // namespace draftbench::cuda
