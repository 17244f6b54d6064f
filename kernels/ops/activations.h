// Gated MLP activations over [n] values: out[i] = act(gate[i]) * up[i].
//   geglu_tanh: act = GELU, tanh approximation (Gemma's gelu_pytorch_tanh)
//   swiglu:     act = SiLU (Llama)
#pragma once

#include <cstdint>

namespace draftbench {

float gelu_tanh(float x);
float silu(float x);
void geglu_tanh(const float* gate, const float* up, float* out, int64_t n);
void swiglu(const float* gate, const float* up, float* out, int64_t n);

}  // namespace draftbench
