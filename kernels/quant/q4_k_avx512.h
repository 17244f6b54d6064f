// Q4_K weights against Q8_K activation rows, for the AVX-512 VNNI build (include only from
// vec_dot_avx512.cpp): decode's mat-vec, and up to eight activation rows per pass over a
// weight row (prefill, tree verification), each block pair's scales and codes unpacked once
// for all of them. The 256-bit kernel of vec_dot_x86.h spent two multiplies per 32-value
// sub-block (vpmaddubsw, then vpmaddwd by the scale) and per block a scalar scale decode,
// two horizontal sums and scalar float steps: about 25 cycles a block here, compute-bound
// at 40% of one thread's memory bandwidth. This one:
//   - per sub-block j, vpdpbusd gives eight lane sums S_j (|S_j| <= 4 x 15 x 128, so they
//     fit int16); a sub-block pair packs into words and one vpmaddwd applies both 6-bit
//     scales: three multiplies per pair instead of four;
//   - blocks go in pairs: both blocks' scales decode in one register (vector code, not the
//     scalar bit-fiddling), and their horizontal sums, the mins' sums and the float
//     products share instructions.
// The integer sums are exact, and the float steps are the reference's (vec_dot_ref.cpp's
// dot_q4_k), per block in block order: sum += isum x (d x y.d), then sum -= imin x (dmin x
// y.d). Results are bit-identical to dot_rows_ref.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstring>

#include "kernels/quant/blocks.h"

namespace draftbench {
namespace {

// Two blocks' 12-byte scale fields to [sc0..sc7, m0..m7] in each 128-bit half (block s0
// low, s1 high), as k_scale_min decodes them: for j < 4, sc = s[j] & 63 and m = s[j + 4] &
// 63; for j >= 4, the low (sc) or high (m) nibble of s[j + 4] with the top two bits of
// s[j - 4] (sc) or s[j] (m) above it. Reads 16 bytes at each: the block's codes follow.
inline __m256i q4_k_scales_mins_2(const uint8_t* s0, const uint8_t* s1) {
  const auto both = [](__m128i v) { return _mm256_broadcastsi128_si256(v); };
  const __m256i s = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(s1), reinterpret_cast<const __m128i*>(s0));
  // a: the byte holding each output's low bits; b: for j >= 4, the byte holding its top two.
  const __m256i a = _mm256_shuffle_epi8(s, both(_mm_setr_epi8(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11)));
  const __m256i b = _mm256_shuffle_epi8(s, both(_mm_setr_epi8(-1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, 4, 5, 6, 7)));
  const __m256i low6_or_nibble = _mm256_and_si256(a, both(_mm_setr_epi8(63, 63, 63, 63, 15, 15, 15, 15, 63, 63, 63, 63, 0, 0, 0, 0)));
  const __m256i high_nibble = _mm256_and_si256(_mm256_srli_epi16(a, 4), both(_mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 15, 15, 15, 15)));
  const __m256i top2 = _mm256_and_si256(_mm256_srli_epi16(b, 2), _mm256_set1_epi8(0x30));  // (b >> 6) << 4
  return _mm256_or_si256(_mm256_or_si256(low6_or_nibble, high_nibble), top2);
}

// add_pair(i0, i1, both) over a row's nb blocks in pairs (i, i + 1); an odd last block goes
// as the pair (i, i) with both = false, its second half to be ignored.
template <typename AddPair>
inline void for_block_pairs(int64_t nb, AddPair add_pair) {
  int64_t i = 0;
  for (; i + 2 <= nb; i += 2) add_pair(i, i + 1, true);
  if (i < nb) add_pair(i, i, false);
}

// One activation row prepared for the K-quant kernels (here and q6_k_avx512.h): per block pair, the blocks' 32-value sums
// (the mins' multiplicands, Q8_K's bsums added in pairs) and their scales as [d0, d0, d1, d1].
// An odd last block is paired with itself.
struct PreparedQ8K {
  static constexpr int64_t kMaxBlocks = 64;  // rows up to 16384 values; longer take the 256-bit kernel
  alignas(32) int16_t sums32[kMaxBlocks / 2][16];
  alignas(16) float d[kMaxBlocks / 2][4];
  const BlockQ8_K* blocks;
};

inline void prepare_q8_k(const BlockQ8_K* y, int64_t nb, PreparedQ8K& p) {
  p.blocks = y;
  for (int64_t i = 0; i < nb; i += 2) {
    const BlockQ8_K& y1 = y[i + 1 < nb ? i + 1 : i];
    const auto sums = [](const BlockQ8_K& b) {
      return _mm_hadd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.bsums)),
                            _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.bsums + 8)));
    };
    _mm256_store_si256(reinterpret_cast<__m256i*>(p.sums32[i / 2]), _mm256_setr_m128i(sums(y[i]), sums(y1)));
    _mm_store_ps(p.d[i / 2], _mm_setr_ps(y[i].d, y[i].d, y1.d, y1.d));
  }
}

// A weight block pair's scales, decoded once for every activation row: the 6-bit scales as
// words (block 0's at words 0-7, block 1's at 8-15), the mins likewise, and [d0, dmin0, d1,
// dmin1] as floats.
struct Q4KPairScales {
  __m256i sc16, mins16;
  __m128 d;
};

inline Q4KPairScales q4_k_pair_scales(const BlockQ4_K& w0, const BlockQ4_K& w1) {
  static_assert(offsetof(BlockQ4_K, dmin) == offsetof(BlockQ4_K, d) + 2, "d and dmin load as one 32-bit word");
  const __m256i sm = q4_k_scales_mins_2(w0.scales, w1.scales);
  uint32_t dd0, dd1;
  std::memcpy(&dd0, &w0.d, 4);
  std::memcpy(&dd1, &w1.d, 4);
  return {_mm256_unpacklo_epi8(sm, _mm256_setzero_si256()), _mm256_unpackhi_epi8(sm, _mm256_setzero_si256()),
          _mm_cvtph_ps(_mm_insert_epi32(_mm_cvtsi32_si128(static_cast<int>(dd0)), static_cast<int>(dd1), 1))};
}

// lanes[x] = eight lanes of sum_j sc_j x S_j of block b (the pair's block `half`) against
// block i of activation row x; each sub-block's codes and scales are unpacked once for all X.
template <int X>
inline void q4_k_block_lanes(const BlockQ4_K& b, const PreparedQ8K* a, int64_t i, const __m256i sc16, int half, __m256i (&lanes)[X]) {
  const __m256i m4 = _mm256_set1_epi8(0x0F);
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {  // sub-blocks 2c (low nibbles) and 2c + 1 (high nibbles)
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs + 32 * c));
    const __m256i lo = _mm256_and_si256(q, m4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
    // packs puts s_lo's lanes 0-3 then s_hi's 0-3 in the low half (4-7 in the high), so
    // vpmaddwd's word pairs need [sc_2c x 4, sc_2c+1 x 4] in each half.
    const short j0 = static_cast<short>(8 * half + 2 * c), j1 = static_cast<short>(j0 + 1);
    const __m256i scales = _mm256_permutexvar_epi16(_mm256_setr_epi16(j0, j0, j0, j0, j1, j1, j1, j1, j0, j0, j0, j0, j1, j1, j1, j1), sc16);
#pragma GCC unroll 8
    for (int x = 0; x < X; ++x) {
      const int8_t* y = a[x].blocks[i].qs + 64 * c;
      const __m256i s_lo = _mm256_dpbusd_epi32(_mm256_setzero_si256(), lo, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y)));
      const __m256i s_hi = _mm256_dpbusd_epi32(_mm256_setzero_si256(), hi, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y + 32)));
      const __m256i t = _mm256_madd_epi16(_mm256_packs_epi32(s_lo, s_hi), scales);
      lanes[x] = c == 0 ? t : _mm256_add_epi32(lanes[x], t);
    }
  }
}

// A block pair's float products for one activation row, from both blocks' lanes:
// [isum0 x (d0 x y0.d), imin0 x (dmin0 x y0.d), isum1 x (d1 x y1.d), imin1 x (dmin1 x y1.d)].
inline __m128 q4_k_pair_products(__m256i lanes0, __m256i lanes1, const Q4KPairScales& s, const PreparedQ8K& a, int64_t pair) {
  const __m256i lanes = _mm256_hadd_epi32(lanes0, lanes1);
  const __m128i isums = _mm_add_epi32(_mm256_castsi256_si128(lanes), _mm256_extracti128_si256(lanes, 1));  // two partials each
  const __m256i mins = _mm256_madd_epi16(s.mins16, _mm256_load_si256(reinterpret_cast<const __m256i*>(a.sums32[pair])));
  const __m128i imins = _mm_hadd_epi32(_mm256_castsi256_si128(mins), _mm256_extracti128_si256(mins, 1));  // two partials each
  const __m128i ints = _mm_shuffle_epi32(_mm_hadd_epi32(isums, imins), 0xD8);  // isum0, imin0, isum1, imin1
  return _mm_mul_ps(_mm_cvtepi32_ps(ints), _mm_mul_ps(s.d, _mm_load_ps(a.d[pair])));
}

// One weight row against X prepared activation rows (a[x]), into out[x * out_stride]. Each
// row's operations are the same whatever X, so matmul stays batch-invariant.
template <int X>
void q4_k_row_zmm(const BlockQ4_K* w, const PreparedQ8K* a, int64_t nb, float* out, size_t out_stride) {
  float sum[X] = {};
  for_block_pairs(nb, [&](int64_t i0, int64_t i1, bool both) {
    const Q4KPairScales s = q4_k_pair_scales(w[i0], w[i1]);
    __m256i lanes0[X], lanes1[X];
    q4_k_block_lanes<X>(w[i0], a, i0, s.sc16, 0, lanes0);
    q4_k_block_lanes<X>(w[i1], a, i1, s.sc16, 1, lanes1);
    for (int x = 0; x < X; ++x) {
      const __m128 t = q4_k_pair_products(lanes0[x], lanes1[x], s, a[x], i0 / 2);
      sum[x] += _mm_cvtss_f32(t);
      sum[x] -= _mm_cvtss_f32(_mm_movehdup_ps(t));
      if (both) {
        sum[x] += _mm_cvtss_f32(_mm_movehl_ps(t, t));
        sum[x] -= _mm_cvtss_f32(_mm_shuffle_ps(t, t, 3));
      }
    }
  });
  for (int x = 0; x < X; ++x) out[static_cast<size_t>(x) * out_stride] = sum[x];
}

}  // namespace
}  // namespace draftbench
