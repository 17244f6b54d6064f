// Q5_0 block pairs (q5_0_repack.h) against Q8_0 activation rows, for the AVX-512 VNNI build
// (include only from vec_dot_avx512.cpp): the mat-vec and up to eight activation rows per
// pass. The operations are row_2blocks' (vec_dot_avx512.cpp) with the lanes in the pairs'
// order, [set 0 lanes 0-3, set 1 lanes 0-3, set 0 lanes 4-7, set 1 lanes 4-7] (block_lanes.h's
// sets): the prepared activation rows are put in that order once per call, and each weight
// row's sixteen sums go back to the reference's order before its fold. Bit-identical to
// dot_rows_ref, and so to the Q5_0 rows the pairs came from.
// Rows of up to kResidentPairs pairs (Gemma's 640-wide products) keep the prepared activation
// in registers across the weight rows: a weight pair then costs a 32-byte broadcast, a mask
// and a 32-bit scale load, and no activation loads (two 64-byte loads per pair otherwise,
// which this mat-vec was short of load slots for).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/quant/blocks.h"
#include "kernels/quant/row_count.h"
#include "kernels/quant/zmm_lanes.h"

namespace draftbench {
namespace {

inline constexpr int kResidentPairs = 10;

// A prepared pair's dwords (block 0's eight lanes, then block 1's) in the pairs' order; the
// permutation is its own inverse, so it also takes a row's sums back.
inline __m512i pair_lane_order() { return _mm512_setr_epi32(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15); }

// A prepared activation row (block_lanes_x86.h: codes and offset sums
// per block, scales as floats) in the pairs' order; nb even.
template <typename Prepared>
void pair_order_activation(Prepared& a, int64_t nb) {
  for (int64_t i = 0; i + 2 <= nb; i += 2) {
    _mm512_store_si512(a.qs[i], _mm512_permutexvar_epi32(pair_lane_order(), _mm512_load_si512(a.qs[i])));
    _mm512_store_si512(a.offset_sums[i], _mm512_permutexvar_epi32(pair_lane_order(), _mm512_load_si512(a.offset_sums[i])));
  }
}

// A weight pair's unsigned codes (nibble | high bit << 4) in the pairs' byte order.
inline __m512i q5_0x2_codes(const BlockQ5_0x2& w) {
  const __m512i both = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qs)));
  const __m512i nibbles = _mm512_srlv_epi64(both, _mm512_setr_epi64(0, 0, 0, 0, 4, 4, 4, 4));
  uint64_t bits;
  std::memcpy(&bits, w.qh, 8);
  const __m512i high = _mm512_maskz_mov_epi8(_cvtu64_mask64(bits), _mm512_set1_epi8(0x10));
  return _mm512_ternarylogic_epi32(high, nibbles, _mm512_set1_epi8(0x0F), 0xF8);  // high | (nibbles & 0x0F)
}

// The pair's two weight scales, lanes 0 and 1.
inline __m128 q5_0x2_weight_scales(const BlockQ5_0x2& w) { return _mm_cvtph_ps(_mm_loadu_si32(w.d)); }

// One activation row's side of a pair: codes, offset sums, and its two block scales (lanes 0, 1).
struct PairActivation {
  __m512i x, offsets;
  __m128 d;
};

template <typename Prepared>
inline PairActivation pair_activation(const Prepared& a, int64_t pair) {
  return {_mm512_load_si512(a.qs[2 * pair]), _mm512_load_si512(a.offset_sums[2 * pair]),
          _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(a.d + 2 * pair)))};
}

// The pair's sixteen products, float(lane sum) x (weight scale x activation scale).
inline __m512 q5_0x2_products(__m512i codes, __m128 dw, const PairActivation& y) {
  const __m512i isum = _mm512_dpbusd_epi32(y.offsets, codes, y.x);
  const __m512 scales = _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1),
                                              _mm512_castps128_ps512(_mm_mul_ps(dw, y.d)));
  return _mm512_mul_ps(_mm512_cvtepi32_ps(isum), scales);
}

inline float fold_pair_lanes(__m512 acc) { return fold_zmm_lanes(_mm512_permutexvar_ps(pair_lane_order(), acc)); }

// Weight rows row_at(r) against one prepared row of kPairs pairs held in registers.
template <int kPairs, typename Prepared, typename RowAt>
void q5_0x2_rows_resident(RowAt row_at, int64_t n_rows, const Prepared& a, float* y) {
  PairActivation act[kPairs];
  for (int p = 0; p < kPairs; ++p) act[p] = pair_activation(a, p);
  for (int64_t r = 0; r < n_rows; ++r) {
    const auto* w = reinterpret_cast<const BlockQ5_0x2*>(row_at(r));
    __m512 acc = _mm512_setzero_ps();
#pragma GCC unroll 16
    for (int p = 0; p < kPairs; ++p) acc = _mm512_add_ps(acc, q5_0x2_products(q5_0x2_codes(w[p]), q5_0x2_weight_scales(w[p]), act[p]));
    y[r] = fold_pair_lanes(acc);
  }
}

// The mat-vec: one prepared activation row (in the pairs' order) of n_pairs pairs.
template <typename Prepared, typename RowAt>
void q5_0x2_rows(RowAt row_at, int64_t n_rows, const Prepared& a, int64_t n_pairs, float* y) {
  if (n_pairs >= 1 && n_pairs <= kResidentPairs)
    return with_row_count<kResidentPairs>(static_cast<int>(n_pairs), [&](auto P) { q5_0x2_rows_resident<P()>(row_at, n_rows, a, y); });
  for (int64_t r = 0; r < n_rows; ++r) {
    const auto* w = reinterpret_cast<const BlockQ5_0x2*>(row_at(r));
    __m512 acc = _mm512_setzero_ps();
    for (int64_t p = 0; p < n_pairs; ++p) acc = _mm512_add_ps(acc, q5_0x2_products(q5_0x2_codes(w[p]), q5_0x2_weight_scales(w[p]), pair_activation(a, p)));
    y[r] = fold_pair_lanes(acc);
  }
}

// One weight row against X prepared activation rows: each pair's codes and scales unpacked
// once for all of them; each row's operations are the mat-vec's, whatever X.
template <int X, typename Prepared>
void q5_0x2_row_batch(const BlockQ5_0x2* w, const Prepared* a, int64_t n_pairs, float* out, size_t out_stride) {
  __m512 acc[X];
  for (int x = 0; x < X; ++x) acc[x] = _mm512_setzero_ps();
  for (int64_t p = 0; p < n_pairs; ++p) {
    const __m512i codes = q5_0x2_codes(w[p]);
    const __m128 dw = q5_0x2_weight_scales(w[p]);
    for (int x = 0; x < X; ++x) acc[x] = _mm512_add_ps(acc[x], q5_0x2_products(codes, dw, pair_activation(a[x], p)));
  }
  for (int x = 0; x < X; ++x) out[static_cast<size_t>(x) * out_stride] = fold_pair_lanes(acc[x]);
}

}  // namespace
}  // namespace draftbench
