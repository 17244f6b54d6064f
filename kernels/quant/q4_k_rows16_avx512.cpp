// The Q4_Kr16 products with AVX-512 VNNI (q4_k_rows16.h), in 512-bit registers whose
// sixteen 32-bit lanes are a group's sixteen rows: per block, a chunk of 64 code bytes gives, masked
// and shifted, four values of two sub-blocks in every row, and vpdpbusd against four
// broadcast activation codes adds them to that sub-block's lane sums. A sub-block's sums
// then take its sixteen rows' scales (vpmulld), the mins their activation sums (vpmaddwd), and the
// float steps are dot_q4_k's, lane for lane: the header's contract.
#include <immintrin.h>

#include "kernels/quant/k_quant_rows16_avx512.h"
#include "kernels/quant/q4_k_rows16.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

// Each 64-byte chunk read asks for the line a block ahead, and each block's scales for
// theirs (k_quant_rows16_avx512.h): a block takes one activation row about as long as memory
// takes to answer, so the file layout's distance (weight_prefetch.h, 2 KiB, less than a block
// here) would leave the mat-vec waiting. Spread over the block's reads, not all at its start:
// a burst of 36 prefetches filled the miss queue and stalled on it. Passes of four activation
// rows measured faster than of six or eight.
constexpr size_t kPrefetchAhead = kQ4_Kr16BlockBytes;

// One activation row as the kernel reads it: its Q8_K blocks, and per block the 32-value
// sums of its eight sub-blocks as words in pairs (sub-blocks 2p and 2p + 1 in dword p),
// against which vpmaddwd takes each row's two mins.
struct PreparedRow {
  const BlockQ8_K* blocks;
  alignas(16) int32_t sum_pairs[kQ4_Kr16MaxBlocks][4];
};

void prepare(const BlockQ8_K* x, int64_t nb, PreparedRow& p) {
  p.blocks = x;
  for (int64_t b = 0; b < nb; ++b)
    for (int q = 0; q < 4; ++q) {
      const int16_t* s = x[b].bsums + 4 * q;  // |sum| <= 32 x 128: fits a word
      const auto lo = static_cast<uint16_t>(s[0] + s[1]), hi = static_cast<uint16_t>(s[2] + s[3]);
      p.sum_pairs[b][q] = static_cast<int32_t>(static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16));
    }
}

// 64 six-bit values (q4_k_rows16.h: 32 bytes of low nibbles, 16 of top bits) as bytes: half
// of a block's scales or mins.
inline __m512i decode_6bit(const uint8_t* nibbles, const uint8_t* tops) {
  const __m512i n = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(nibbles)));
  const __m512i low = _mm512_or_si512(_mm512_and_si512(n, _mm512_set1_epi16(0x0F)), _mm512_slli_epi16(_mm512_srli_epi16(n, 4), 8));
  // Top byte i holds values 4i .. 4i + 3; or-ing it shifted by 0, 6, 12 and 18 bits puts
  // value 4i + q in the low two bits of byte q of dword i.
  const __m512i v = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(tops)));
  const __m512i v2 = _mm512_or_si512(v, _mm512_slli_epi32(v, 6));
  const __m512i t = _mm512_or_si512(v2, _mm512_slli_epi32(v2, 12));
  return _mm512_or_si512(low, _mm512_slli_epi32(_mm512_and_si512(t, _mm512_set1_epi32(0x03030303)), 4));
}

// A block's sixteen rows' scales, mins and scale factors, decoded once for every activation row.
struct BlockScales {
  __m512i sc[8];    // sub-block j's scale in each row's lane
  __m512i mins[4];  // words (min of sub-block 2p, of 2p + 1) in each row's lane
  __m512 d, dmin;
};

// Sub-blocks 4h .. 4h + 3 (scales) and pairs 2h, 2h + 1 (mins) from the decoded halves.
template <int H>
inline void spread_half(__m512i sc64, __m512i m64, BlockScales& s) {
  s.sc[4 * H + 0] = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(sc64, 0));
  s.sc[4 * H + 1] = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(sc64, 1));
  s.sc[4 * H + 2] = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(sc64, 2));
  s.sc[4 * H + 3] = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(sc64, 3));
  s.mins[2 * H + 0] = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(m64, 0));
  s.mins[2 * H + 1] = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(m64, 1));
}

inline void decode_scales(const uint8_t* block, BlockScales& s) {
  spread_half<0>(decode_6bit(block + kQ4_Kr16ScaleNibbles, block + kQ4_Kr16ScaleTops), decode_6bit(block + kQ4_Kr16MinNibbles, block + kQ4_Kr16MinTops), s);
  spread_half<1>(decode_6bit(block + kQ4_Kr16ScaleNibbles + 32, block + kQ4_Kr16ScaleTops + 16),
                 decode_6bit(block + kQ4_Kr16MinNibbles + 32, block + kQ4_Kr16MinTops + 16), s);
  s.d = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + kQ4_Kr16D)));
  s.dmin = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + kQ4_Kr16Dmin)));
}

// isum[x] = sum over sub-blocks j of sc_j x (the 32 codes of sub-block j . activation row
// x's), per row lane. Integer sums are exact in any order: one activation row (the mat-vec,
// where the weights come from memory) keeps all eight sub-blocks' chains apart, eight
// independent vpdpbusd chains; more take the sub-block pairs one after another, two chains
// each, to fit the registers. Two rows on the eight-chain path (sixteen accumulators) cost
// 1.8x one row at Qwen2.5-Coder-1.5B's shapes on Zen 5, against 1.05-1.2x on the pair path
// (kernel_bench matmul/.../Q4_Kr16/rows:2, medians side by side; 1.33x against 1.22x at
// Gemma 3's attn_output): a two-token draft then cost 40% of a step instead of 11%.
template <int X>
inline void block_isums(const uint8_t* codes, const BlockScales& s, const PreparedRow* a, int64_t b, __m512i (&isum)[X]) {
  const __m512i m4 = _mm512_set1_epi8(0x0F);
  const auto chunk = [&](int t, int m, __m512i& lo, __m512i& hi) {
    const uint8_t* p = codes + kQ4_Kr16ChunkBytes * (4 * t + m);
    _mm_prefetch(reinterpret_cast<const char*>(p) + kPrefetchAhead, _MM_HINT_T0);
    const __m512i q = _mm512_loadu_si512(p);
    lo = _mm512_and_si512(q, m4);
    hi = _mm512_and_si512(_mm512_srli_epi16(q, 4), m4);
  };
  if constexpr (X <= 1) {
    __m512i acc[X][8];
    for (int x = 0; x < X; ++x)
      for (int j = 0; j < 8; ++j) acc[x][j] = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t)
#pragma GCC unroll 4
      for (int m = 0; m < 4; ++m) {
        __m512i lo, hi;
        chunk(t, m, lo, hi);
        for (int x = 0; x < X; ++x) {
          const int8_t* y = a[x].blocks[b].qs + 64 * m + 4 * t;
          acc[x][2 * m] = _mm512_dpbusd_epi32(acc[x][2 * m], lo, broadcast_codes(y));
          acc[x][2 * m + 1] = _mm512_dpbusd_epi32(acc[x][2 * m + 1], hi, broadcast_codes(y + 32));
        }
      }
    for (int x = 0; x < X; ++x) {
      __m512i sum = _mm512_mullo_epi32(acc[x][0], s.sc[0]);
      for (int j = 1; j < 8; ++j) sum = _mm512_add_epi32(sum, _mm512_mullo_epi32(acc[x][j], s.sc[j]));
      isum[x] = sum;
    }
  } else {
    for (int x = 0; x < X; ++x) isum[x] = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int m = 0; m < 4; ++m) {
      __m512i acc_lo[X], acc_hi[X];
      for (int x = 0; x < X; ++x) acc_lo[x] = acc_hi[x] = _mm512_setzero_si512();
#pragma GCC unroll 8
      for (int t = 0; t < 8; ++t) {
        __m512i lo, hi;
        chunk(t, m, lo, hi);
        for (int x = 0; x < X; ++x) {
          const int8_t* y = a[x].blocks[b].qs + 64 * m + 4 * t;
          acc_lo[x] = _mm512_dpbusd_epi32(acc_lo[x], lo, broadcast_codes(y));
          acc_hi[x] = _mm512_dpbusd_epi32(acc_hi[x], hi, broadcast_codes(y + 32));
        }
      }
      for (int x = 0; x < X; ++x)
        isum[x] = _mm512_add_epi32(isum[x], _mm512_add_epi32(_mm512_mullo_epi32(acc_lo[x], s.sc[2 * m]), _mm512_mullo_epi32(acc_hi[x], s.sc[2 * m + 1])));
    }
  }
}

// Block b of a group against X prepared activation rows, continuing each row's lane sums in
// sums[x]: dot_q4_k's float steps in each lane.
template <int X>
inline void block_rows(const uint8_t* block, const BlockScales& s, const PreparedRow* a, int64_t b, __m512* sums) {
  __m512i isum[X];
  block_isums<X>(block, s, a, b, isum);
  for (int x = 0; x < X; ++x) {
    const int32_t* pairs = a[x].sum_pairs[b];
    __m512i imin = _mm512_madd_epi16(s.mins[0], _mm512_set1_epi32(pairs[0]));
    for (int p = 1; p < 4; ++p) imin = _mm512_add_epi32(imin, _mm512_madd_epi16(s.mins[p], _mm512_set1_epi32(pairs[p])));
    const __m512 yd = _mm512_set1_ps(a[x].blocks[b].d);
    __m512 sum = _mm512_add_ps(sums[x], _mm512_mul_ps(_mm512_cvtepi32_ps(isum[x]), _mm512_mul_ps(s.d, yd)));
    sums[x] = _mm512_sub_ps(sum, _mm512_mul_ps(_mm512_cvtepi32_ps(imin), _mm512_mul_ps(s.dmin, yd)));
  }
}

}  // namespace

void q4_kr16_rows_avx512vnni(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  DB_CHECK(n_rows % kQ4_Kr16Rows == 0 && nb >= 1 && nb <= kQ4_Kr16MaxBlocks);
  k_quant_rows16<kQ4_Kr16Rows, kQ4_Kr16BlockBytes, kQ4_Kr16D, PreparedRow>(
      w, n_rows, xq, xq_stride, n_x, nb, y, y_stride, prepare, [](const uint8_t* block, int64_t b, int n, const PreparedRow* a, __m512* sums) {
        BlockScales s;
        decode_scales(block, s);  // once for every pass
        for_passes(n, [&](auto X, int p) { block_rows<X()>(block, s, a + p, b, sums + p); });
      });
}

}  // namespace draftbench
