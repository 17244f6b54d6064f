#include "kernels/ops/activations.h"

#include <cmath>

#include "kernels/ops/activation_math.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench {

float gelu_tanh_ref(float x) {
  constexpr float kSqrt2OverPi = 0.79788456080286535588f;
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * (1.0f + 0.044715f * x * x)));
}

float silu_ref(float x) { return x / (1.0f + std::exp(-x)); }

void geglu_tanh_ref(const float* gate, const float* up, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = gelu_tanh_ref(gate[i]) * up[i];
}

void swiglu_ref(const float* gate, const float* up, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = silu_ref(gate[i]) * up[i];
}

void geglu_tanh_scalar(const float* gate, const float* up, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = activation_math::gelu_tanh_value(gate[i]) * up[i];
}

void swiglu_scalar(const float* gate, const float* up, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = activation_math::silu_value(gate[i]) * up[i];
}

void silu_scalar(const float* x, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = activation_math::silu_value(x[i]);
}

void geglu_tanh(const float* gate, const float* up, float* out, int64_t n) {
  if (cpu_features().avx2) geglu_tanh_avx2(gate, up, out, n);
  else geglu_tanh_scalar(gate, up, out, n);
}

void swiglu(const float* gate, const float* up, float* out, int64_t n) {
  if (cpu_features().avx2) swiglu_avx2(gate, up, out, n);
  else swiglu_scalar(gate, up, out, n);
}

void silu(const float* x, float* out, int64_t n) {
  if (cpu_features().avx2) silu_avx2(x, out, n);
  else silu_scalar(x, out, n);
}

const char* activations_backend() { return cpu_features().avx2 ? "avx2" : "scalar"; }

}  // namespace draftbench
