// Gated MLP activations over [n] values: out[i] = act(gate[i]) * up[i].
//   geglu_tanh: act = GELU, tanh approximation (Gemma's gelu_pytorch_tanh)
//   swiglu:     act = SiLU (Llama)
// Two forms, as every kernel here:
//   *_ref   the textbook formulas with libm's tanh/exp, plain loops: the reference;
//   geglu_tanh / swiglu  what the engine runs: the arithmetic of activation_math.h, in AVX2
//           where the CPU has it; every backend gives the same bits (tested), and the
//           CUDA kernel runs the same scalar code. Within a few ulp of the float64 formula
//           (tests/unit/activations_test.cpp states the bound).
#pragma once

#include <cstdint>

namespace draftbench {

float gelu_tanh_ref(float x);
float silu_ref(float x);
void geglu_tanh_ref(const float* gate, const float* up, float* out, int64_t n);
void swiglu_ref(const float* gate, const float* up, float* out, int64_t n);

void geglu_tanh(const float* gate, const float* up, float* out, int64_t n);
void swiglu(const float* gate, const float* up, float* out, int64_t n);
// SiLU alone, out[i] = activation_math::silu_value(x[i]) (out may be x): the fused SiLU
// layer's epilogue (kernels/matmul/linear_silu.h).
void silu(const float* x, float* out, int64_t n);

// The non-AVX2 build of the above, callable on any CPU (for the identity test and benchmarks).
void geglu_tanh_scalar(const float* gate, const float* up, float* out, int64_t n);
void swiglu_scalar(const float* gate, const float* up, float* out, int64_t n);
void silu_scalar(const float* x, float* out, int64_t n);
// "avx2" or "scalar": which build geglu_tanh and swiglu dispatch to on this CPU.
const char* activations_backend();

// The AVX2 build; call only where cpu_features().avx2 holds.
void geglu_tanh_avx2(const float* gate, const float* up, float* out, int64_t n);
void swiglu_avx2(const float* gate, const float* up, float* out, int64_t n);
void silu_avx2(const float* x, float* out, int64_t n);

}  // namespace draftbench
