// CUDA gated MLP activations, out[i] = act(gate[i]) * up[i]; the body is
// kernels/cuda/gated_activation_thread.h, which the CPU emulation runs too.
// Reference: kernels/ops/activations.h.
#pragma once

#include <cstdint>

namespace draftbench::cuda {

// Device pointers; default stream. Returns the CUDA error code of the launch (0 = success).
int geglu_tanh(const float* gate, const float* up, float* out, int64_t n);
int swiglu(const float* gate, const float* up, float* out, int64_t n);

}  // namespace draftbench::cuda
