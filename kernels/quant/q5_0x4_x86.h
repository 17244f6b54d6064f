// Q5_0 blocks in fours (q5_0_repack.h's Q5_0x4) against Q8_0 activation rows, for the x86
// builds: the mat-vec, two weight rows at a time, and up to kQ5_0x4BatchRows activation
// rows per pass over a weight row. block_lanes.h's group lanes, per group of four blocks:
// - the codes in 13 instructions (q5_0x4_codes), taken unsigned (0..31): the offset 16 is
//   in the lanes' starting value, the prepared activation's offset sums;
// - four maddubs, one per register, each a quarter of every block, against the activation
//   transposed alike; their 16-bit pair sums add up (at most 8 x 31 x 128 = 31744), then
//   one madd widens them into the eight group lanes;
// - one convert, one multiply by the four blocks' scale products (in both halves) and one
//   add, where block lanes took those three per block.
// So the results are dot_rows_ref's for the Q5_0 rows bit for bit.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>

#include "kernels/quant/block_lanes_x86.h"
#include "kernels/quant/q5_0_repack.h"
#include "kernels/quant/row_count.h"
#include "kernels/quant/weight_prefetch.h"

namespace draftbench {
namespace {

// One activation row of up to kQ5_0x4MaxValues values.
struct PreparedQ5_0x4Row {
  static constexpr int64_t kGroups = kQ5_0x4MaxValues / 128;
  alignas(64) int8_t qs[kGroups][4][32];        // register k of group g: q5_0_repack.cpp's group_byte order
  alignas(64) int32_t offset_sums[kGroups][8];  // -16 x the sum of each group lane's 16 values
  alignas(64) float d[4 * kGroups];
};

// Four blocks' 32 activation bytes, each as eight dwords of four values, into the four
// registers of their group: register k's half h holds dword 4h + k of blocks 0..3, a 4 x 4
// dword transpose in each 128-bit half.
inline void transpose_group_activation(const BlockQ8_0* y, __m256i (&reg)[4]) {
  __m256i a[4];
  for (int j = 0; j < 4; ++j) a[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y[j].qs));
  const __m256i t0 = _mm256_unpacklo_epi32(a[0], a[1]), t1 = _mm256_unpacklo_epi32(a[2], a[3]);
  const __m256i t2 = _mm256_unpackhi_epi32(a[0], a[1]), t3 = _mm256_unpackhi_epi32(a[2], a[3]);
  reg[0] = _mm256_unpacklo_epi64(t0, t1);
  reg[1] = _mm256_unpackhi_epi64(t0, t1);
  reg[2] = _mm256_unpacklo_epi64(t2, t3);
  reg[3] = _mm256_unpackhi_epi64(t2, t3);
}

inline void prepare_q5_0x4_row(const BlockQ8_0* y, int64_t ng, PreparedQ5_0x4Row& p) {
  const __m256i sixteen = _mm256_set1_epi8(16);
  for (int64_t g = 0; g < ng; ++g) {
    __m256i reg[4];
    transpose_group_activation(y + 4 * g, reg);
    __m256i sums = _mm256_setzero_si256();
    for (int k = 0; k < 4; ++k) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(p.qs[g][k]), reg[k]);
      sums = _mm256_add_epi32(sums, dot_abs_s8(sixteen, reg[k]));
    }
    _mm256_store_si256(reinterpret_cast<__m256i*>(p.offset_sums[g]), _mm256_sub_epi32(_mm256_setzero_si256(), sums));
    for (int j = 0; j < 4; ++j) p.d[4 * g + j] = fp16_to_fp32(y[4 * g + j].d);
  }
}

// Up to four activation rows per pass: their accumulator pairs and a group's four code
// registers fit the 16 AVX2 registers.
inline constexpr int kQ5_0x4BatchRows = 4;

// A group's four code registers, 0..31 (q5_0_repack.h's layout).
inline void q5_0x4_codes(const BlockQ5_0x4& g, __m256i (&q)[4]) {
  const __m256i low5 = _mm256_set1_epi8(0x1F), low3 = _mm256_set1_epi8(0x07), bits34 = _mm256_set1_epi8(0x18);
  // Byte b < 16: the plane's byte b; byte 16 + k: its byte k shifted down by 4. Bits 0-1 of
  // every byte are then register 1's top two code bits of that byte, bits 2-3 register 3's.
  const __m128i qh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(g.qh));
  const __m256i plane = _mm256_srlv_epi64(_mm256_broadcastsi128_si256(qh), _mm256_setr_epi64x(0, 0, 4, 4));
  const __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.qs));
  const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.qs + 32));
  // 16-bit shifts: what crosses between a word's bytes lands in bits the masks clear.
  q[0] = _mm256_and_si256(v0, low5);
  q[1] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v0, 5), low3), _mm256_and_si256(_mm256_slli_epi16(plane, 3), bits34));
  q[2] = _mm256_and_si256(v1, low5);
  q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v1, 5), low3), _mm256_and_si256(_mm256_slli_epi16(plane, 1), bits34));
}

// Group g of R weight rows against X prepared activation rows, into acc[r][x] (the set of
// g's parity). The 16-bit adds are the AVX2 form in both builds: the VNNI build's
// vpdpbusd chain would give the same integers, and one form means one code path to
// benchmark and test.
template <int R, int X>
inline void q5_0x4_group(const BlockQ5_0x4* const* w, const PreparedQ5_0x4Row* a, int64_t g, __m256 (&acc)[R][X]) {
  const __m256i ones = _mm256_set1_epi16(1);
  for (int r = 0; r < R; ++r) {
    prefetch_weights(w[r] + g, sizeof(BlockQ5_0x4));
    __m256i q[4];
    q5_0x4_codes(w[r][g], q);
    const __m128 dw = _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w[r][g].d)));
    for (int x = 0; x < X; ++x) {
      const auto reg = [&](int k) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(a[x].qs[g][k])); };
      const __m256i pairs = _mm256_add_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(q[0], reg(0)), _mm256_maddubs_epi16(q[1], reg(1))),
                                             _mm256_add_epi16(_mm256_maddubs_epi16(q[2], reg(2)), _mm256_maddubs_epi16(q[3], reg(3))));
      const __m256i lanes = _mm256_add_epi32(_mm256_madd_epi16(pairs, ones), _mm256_load_si256(reinterpret_cast<const __m256i*>(a[x].offset_sums[g])));
      const __m128 scale = _mm_mul_ps(dw, _mm_load_ps(a[x].d + 4 * g));
      acc[r][x] = _mm256_add_ps(acc[r][x], _mm256_mul_ps(_mm256_cvtepi32_ps(lanes), _mm256_set_m128(scale, scale)));
    }
  }
}

// R weight rows of ng groups against X prepared activation rows, into out[x * out_stride + r].
// Every (row, activation row) keeps its own two lane sets, so the results do not depend on R
// or X.
template <int R, int X>
void q5_0x4_row_batch(const BlockQ5_0x4* const* w, const PreparedQ5_0x4Row* a, int64_t ng, float* out, size_t out_stride) {
  __m256 acc[2][R][X];  // the two sets: even and odd groups
  for (int r = 0; r < R; ++r)
    for (int x = 0; x < X; ++x) acc[0][r][x] = acc[1][r][x] = _mm256_setzero_ps();
  for_each_in_sets(ng, [&](int64_t g, auto set) { q5_0x4_group<R, X>(w, a, g, acc[set]); });
  for (int r = 0; r < R; ++r)
    for (int x = 0; x < X; ++x) out[static_cast<size_t>(x) * out_stride + r] = fold_lanes(acc[0][r][x], acc[1][r][x]);
}

// Q5_0x4 weight rows row_at(0 .. n_rows) against n_x activation rows xq_stride bytes apart,
// into y[x * y_stride + r]: kQ5_0x4BatchRows activation rows at a time are prepared, then
// every weight row passes over them. For one activation row, two weight rows side by side:
// two independent dependency chains keep the vector ports busier than one row's
// (kernels/bench/README.md, "Why the kernels look as they do"). False, and nothing done,
// for rows longer than the prepared activation.
template <typename RowAt>
bool q5_0x4_rows(RowAt row_at, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y, size_t y_stride) {
  const int64_t ng = n / 128;
  if (ng > PreparedQ5_0x4Row::kGroups) return false;
  const auto row = [&](int64_t r) { return reinterpret_cast<const BlockQ5_0x4*>(row_at(r)); };
  PreparedQ5_0x4Row a[kQ5_0x4BatchRows];
  for (int64_t x0 = 0; x0 < n_x; x0 += kQ5_0x4BatchRows) {
    const int rows_here = static_cast<int>(std::min<int64_t>(kQ5_0x4BatchRows, n_x - x0));
    for (int x = 0; x < rows_here; ++x) prepare_q5_0x4_row(reinterpret_cast<const BlockQ8_0*>(xq + static_cast<size_t>(x0 + x) * xq_stride), ng, a[x]);
    float* y_x = y + static_cast<size_t>(x0) * y_stride;
    int64_t r = 0;
    if (rows_here == 1)
      for (; r + 2 <= n_rows; r += 2) {
        const BlockQ5_0x4* pair[2] = {row(r), row(r + 1)};
        q5_0x4_row_batch<2, 1>(pair, a, ng, y_x + r, y_stride);
      }
    with_row_count<kQ5_0x4BatchRows>(rows_here, [&](auto X) {
      for (int64_t rr = r; rr < n_rows; ++rr) {
        const BlockQ5_0x4* one[1] = {row(rr)};
        q5_0x4_row_batch<1, X()>(one, a, ng, y_x + rr, y_stride);
      }
    });
  }
  return true;
}

}  // namespace
}  // namespace draftbench
