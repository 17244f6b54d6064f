// Q5_0 blocks in fours (q5_0_repack.h's Q5_0x4) against Q8_0 activation rows, for the x86
// builds (the engine repacks to it where the AVX2 kernels run): the mat-vec, two weight rows
// at a time, and up to kQ5_0x4BatchRows activation rows per pass over a weight row.
// From the file's layout (vec_dot_x86.h's row_32block_batch) a block cost about 24
// instructions, 6-7 of them spreading 32 high bits to bytes and 6 converting and
// multiplying the two fp16 scales: the mat-vec ran at 0.42-0.52 of one thread's read
// bandwidth on Zen 3, compute-bound. Here, per group of four blocks, the scales convert and
// multiply in one register, the codes take 13 instructions (q5_0x4_codes), the integer dot
// takes them unsigned (block_lanes_x86.h: the offset 16 is in the lane sums' starting value,
// so no sign work) and a block's scale product is a broadcast load.
// Lane for lane the float steps are block_lanes.h's (set 0 even blocks, set 1 odd, block
// after block), so the results are dot_rows_ref's for the Q5_0 rows bit for bit.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>

#include "kernels/quant/block_lanes_x86.h"
#include "kernels/quant/row_count.h"
#include "kernels/quant/weight_prefetch.h"

namespace draftbench {
namespace {

// Rows of up to 4096 values (128 blocks): every Q5_0 matrix of Gemma 3 270M, and Vicuna-7B's
// attention and FFN inputs. Longer rows are not repacked (weight_repack.cpp).
using PreparedQ5_0x4Row = PreparedActivation<128>;

// Four accumulator pairs and a group's four code registers fit the 16 AVX2 registers.
inline constexpr int kQ5_0x4BatchRows = 4;

// A group's four blocks' codes, 0..31, value j of block k in byte j of q[k].
inline void q5_0x4_codes(const BlockQ5_0x4& g, __m256i (&q)[4]) {
  const __m256i low5 = _mm256_set1_epi8(0x1F), low3 = _mm256_set1_epi8(0x07), bits34 = _mm256_set1_epi8(0x18);
  // Byte b < 16: the plane's byte b; byte 16 + k: its byte k shifted down by 4. Bits 0-1 of
  // every byte are then block 1's top two code bits of that byte's value, bits 2-3 block 3's.
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

// R weight rows of ng groups against X prepared activation rows, into out[x * out_stride + r].
// Every (row, activation row) keeps its own two lane sets, so the results do not depend on R
// or X. For one activation row, two weight rows side by side: one row's two chains of adds
// and long per-block dependency chains left Zen 3 waiting with the FP scheduler full (the
// float steps doubled the integer work's time); two rows' four chains ran 1.25-1.3x faster
// with warm weights (a scratch copy), and the two-thread decode product 1.0-1.25x faster
// (three noisy rounds). Not for the file layout's Q8_0 kernel, which streams at 0.83-0.87
// of the bandwidth already: two rows there took 1.17-1.41x as long with weights from DRAM.
template <int R, int X>
void q5_0x4_row_batch(const BlockQ5_0x4* const* w, const PreparedQ5_0x4Row* a, int64_t ng, float* out, size_t out_stride) {
  __m256 acc[R][X][2];  // block_lanes.h's two sets: even and odd blocks
  for (int r = 0; r < R; ++r)
    for (int x = 0; x < X; ++x) acc[r][x][0] = acc[r][x][1] = _mm256_setzero_ps();
  for (int64_t g = 0; g < ng; ++g) {
    const int64_t i = 4 * g;
    __m256i q[R][4];
    alignas(16) float scale[R][X][4];  // the four blocks' dw x dy, each then one broadcast load
    for (int r = 0; r < R; ++r) {
      prefetch_weights(w[r] + g, sizeof(BlockQ5_0x4));
      q5_0x4_codes(w[r][g], q[r]);
      const __m128 dw = _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w[r][g].d)));
      for (int x = 0; x < X; ++x) _mm_store_ps(scale[r][x], _mm_mul_ps(dw, _mm_load_ps(a[x].d + i)));
    }
    for (int k = 0; k < 4; ++k) {
      for (int x = 0; x < X; ++x) {
        const __m256i offsets = _mm256_load_si256(reinterpret_cast<const __m256i*>(a[x].offset_sums[i + k]));
        const __m256i codes = _mm256_load_si256(reinterpret_cast<const __m256i*>(a[x].qs[i + k]));
        for (int r = 0; r < R; ++r) {
          const __m256 lanes = _mm256_cvtepi32_ps(add_dot_u8_s8(offsets, q[r][k], codes));
          acc[r][x][k % 2] = _mm256_add_ps(acc[r][x][k % 2], _mm256_mul_ps(lanes, _mm256_broadcast_ss(&scale[r][x][k])));
        }
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int x = 0; x < X; ++x) out[static_cast<size_t>(x) * out_stride + r] = fold_lanes(acc[r][x][0], acc[r][x][1]);
}

// Q5_0x4 weight rows row_at(0 .. n_rows) against n_x activation rows xq_stride bytes apart,
// into y[x * y_stride + r]: kQ5_0x4BatchRows activation rows at a time are prepared, then
// every weight row passes over them (two weight rows at a time for one activation row).
// False, and nothing done, for rows longer than the prepared activation.
template <typename RowAt>
bool q5_0x4_rows(RowAt row_at, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y, size_t y_stride) {
  const int64_t nb = n / 32;
  if (nb > PreparedQ5_0x4Row::kBlocks) return false;
  const auto row = [&](int64_t r) { return reinterpret_cast<const BlockQ5_0x4*>(row_at(r)); };
  PreparedQ5_0x4Row a[kQ5_0x4BatchRows];
  for (int64_t x0 = 0; x0 < n_x; x0 += kQ5_0x4BatchRows) {
    const int rows_here = static_cast<int>(std::min<int64_t>(kQ5_0x4BatchRows, n_x - x0));
    for (int x = 0; x < rows_here; ++x)
      prepare_activation(reinterpret_cast<const BlockQ8_0*>(xq + static_cast<size_t>(x0 + x) * xq_stride), nb, kCodeOffset<BlockQ5_0x4>, a[x]);
    float* y_x = y + static_cast<size_t>(x0) * y_stride;
    int64_t r = 0;
    if (rows_here == 1)
      for (; r + 2 <= n_rows; r += 2) {
        const BlockQ5_0x4* pair[2] = {row(r), row(r + 1)};
        q5_0x4_row_batch<2, 1>(pair, a, nb / 4, y_x + r, y_stride);
      }
    with_row_count<kQ5_0x4BatchRows>(rows_here, [&](auto X) {
      for (int64_t rr = r; rr < n_rows; ++rr) {
        const BlockQ5_0x4* one[1] = {row(rr)};
        q5_0x4_row_batch<1, X()>(one, a, nb / 4, y_x + rr, y_stride);
      }
    });
  }
  return true;
}

}  // namespace
}  // namespace draftbench
