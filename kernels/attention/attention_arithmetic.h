// The per-query arithmetic every CPU attention kernel shares, in the one order their
// bit-identity rests on: the per-head reference, the dense-mask reference and the tiled
// kernel differ only in which keys they visit when, never in how one query's numbers are
// formed. `static`: translation units compiled for different instruction sets
// (tree_attention_tiled_avx2.cpp) each keep their own copy instead of the linker picking
// one for all. The CUDA tree attention (kernels/cuda/tree_attention_block.h) calls dot16 on
// the device.
#pragma once

#include <cmath>
#include <cstdint>
#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "kernels/runtime/host_device.h"

namespace draftbench {

// dot16's end, from its 16 lanes after the whole 16-value steps up to i: the tail values
// onto lanes 0, 1, ..., then the fixed pairwise combine.
DB_HOST_DEVICE static inline float finish_dot16(float* acc, const float* a, const float* b, int i, int n) {
  for (int l = 0; i < n; ++i, ++l) acc[l] += a[i] * b[i];
  for (int w = 8; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
  return acc[0];
}

// q.k: 16 lanes, then a fixed pairwise combine. Vectorisable, same order for every call.
DB_HOST_DEVICE static inline float dot16(const float* a, const float* b, int n) {
  float acc[16] = {};
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) acc[l] += a[i + l] * b[i + l];
  return finish_dot16(acc, a, b, i, n);
}

// dot16 of one query with kKeysAtOnce keys: each key's operations exactly dot16's, the keys'
// chains interleaved, so that one key's dependent adds no longer set the pace.
inline constexpr int kKeysAtOnce = 4;
static inline void dot16_keys(const float* a, const float* const* b, int n, float* out) {
  float acc[kKeysAtOnce][16] = {};
  int i = 0;
#ifdef __AVX2__
  // The compiler kept the generic loop's sixteen-lane accumulators in memory.
  __m256 v[kKeysAtOnce][2];
  for (int k = 0; k < kKeysAtOnce; ++k) v[k][0] = v[k][1] = _mm256_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    const __m256 a0 = _mm256_loadu_ps(a + i), a1 = _mm256_loadu_ps(a + i + 8);
    for (int k = 0; k < kKeysAtOnce; ++k) {
      v[k][0] = _mm256_add_ps(v[k][0], _mm256_mul_ps(a0, _mm256_loadu_ps(b[k] + i)));
      v[k][1] = _mm256_add_ps(v[k][1], _mm256_mul_ps(a1, _mm256_loadu_ps(b[k] + i + 8)));
    }
  }
  for (int k = 0; k < kKeysAtOnce; ++k) {
    _mm256_storeu_ps(acc[k], v[k][0]);
    _mm256_storeu_ps(acc[k] + 8, v[k][1]);
  }
#else
  for (; i + 16 <= n; i += 16)
    for (int k = 0; k < kKeysAtOnce; ++k)
      for (int l = 0; l < 16; ++l) acc[k][l] += a[i + l] * b[k][i + l];
#endif
  for (int k = 0; k < kKeysAtOnce; ++k) out[k] = finish_dot16(acc[k], a, b[k], i, n);
}

// Scores (in visiting order) -> softmax weights, in place: e = exp(s - max) with the sum of
// the e in double, in order, then p = e * (1 / sum) rounded to float.
static inline void softmax_weights(float* scores, int64_t n, float max_score) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    scores[i] = std::exp(scores[i] - max_score);
    sum += scores[i];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i) scores[i] *= inv;
}

// out += p * v over one head's values: each key's contribution added in visiting order.
static inline void add_weighted_row(float* out, float p, const float* v, int head_dim) {
  for (int d = 0; d < head_dim; ++d) out[d] += p * v[d];
}

// add_weighted_row for kKeysAtOnce keys in order, each out[d] kept in a register across them:
// the same adds in the same order, with a quarter of the loads and stores of out.
static inline void add_weighted_rows(float* out, const float* p, const float* const* v, int head_dim) {
  for (int d = 0; d < head_dim; ++d) {
    float o = out[d];
    for (int k = 0; k < kKeysAtOnce; ++k) o += p[k] * v[k][d];
    out[d] = o;
  }
}

}  // namespace draftbench
