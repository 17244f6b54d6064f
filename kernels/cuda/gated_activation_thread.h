// The gated MLP activations' per-thread body (one thread per value), shared by the CUDA
// kernel and the CPU emulation. The expressions are the reference's operation for
// operation (kernels/ops/activations.h), so with contraction off only tanhf/expf can
// differ between the GPU and glibc.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/cuda/host_device.h"

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

DB_HOST_DEVICE inline float gelu_tanh_value(float x) {
  constexpr float kSqrt2OverPi = 0.79788456080286535588f;
  return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * x * (1.0f + 0.044715f * x * x)));
}

DB_HOST_DEVICE inline float silu_value(float x) { return x / (1.0f + expf(-x)); }

// Launch shape: grid (ceil(n / kGatedActivationThreads)), block (kGatedActivationThreads).
DB_HOST_DEVICE inline void gated_activation_thread(const GatedActivationArgs& a, Dim3 block, Dim3 thread) {
  const int64_t i = static_cast<int64_t>(block.x) * kGatedActivationThreads + thread.x;
  if (i >= a.n) return;
  const float g = a.gate[i];
  a.out[i] = (a.function == GateFunction::kGeluTanh ? gelu_tanh_value(g) : silu_value(g)) * a.up[i];
}

}  // namespace draftbench::cuda
