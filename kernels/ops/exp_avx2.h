// activation_math.h's exp_clamped, eight lanes at a time with AVX2: the same operations in
// the same order (mul and add, never FMA; rint as round-to-nearest-even), so each lane's
// bits equal the scalar function's. Include only from translation units built with -mavx2.
#pragma once

#include <immintrin.h>

#include <initializer_list>

#include "kernels/ops/activation_math.h"

namespace draftbench {

inline __m256 exp_clamped8(__m256 t) {
  namespace am = activation_math;
  // max(lo, t) and min(hi, t) return t when t is NaN (the second operand), as the scalar
  // code's comparisons do; a NaN lane stays NaN through the arithmetic below.
  t = _mm256_min_ps(_mm256_set1_ps(am::kExpLimit), _mm256_max_ps(_mm256_set1_ps(-am::kExpLimit), t));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(am::kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 r = _mm256_sub_ps(_mm256_sub_ps(t, _mm256_mul_ps(n, _mm256_set1_ps(am::kLn2Hi))), _mm256_mul_ps(n, _mm256_set1_ps(am::kLn2Lo)));
  __m256 p = _mm256_set1_ps(am::kExpP0);
  for (const float c : {am::kExpP1, am::kExpP2, am::kExpP3, am::kExpP4, am::kExpP5}) p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(c));
  const __m256 e = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p, _mm256_mul_ps(r, r)), r), _mm256_set1_ps(1.0f));
  const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(e, _mm256_castsi256_ps(bits));
}

}  // namespace draftbench
