// AVX2 argmax and softmax weights, bit-identical to softmax.cpp's references.
#include <immintrin.h>

#include "kernels/ops/exp_avx2.h"
#include "kernels/sampling/softmax.h"
#include "kernels/sampling/softmax_math.h"

namespace draftbench {

// Eight running maxima with the first index of each (lane = index mod 8, a strict > keeps
// the earliest), then the best lane, ties to the smaller index: the first index of the max.
int64_t argmax_avx2(const float* x, int64_t n) {
  if (n < 2 * kDoubleLanes) return argmax_ref(x, n);
  __m256 best = _mm256_loadu_ps(x);
  __m256i best_i = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i idx = best_i;
  const __m256i step = _mm256_set1_epi32(kDoubleLanes);
  int64_t i = kDoubleLanes;
  for (; i + kDoubleLanes <= n; i += kDoubleLanes) {
    idx = _mm256_add_epi32(idx, step);
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 greater = _mm256_cmp_ps(v, best, _CMP_GT_OQ);
    best = _mm256_blendv_ps(best, v, greater);
    best_i = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(best_i), _mm256_castsi256_ps(idx), greater));
  }
  alignas(32) float v[kDoubleLanes];
  alignas(32) int32_t at[kDoubleLanes];
  _mm256_store_ps(v, best);
  _mm256_store_si256(reinterpret_cast<__m256i*>(at), best_i);
  int64_t result = at[0];
  float top = v[0];
  for (int l = 1; l < kDoubleLanes; ++l)
    if (v[l] > top || (v[l] == top && at[l] < result)) top = v[l], result = at[l];
  for (; i < n; ++i)  // the tail comes after every lane's indices: only a strictly larger value wins
    if (x[i] > top) top = x[i], result = i;
  return result;
}

double softmax_exp_avx2(const float* logits, int64_t n, float max_logit, float inv_t, float* w) {
  const __m256 max8 = _mm256_set1_ps(max_logit), inv_t8 = _mm256_set1_ps(inv_t);
  const __m256 floor8 = _mm256_set1_ps(-activation_math::kExpLimit);
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();  // lanes 0-3 and 4-7
  int64_t i = 0;
  for (; i + kDoubleLanes <= n; i += kDoubleLanes) {
    const __m256 t = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(logits + i), max8), inv_t8);
    const __m256 e = _mm256_andnot_ps(_mm256_cmp_ps(t, floor8, _CMP_LT_OQ), exp_clamped8(t));
    _mm256_storeu_ps(w + i, e);
    lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
    hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
  }
  alignas(32) double lane[kDoubleLanes];
  _mm256_store_pd(lane, lo);
  _mm256_store_pd(lane + 4, hi);
  for (int l = 0; i < n; ++i, ++l) {  // i is a multiple of 8 here, so lane l is i mod 8
    w[i] = softmax_weight(logits[i], max_logit, inv_t);
    lane[l] += w[i];
  }
  return fold_double_lanes(lane);
}

}  // namespace draftbench
