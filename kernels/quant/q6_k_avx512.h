// Q6_K weights against Q8_K activation rows, for the AVX-512 VNNI build (include only from
// vec_dot_avx512.cpp): the mat-vec and up to eight activation rows per
// pass, in q4_k_x86.h's style. The 256-bit kernel (vec_dot_x86.h's row_q6_k_batch) spent
// a vpmaddubsw and a vpmaddwd per 32 values; here one vpdpbusd gives eight lane sums per 32
// codes (0..63, so |sum| <= 4 x 63 x 128 fits int16), two such chunks pack into words and
// one vpmaddwd applies their four 16-value groups' scales: three multiplies per 64 values
// instead of four. Blocks go in pairs for the horizontal sums and the float products.
// The integer sums are exact (the codes' offset of 32 comes off through the activation's
// group sums, as in the reference) and the float step is dot_q6_k's, sum += isum x (d x
// y.d) per block in block order: bit-identical to dot_rows_ref.
#pragma once

#include <immintrin.h>

#include "kernels/quant/blocks.h"
#include "kernels/quant/q4_k_x86.h"
#include "kernels/quant/vec_dot_x86.h"
#include "kernels/quant/weight_prefetch.h"

namespace draftbench {
namespace {

// lanes[x] = eight lanes of block b's sum_g sc_g x (sum of group g's codes x activations),
// against block i of activation row x; each 64 values' codes and scale words are unpacked
// once for all X.
template <int X>
inline void q6_k_block_lanes(const BlockQ6_K& b, const PreparedQ8K* a, int64_t i, __m256i (&lanes)[X]) {
  const __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.scales)));
#pragma GCC unroll 2
  for (int n = 0; n < 2; ++n) {  // 128 values: groups 8n .. 8n + 7
    __m256i q[4];
    q6_k_codes(b, n, q);
#pragma GCC unroll 2
    for (int k = 0; k < 4; k += 2) {
      // packs(s_k, s_k+1): the low half holds group 8n + 2k's lane sums then 8n + 2k + 2's,
      // the high half 8n + 2k + 1's then 8n + 2k + 3's.
      const short g = static_cast<short>(8 * n + 2 * k);
      const __m256i scales =
          _mm256_permutexvar_epi16(_mm256_setr_epi16(g, g, g, g, g + 2, g + 2, g + 2, g + 2, g + 1, g + 1, g + 1, g + 1, g + 3, g + 3, g + 3, g + 3), sc16);
#pragma GCC unroll 8
      for (int x = 0; x < X; ++x) {
        const int8_t* y = a[x].blocks[i].qs + 128 * n + 32 * k;
        const __m256i s0 = _mm256_dpbusd_epi32(_mm256_setzero_si256(), q[k], _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y)));
        const __m256i s1 = _mm256_dpbusd_epi32(_mm256_setzero_si256(), q[k + 1], _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y + 32)));
        const __m256i t = _mm256_madd_epi16(_mm256_packs_epi32(s0, s1), scales);
        lanes[x] = n == 0 && k == 0 ? t : _mm256_add_epi32(lanes[x], t);
      }
    }
  }
  // The codes' offset: 32 x sum_g sc_g x (group g's activation sum).
#pragma GCC unroll 8
  for (int x = 0; x < X; ++x) {
    const __m256i offset = _mm256_madd_epi16(sc16, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a[x].blocks[i].bsums)));
    lanes[x] = _mm256_sub_epi32(lanes[x], _mm256_slli_epi32(offset, 5));
  }
}

// One weight row's nb blocks against X prepared activation rows, into out[x * out_stride],
// continuing the sums there when `carry`; each row's operations are the same whatever X.
template <int X>
void q6_k_row_zmm(const BlockQ6_K* w, const PreparedQ8K* a, int64_t nb, float* out, size_t out_stride, bool carry) {
  float sum[X];
  for (int x = 0; x < X; ++x) sum[x] = carry ? out[static_cast<size_t>(x) * out_stride] : 0.0f;
  for_block_pairs(nb, [&](int64_t i0, int64_t i1, bool both) {
    prefetch_weights(w + i0, (i1 - i0 + 1) * sizeof(BlockQ6_K));
    __m256i lanes0[X], lanes1[X];
    q6_k_block_lanes<X>(w[i0], a, i0, lanes0);
    q6_k_block_lanes<X>(w[i1], a, i1, lanes1);
    const __m128 dw = _mm_cvtph_ps(_mm_insert_epi16(_mm_cvtsi32_si128(w[i0].d), w[i1].d, 1));
    for (int x = 0; x < X; ++x) {
      const __m256i h = _mm256_hadd_epi32(lanes0[x], lanes1[x]);
      const __m128i t = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));  // two partials each
      const __m128i isums = _mm_hadd_epi32(t, t);                                                  // isum0, isum1, ...
      // [d0 x y0.d, d1 x y1.d] from the prepared [y0.d, y0.d, y1.d, y1.d].
      const __m128 yd = _mm_shuffle_ps(_mm_load_ps(a[x].d[i0 / 2]), _mm_load_ps(a[x].d[i0 / 2]), 0x08);
      const __m128 p = _mm_mul_ps(_mm_cvtepi32_ps(isums), _mm_mul_ps(dw, yd));
      sum[x] += _mm_cvtss_f32(p);
      if (both) sum[x] += _mm_cvtss_f32(_mm_movehdup_ps(p));
    }
  });
  for (int x = 0; x < X; ++x) out[static_cast<size_t>(x) * out_stride] = sum[x];
}

// q6_k_row_zmm as rows_prepared_q8_k's row kernel.
inline constexpr auto q6_k_rows_zmm = [](const BlockQ6_K* w, const PreparedQ8K* a, int64_t nb, float* out, size_t out_stride, bool carry, auto X) {
  q6_k_row_zmm<X()>(w, a, nb, out, out_stride, carry);
};

}  // namespace
}  // namespace draftbench
