// AVX2 build of the gated activations: activation_math.h's operations, eight lanes at a
// time, in the same order with the same roundings (mul and add, never FMA; rint as
// round-to-nearest-even), so each lane's bits equal the scalar code's. The tail goes
// through the same vector code on a padded copy instead of a scalar loop, which keeps even
// that true without relying on it.
#include <immintrin.h>

#include <algorithm>

#include "kernels/ops/activation_math.h"
#include "kernels/ops/exp_avx2.h"
#include "kernels/ops/activations.h"

namespace draftbench {
namespace {

namespace am = activation_math;

__m256 gelu_tanh8(__m256 x) {
  const __m256 cubic = _mm256_add_ps(_mm256_set1_ps(1.0f), _mm256_mul_ps(_mm256_set1_ps(am::kGeluCubic), _mm256_mul_ps(x, x)));
  const __m256 y = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(am::kSqrt2OverPi), x), cubic);
  const __m256 e = exp_clamped8(_mm256_mul_ps(_mm256_set1_ps(-2.0f), y));
  return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

__m256 silu8(__m256 x) {
  const __m256 e = exp_clamped8(_mm256_xor_ps(x, _mm256_set1_ps(-0.0f)));  // -x, as the scalar code
  return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

// act(gate) * up, or act(gate) alone when up is null (out may be gate).
template <__m256 (*Act)(__m256)>
void gated(const float* gate, const float* up, float* out, int64_t n) {
  const auto times_up = [up](__m256 a, const float* u) { return up ? _mm256_mul_ps(a, _mm256_loadu_ps(u)) : a; };
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, times_up(Act(_mm256_loadu_ps(gate + i)), up + i));
  if (i == n) return;
  alignas(32) float g[8] = {}, u[8] = {}, o[8];
  std::copy(gate + i, gate + n, g);
  if (up) std::copy(up + i, up + n, u);
  _mm256_store_ps(o, times_up(Act(_mm256_load_ps(g)), u));
  std::copy(o, o + (n - i), out + i);
}

}  // namespace

void geglu_tanh_avx2(const float* gate, const float* up, float* out, int64_t n) { gated<gelu_tanh8>(gate, up, out, n); }
void swiglu_avx2(const float* gate, const float* up, float* out, int64_t n) { gated<silu8>(gate, up, out, n); }
void silu_avx2(const float* x, float* out, int64_t n) { gated<silu8>(x, nullptr, out, n); }

}  // namespace draftbench
