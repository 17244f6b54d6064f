// What the AVX-512 product files share (include only from files built with -mavx512f):
// the fold of sixteen float lanes, and how many activation rows their batch kernels take.
#pragma once

#include <immintrin.h>

namespace draftbench {

// Sixteen lanes folded as the reference folds them: halves added pairwise, 8, 4, 2, 1 —
// dot_float's combination, and block_lanes.h's fold of set 0 (low half) and set 1 (high half).
inline float fold_zmm_lanes(__m512 lanes) {
  const __m256 v = _mm256_add_ps(_mm512_castps512_ps256(lanes), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(lanes), 1)));
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));  // l + (l + 4)
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));                                         // (0 + 2), (1 + 3)
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

// Activation rows per pass over a weight row in the batch kernels.
inline constexpr int kZmmBatchRows = 8;

}  // namespace draftbench
