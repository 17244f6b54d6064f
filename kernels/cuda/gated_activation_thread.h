// The gated MLP activations' per-thread body (one thread per value), shared by the CUDA
// kernel and the CPU emulation. The per-value arithmetic is the CPU kernels' own
// (kernels/ops/activation_math.h: plain multiplies, adds, one division and rintf, all
// correctly rounded on both sides), so with --fmad=false the GPU gives the CPU's bits.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/ops/activation_math.h"

namespace draftbench::cuda {

inline constexpr unsigned kGatedActivationThreads = 256;

enum class GateFunction : int { kGeluTanh, kSilu };

struct GatedActivationArgs {
  const float* gate;  // [n]
  const float* up;    // [n]
  float* out;         // [n]; may equal gate or up
  int64_t n;
  GateFunction function;
};

inline Launch gated_activation_launch(int64_t n) { return {blocks_for(n, kGatedActivationThreads), 1, Dim3{kGatedActivationThreads}}; }

DB_HOST_DEVICE inline void gated_activation_thread(const GatedActivationArgs& a, Dim3 block, Dim3 thread) {
  const int64_t i = static_cast<int64_t>(block.x) * kGatedActivationThreads + thread.x;
  if (i >= a.n) return;
  const float g = a.gate[i];
  a.out[i] = (a.function == GateFunction::kGeluTanh ? activation_math::gelu_tanh_value(g) : activation_math::silu_value(g)) * a.up[i];
}

}  // namespace draftbench::cuda
