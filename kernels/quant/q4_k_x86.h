// Q4_K weights against Q8_K activation rows, for the x86 builds (each including translation
// unit gets the block lanes of its ISA): the mat-vec and several activation rows per pass
// over a weight row (prefill, tree verification: up to 8 in the AVX-512 build, 4 in AVX2),
// each weight block pair's scales and codes unpacked once for all of them, so that the
// per-block work (scale decode, horizontal sums, float steps) does not make the mat-vec
// compute-bound:
//   - blocks go in pairs: both blocks' scales decode in one register (vector code), and
//     their horizontal sums, the mins' sums (prepared once per activation row) and the
//     float products share instructions;
//   - AVX-512 VNNI: per sub-block j, vpdpbusd gives eight lane sums S_j (|S_j| <= 4 x 15 x
//     128, so they fit int16); a sub-block pair packs into words and one vpmaddwd applies
//     both 6-bit scales: three multiplies per pair instead of four;
//   - AVX2: vpmaddubsw and vpmaddwd by the broadcast scale per sub-block;
//   - Q4_Kt (q4_k_transpose.h, what the engine runs on AVX2): the codes transposed so that
//     every 32-byte plane holds four values of each sub-block; the activation's codes are
//     transposed alike when a row is prepared. The planes' vpmaddubsw sums then add in 16
//     bits and one vpmaddwd scales all eight sub-blocks: 9 multiplies a block instead of
//     16, and no scale broadcasts, where the Q4_K kernel is limited by its instruction
//     count (kernels/bench/README.md, "Why the kernels look as they do").
// The integer sums are exact, and the float steps are the reference's (vec_dot_ref.cpp's
// dot_q4_k), per block in block order: sum += isum x (d x y.d), then sum -= imin x (dmin x
// y.d). Results are bit-identical to dot_rows_ref.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "kernels/quant/blocks.h"
#include "kernels/quant/row_count.h"
#include "kernels/quant/weight_prefetch.h"
#include "kernels/quant/word_broadcast.h"

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

// One activation row prepared for the K-quant kernels (here and q6_k_avx512.h): per block
// pair, the blocks' 32-value sums (Q4_K's mins' multiplicands, Q8_K's bsums added in pairs)
// and their scales as [d0, d0, d1, d1].
// An odd last block is paired with itself.
struct PreparedQ8K {
  static constexpr int64_t kMaxBlocks = 64;  // longer rows go in chunks of this many blocks (rows_prepared_q8_k)
  alignas(32) int16_t sums32[kMaxBlocks / 2][16];
  alignas(16) float d[kMaxBlocks / 2][4];
  const BlockQ8_K* blocks;
};

inline void prepare_q8_k(const BlockQ8_K* y, int64_t nb, PreparedQ8K& p) {
  p.blocks = y;
  for (int64_t i = 0; i < nb; i += 2) {
    const BlockQ8_K& y1 = y[i + 1 < nb ? i + 1 : i];
    const auto sums = [](const BlockQ8_K& b) {
      return _mm_hadd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.bsums)), _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.bsums + 8)));
    };
    _mm256_store_si256(reinterpret_cast<__m256i*>(p.sums32[i / 2]), _mm256_setr_m128i(sums(y[i]), sums(y1)));
    _mm_store_ps(p.d[i / 2], _mm_setr_ps(y[i].d, y[i].d, y1.d, y1.d));
  }
}

// An activation row prepared for Q4_Kt weights (q4_k_transpose.h): PreparedQ8K and each
// block's codes with their four-byte groups transposed as the weights' are, group r of
// sub-block d at 4 (8r + d).
struct PreparedQ8Kt : PreparedQ8K {
  alignas(32) int8_t qs[kMaxBlocks][QK_K];
};

// The 8 x 8 transposition of a block's four-byte groups, as q4_k_transpose.h's of the
// weights: row d (sub-block d) of the input becomes column d.
inline void transpose_code_groups(const int8_t* in, int8_t* out) {
  __m256i r[8], t[8];
  for (int d = 0; d < 8; ++d) r[d] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 32 * d));
  for (int k = 0; k < 4; ++k) {
    t[2 * k] = _mm256_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm256_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
  }
  for (int k = 0; k < 2; ++k) {  // r[4k + m]: rows 4k .. 4k + 3 of columns m (low half) and m + 4 (high half)
    r[4 * k + 0] = _mm256_unpacklo_epi64(t[4 * k], t[4 * k + 2]);
    r[4 * k + 1] = _mm256_unpackhi_epi64(t[4 * k], t[4 * k + 2]);
    r[4 * k + 2] = _mm256_unpacklo_epi64(t[4 * k + 1], t[4 * k + 3]);
    r[4 * k + 3] = _mm256_unpackhi_epi64(t[4 * k + 1], t[4 * k + 3]);
  }
  for (int m = 0; m < 4; ++m) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(out + 32 * m), _mm256_permute2x128_si256(r[m], r[4 + m], 0x20));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out + 32 * (m + 4)), _mm256_permute2x128_si256(r[m], r[4 + m], 0x31));
  }
}

inline void prepare_q8_k(const BlockQ8_K* y, int64_t nb, PreparedQ8Kt& p) {
  prepare_q8_k(y, nb, static_cast<PreparedQ8K&>(p));
  for (int64_t i = 0; i < nb; ++i) transpose_code_groups(y[i].qs, p.qs[i]);
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
#if !(defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512VL__))
  // This block's eight scale words in both halves, for broadcast_word.
  const __m256i sc = half == 0 ? _mm256_permute4x64_epi64(sc16, 0x44) : _mm256_permute4x64_epi64(sc16, 0xEE);
#endif
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {  // sub-blocks 2c (low nibbles) and 2c + 1 (high nibbles)
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs + 32 * c));
    const __m256i lo = _mm256_and_si256(q, m4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512VL__)
    // packs puts s_lo's lanes 0-3 then s_hi's 0-3 in the low half (4-7 in the high), so
    // vpmaddwd's word pairs need [sc_2c x 4, sc_2c+1 x 4] in each half.
    const short j0 = static_cast<short>(8 * half + 2 * c), j1 = static_cast<short>(j0 + 1);
    const __m256i scales = _mm256_permutexvar_epi16(_mm256_setr_epi16(j0, j0, j0, j0, j1, j1, j1, j1, j0, j0, j0, j0, j1, j1, j1, j1), sc16);
#else
    const __m256i sc_lo = broadcast_word(sc, 2 * c), sc_hi = broadcast_word(sc, 2 * c + 1);
#endif
#pragma GCC unroll 8
    for (int x = 0; x < X; ++x) {
      const int8_t* y = a[x].blocks[i].qs + 64 * c;
      const __m256i y_lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y));
      const __m256i y_hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y + 32));
#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512VL__)
      const __m256i s_lo = _mm256_dpbusd_epi32(_mm256_setzero_si256(), lo, y_lo);
      const __m256i s_hi = _mm256_dpbusd_epi32(_mm256_setzero_si256(), hi, y_hi);
      const __m256i t = _mm256_madd_epi16(_mm256_packs_epi32(s_lo, s_hi), scales);
#else
      const __m256i t = _mm256_add_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(lo, y_lo), sc_lo), _mm256_madd_epi16(_mm256_maddubs_epi16(hi, y_hi), sc_hi));
#endif
      lanes[x] = c == 0 ? t : _mm256_add_epi32(lanes[x], t);
    }
  }
}

// The same lanes from a Q4_Kt block (the pair's block `half`): each code plane holds four
// values of every sub-block, so the eight planes' vpmaddubsw word sums add up in 16 bits
// (|sum| <= 8 x 2 x 15 x 128 = 30720), and one vpmaddwd by the words [sc_0, sc_0, sc_1,
// sc_1, ..., sc_7, sc_7] scales them: lane d is sc_d x the sum of sub-block d's products.
// Both builds run this form.
template <int X>
inline void q4_kt_block_lanes(const BlockQ4_K& b, const PreparedQ8Kt* a, int64_t i, const __m256i sc16, int half, __m256i (&lanes)[X]) {
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  const __m256i sc03 = _mm256_unpacklo_epi16(sc16, sc16), sc47 = _mm256_unpackhi_epi16(sc16, sc16);  // per half: one block's
  const __m256i scales = half == 0 ? _mm256_permute2x128_si256(sc03, sc47, 0x20) : _mm256_permute2x128_si256(sc03, sc47, 0x31);
  __m256i sums[X];
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {  // planes 2c (low nibbles) and 2c + 1 (high nibbles)
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs + 32 * c));
    const __m256i lo = _mm256_and_si256(q, m4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
#pragma GCC unroll 8
    for (int x = 0; x < X; ++x) {
      const int8_t* y = a[x].qs[i] + 64 * c;
      const __m256i p = _mm256_add_epi16(_mm256_maddubs_epi16(lo, _mm256_load_si256(reinterpret_cast<const __m256i*>(y))),
                                         _mm256_maddubs_epi16(hi, _mm256_load_si256(reinterpret_cast<const __m256i*>(y + 32))));
      sums[x] = c == 0 ? p : _mm256_add_epi16(sums[x], p);
    }
  }
  for (int x = 0; x < X; ++x) lanes[x] = _mm256_madd_epi16(sums[x], scales);
}

// A block pair's float products for one activation row, from both blocks' lanes:
// [isum0 x (d0 x y0.d), imin0 x (dmin0 x y0.d), isum1 x (d1 x y1.d), imin1 x (dmin1 x y1.d)].
inline __m128 q4_k_pair_products(__m256i lanes0, __m256i lanes1, const Q4KPairScales& s, const PreparedQ8K& a, int64_t pair) {
  const __m256i lanes = _mm256_hadd_epi32(lanes0, lanes1);
  const __m128i isums = _mm_add_epi32(_mm256_castsi256_si128(lanes), _mm256_extracti128_si256(lanes, 1));  // two partials each
  const __m256i mins = _mm256_madd_epi16(s.mins16, _mm256_load_si256(reinterpret_cast<const __m256i*>(a.sums32[pair])));
  const __m128i imins = _mm_hadd_epi32(_mm256_castsi256_si128(mins), _mm256_extracti128_si256(mins, 1));  // two partials each
  const __m128i ints = _mm_shuffle_epi32(_mm_hadd_epi32(isums, imins), 0xD8);                             // isum0, imin0, isum1, imin1
  return _mm_mul_ps(_mm_cvtepi32_ps(ints), _mm_mul_ps(s.d, _mm_load_ps(a.d[pair])));
}

// One weight row's nb blocks against X prepared activation rows (a[x]), into out[x *
// out_stride], continuing the sums already there when `carry` (a row's later chunks). Each
// row's operations are the same whatever X, so matmul stays batch-invariant.
template <int X, typename Prepared>
void q4_k_row(const BlockQ4_K* w, const Prepared* a, int64_t nb, float* out, size_t out_stride, bool carry) {
  const auto block_lanes = [&](int64_t i, const __m256i sc16, int half, __m256i(&lanes)[X]) {
    if constexpr (std::is_same_v<Prepared, PreparedQ8Kt>) q4_kt_block_lanes<X>(w[i], a, i, sc16, half, lanes);
    else q4_k_block_lanes<X>(w[i], a, i, sc16, half, lanes);
  };
  float sum[X];
  for (int x = 0; x < X; ++x) sum[x] = carry ? out[static_cast<size_t>(x) * out_stride] : 0.0f;
  for_block_pairs(nb, [&](int64_t i0, int64_t i1, bool both) {
    prefetch_weights(w + i0, (i1 - i0 + 1) * sizeof(BlockQ4_K));
    const Q4KPairScales s = q4_k_pair_scales(w[i0], w[i1]);
    __m256i lanes0[X], lanes1[X];
    block_lanes(i0, s.sc16, 0, lanes0);
    block_lanes(i1, s.sc16, 1, lanes1);
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

// q4_k_row as rows_prepared_q8_k's row kernel, for Q4_K (PreparedQ8K) and Q4_Kt
// (PreparedQ8Kt) weights; X a std::integral_constant.
inline constexpr auto q4_k_rows = [](const BlockQ4_K* w, const auto* a, int64_t nb, float* out, size_t out_stride, bool carry, auto X) {
  q4_k_row<X()>(w, a, nb, out, out_stride, carry);
};

// Weight rows row_at(0 .. n_rows) of a K-quant type against n_x activation rows xq_stride
// bytes apart, into y[x * y_stride + r]: up to kMaxX activation rows and kMaxBlocks blocks at
// a time are prepared, then every weight row passes over them with
// row(w, a, nb_chunk, out, out_stride, carry, X) (X as a std::integral_constant). A row of
// more than kMaxBlocks blocks goes in chunks, each continuing the sums of the one before:
// the float steps stay in block order.
template <int kMaxX, typename Block, typename Prepared = PreparedQ8K, typename RowAt, typename RowKernel>
void rows_prepared_q8_k(RowAt row_at, int64_t n_rows, const void* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride, RowKernel row) {
  Prepared a[kMaxX];
  for (int64_t x0 = 0; x0 < n_x; x0 += kMaxX) {
    const int rows_here = static_cast<int>(std::min<int64_t>(kMaxX, n_x - x0));
    float* y_x = y + static_cast<size_t>(x0) * y_stride;
    for (int64_t b0 = 0; b0 < nb; b0 += PreparedQ8K::kMaxBlocks) {
      const int64_t nb_chunk = std::min<int64_t>(PreparedQ8K::kMaxBlocks, nb - b0);
      for (int x = 0; x < rows_here; ++x)
        prepare_q8_k(reinterpret_cast<const BlockQ8_K*>(static_cast<const uint8_t*>(xq) + static_cast<size_t>(x0 + x) * xq_stride) + b0, nb_chunk, a[x]);
      with_row_count<kMaxX>(rows_here, [&](auto X) {
        for (int64_t r = 0; r < n_rows; ++r) row(reinterpret_cast<const Block*>(row_at(r)) + b0, a, nb_chunk, y_x + r, y_stride, b0 > 0, X);
      });
    }
  }
}

}  // namespace
}  // namespace draftbench
