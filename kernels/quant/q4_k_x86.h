// Q4_K weights against Q8_K activation rows, for the x86 builds (each including translation
// unit gets the block lanes of its ISA): the mat-vec and several activation rows per pass
// over a weight row (prefill, tree verification: up to 8 in the AVX-512 build, 4 in AVX2),
// each weight block pair's scales and codes unpacked once for all of them. The kernel this
// replaced spent per block a scalar scale decode, two horizontal sums and scalar float
// steps, and two multiplies per 32-value sub-block: about 25 cycles a block here,
// compute-bound at 40% of one thread's memory bandwidth. This one:
//   - blocks go in pairs: both blocks' scales decode in one register (vector code), and
//     their horizontal sums, the mins' sums (prepared once per activation row) and the
//     float products share instructions;
//   - AVX-512 VNNI: per sub-block j, vpdpbusd gives eight lane sums S_j (|S_j| <= 4 x 15 x
//     128, so they fit int16); a sub-block pair packs into words and one vpmaddwd applies
//     both 6-bit scales: three multiplies per pair instead of four;
//   - AVX2: vpmaddubsw and vpmaddwd by the broadcast scale per sub-block, as before.
// The integer sums are exact, and the float steps are the reference's (vec_dot_ref.cpp's
// dot_q4_k), per block in block order: sum += isum x (d x y.d), then sum -= imin x (dmin x
// y.d). Results are bit-identical to dot_rows_ref.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

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

// One weight row's nb blocks against X prepared activation rows (a[x]), into out[x *
// out_stride], continuing the sums already there when `carry` (a row's later chunks). Each
// row's operations are the same whatever X, so matmul stays batch-invariant.
template <int X>
void q4_k_row(const BlockQ4_K* w, const PreparedQ8K* a, int64_t nb, float* out, size_t out_stride, bool carry) {
  float sum[X];
  for (int x = 0; x < X; ++x) sum[x] = carry ? out[static_cast<size_t>(x) * out_stride] : 0.0f;
  for_block_pairs(nb, [&](int64_t i0, int64_t i1, bool both) {
    prefetch_weights(w + i0, (i1 - i0 + 1) * sizeof(BlockQ4_K));
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

// q4_k_row as rows_prepared_q8_k's row kernel (X a std::integral_constant).
inline constexpr auto q4_k_rows = [](const BlockQ4_K* w, const PreparedQ8K* a, int64_t nb, float* out, size_t out_stride, bool carry,
                                     auto X) { q4_k_row<X()>(w, a, nb, out, out_stride, carry); };

// Weight rows row_at(0 .. n_rows) of a K-quant type against n_x activation rows xq_stride
// bytes apart, into y[x * y_stride + r]: up to kMaxX activation rows and kMaxBlocks blocks at
// a time are prepared, then every weight row passes over them with
// row(w, a, nb_chunk, out, out_stride, carry, X) (X as a std::integral_constant). A row of
// more than kMaxBlocks blocks goes in chunks, each continuing the sums of the one before:
// the float steps stay in block order.
template <int kMaxX, typename Block, typename RowAt, typename RowKernel>
void rows_prepared_q8_k(RowAt row_at, int64_t n_rows, const void* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride,
                        RowKernel row) {
  PreparedQ8K a[kMaxX];
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
