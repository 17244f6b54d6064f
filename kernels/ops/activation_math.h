// The gated activations' per-value arithmetic, written once for the CPU kernels, the CUDA
// kernel and its CPU emulation (DB_HOST_DEVICE), with an AVX2 mirror in activations_avx2.cpp
// that performs the same operations lane by lane. So every build and backend gives the same
// bits, and a row's result never depends on where in a batch (or in a vector) it sits.
//
// GELU (tanh form) is evaluated as x * sigmoid(2y) = x / (1 + exp(-2y)), y = sqrt(2/pi) *
// x * (1 + 0.044715 x^2): the identity 0.5 (1 + tanh(y)) = sigmoid(2y) turns the tanh into
// one exp, and for negative x it avoids the cancellation in 1 + tanh(y) that costs the
// textbook formula its relative accuracy. exp is Cody-Waite reduction plus a degree-6
// polynomial (Cephes' coefficients) with plain multiplies and adds, not FMA, so a scalar
// build without FMA, the AVX2 build and nvcc --fmad=false all round identically.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/runtime/host_device.h"

namespace draftbench::activation_math {

inline constexpr float kSqrt2OverPi = 0.79788456080286535588f;
inline constexpr float kGeluCubic = 0.044715f;
// exp's argument is clamped so that 2^n stays a normal float: |n| <= 126.
inline constexpr float kExpLimit = 87.0f;
inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693359375f;  // 9 significant bits: n * kLn2Hi is exact
inline constexpr float kLn2Lo = -2.12194440e-4f;
// The polynomial's coefficients, highest degree first (scalars, not an array: an array at
// namespace scope is not visible to device code).
inline constexpr float kExpP0 = 1.9875691500e-4f, kExpP1 = 1.3981999507e-3f, kExpP2 = 8.3334519073e-3f, kExpP3 = 4.1665795894e-2f, kExpP4 = 1.6666665459e-1f,
                       kExpP5 = 5.0000001201e-1f;

DB_HOST_DEVICE inline float pow2_int(int n) { return bit_cast_of<float>((n + 127) << 23); }  // 2^n for -126 <= n <= 127

// exp(t) for finite t clamped to [-87, 87]; NaN stays NaN. Relative error about 2 ulp.
DB_HOST_DEVICE inline float exp_clamped(float t) {
  if (!(t == t)) return t;
  t = t < -kExpLimit ? -kExpLimit : (t > kExpLimit ? kExpLimit : t);
  const float n = rintf(t * kLog2e);
  const float r = (t - n * kLn2Hi) - n * kLn2Lo;
  const float p = ((((kExpP0 * r + kExpP1) * r + kExpP2) * r + kExpP3) * r + kExpP4) * r + kExpP5;
  const float e = (p * (r * r) + r) + 1.0f;
  return e * pow2_int(static_cast<int>(n));
}

DB_HOST_DEVICE inline float gelu_tanh_value(float x) {
  const float y = (kSqrt2OverPi * x) * (1.0f + kGeluCubic * (x * x));
  return x / (1.0f + exp_clamped(-2.0f * y));
}

DB_HOST_DEVICE inline float silu_value(float x) { return x / (1.0f + exp_clamped(-x)); }

}  // namespace draftbench::activation_math
