// The transformer's element-wise steps on the device, one thread per value: the residual
// add, a bias added to every row (qwen2's Q/K/V projections), f32 activations rounded to the f16/bf16 a cuBLAS product of float weights
// multiplies with, and the gathering of chosen rows (the forward's wanted hidden states)
// into a packed array. Shared by the CUDA kernels and the CPU emulation.
#pragma once

#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/quant_layout.h"

namespace draftbench::cuda {

inline constexpr unsigned kElementwiseThreads = 256;

enum class ElementwiseOp : int { kAdd, kToHalf, kToBf16 };

struct ElementwiseArgs {
  const float* x;  // [n]
  void* out;       // kAdd: float [n], out[i] += x[i]; kToHalf / kToBf16: uint16_t [n]
  int64_t n;
  ElementwiseOp op;
};

struct GatherRowsArgs {
  const float* x;       // rows of `width` floats
  const int64_t* rows;  // [n_rows]
  int64_t width, n_rows;
  float* out;  // [n_rows][width]: row r = row rows[r] of x
};

struct RowBiasArgs {
  const float* bias;  // [width]
  float* y;           // [n_rows][width], y[r][i] += bias[i]
  int64_t width, n_rows;
};

inline Launch elementwise_launch(int64_t n) { return {blocks_for(n, kElementwiseThreads), 1, Dim3{kElementwiseThreads}}; }

DB_HOST_DEVICE inline void elementwise_thread(const ElementwiseArgs& a, Dim3 block, Dim3 thread) {
  const int64_t i = static_cast<int64_t>(block.x) * kElementwiseThreads + thread.x;
  if (i >= a.n) return;
  switch (a.op) {
    case ElementwiseOp::kAdd: static_cast<float*>(a.out)[i] += a.x[i]; break;
    case ElementwiseOp::kToHalf: static_cast<uint16_t*>(a.out)[i] = float_to_half(a.x[i]); break;
    case ElementwiseOp::kToBf16: static_cast<uint16_t*>(a.out)[i] = float_to_bf16(a.x[i]); break;
  }
}

// One thread per value gathered, launched as elementwise_launch(n_rows * width).
DB_HOST_DEVICE inline void gather_rows_thread(const GatherRowsArgs& a, Dim3 block, Dim3 thread) {
  const int64_t i = static_cast<int64_t>(block.x) * kElementwiseThreads + thread.x;
  if (i >= a.n_rows * a.width) return;
  a.out[i] = a.x[a.rows[i / a.width] * a.width + i % a.width];
}

// One thread per value of y, launched as elementwise_launch(n_rows * width).
DB_HOST_DEVICE inline void row_bias_thread(const RowBiasArgs& a, Dim3 block, Dim3 thread) {
  const int64_t i = static_cast<int64_t>(block.x) * kElementwiseThreads + thread.x;
  if (i >= a.n_rows * a.width) return;
  a.y[i] += a.bias[i % a.width];
}

}  // namespace draftbench::cuda
