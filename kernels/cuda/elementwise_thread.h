// The transformer's element-wise steps on the device, one thread per value: the residual
// add, and f32 activations rounded to the f16/bf16 a cuBLAS product of float weights
// multiplies with. Shared by the CUDA kernels and the CPU emulation.
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

}  // namespace draftbench::cuda
