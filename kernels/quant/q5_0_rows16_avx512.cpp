// The Q5_0r16 products with AVX-512 VNNI (q5_0_rows16.h), in 512-bit registers whose sixteen
// 32-bit lanes are a group's sixteen rows: per block, the four qs chunks and the qh word of
// every row give eight vectors of 5-bit codes (four values of each row), unpacked once for
// all activation rows; vpdpbusd against four broadcast activation codes sums each half block,
// which then loses 16 x its activation sum (the codes' offset) and takes the scale product
// into its group lane: the header's contract, lane for lane.
#include <immintrin.h>

#include "kernels/quant/block_lanes.h"
#include "kernels/quant/k_quant_rows16_avx512.h"
#include "kernels/quant/q5_0_rows16.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

// Each block asks for its lines this far ahead: one activation row is a pure stream of the
// weights (q8_0_rows16_avx512.cpp says why the hardware prefetcher alone is not enough).
constexpr size_t kPrefetchAhead = 6 * kQ5_0r16BlockBytes;
constexpr int kLanes = kBlockLaneSets * kBlockLanes;

// One activation row as the kernel reads it: its Q8_0 blocks, each block's scale as a float,
// and -16 x the sums of its codes 0..15 and 16..31, which take back the codes' offset.
struct PreparedRow {
  const BlockQ8_0* blocks;
  float d[kQ5_0r16MaxBlocks];
  int32_t offset[kQ5_0r16MaxBlocks][2];
};

void prepare(const BlockQ8_0* x, int64_t nb, PreparedRow& p) {
  p.blocks = x;
  for (int64_t b = 0; b < nb; ++b) {
    p.d[b] = fp16_to_fp32(x[b].d);
    for (int h = 0; h < 2; ++h) {
      int32_t sum = 0;
      for (int v = 16 * h; v < 16 * h + 16; ++v) sum += x[b].qs[v];
      p.offset[b][h] = -16 * sum;
    }
  }
}

// The eight code vectors of a block: c[j] holds values 4j .. 4j + 3 of every row (0..31,
// unsigned, as vpdpbusd takes its first operand). Value v's fifth bit is bit v % 8 of qh
// byte v / 8: the byte is spread to the four bytes of its row's lane (vpshufb), and each
// byte tests its own bit.
inline void block_codes(const uint8_t* block, __m512i (&c)[8]) {
  const __m512i lo4 = _mm512_set1_epi8(0x0F), fifth = _mm512_set1_epi8(0x10);
  const __m512i qh = _mm512_loadu_si512(block + kQ5_0r16Qh);
  // vpshufb indexes within 128-bit lanes: byte 0 of lane i's dword is at 4 i.
  const __m512i row_bytes = _mm512_set4_epi32(0x0C0C0C0C, 0x08080808, 0x04040404, 0);
  for (int k = 0; k < 4; ++k) {
    const __m512i q = _mm512_loadu_si512(block + k * kQ5_0r16ChunkBytes);
    c[k] = _mm512_and_si512(q, lo4);
    c[k + 4] = _mm512_and_si512(_mm512_srli_epi16(q, 4), lo4);
  }
  for (int j = 0; j < 8; ++j) {
    const int byte = j / 2;  // values 4j .. 4j + 3 are bits 4 (j % 2) .. 4 (j % 2) + 3 of it
    const __m512i spread = _mm512_shuffle_epi8(qh, _mm512_add_epi32(row_bytes, _mm512_set1_epi8(static_cast<char>(byte))));
    const int s = 4 * (j % 2);
    const __m512i bit = _mm512_set1_epi32(static_cast<int32_t>((1u << s) | (2u << (s + 8)) | (4u << (s + 16)) | (8u << (s + 24))));
    c[j] = _mm512_mask_add_epi8(c[j], _mm512_test_epi8_mask(spread, bit), c[j], fifth);
  }
}

// Block b (codes c, the rows' scales dw) against X prepared activation rows, adding to their
// group lanes lanes[x]: integer sums are exact in any order, and the float steps are the
// contract's.
template <int X>
inline void block_rows(const __m512i (&c)[8], __m512 dw, const PreparedRow* a, int64_t b, __m512 (*lanes)[kLanes]) {
  const int lane = static_cast<int>((b / kGroupBlocks) % kBlockLaneSets) * kBlockLanes + static_cast<int>(b % kGroupBlocks);
  for (int x = 0; x < X; ++x) {
    const int8_t* qs = a[x].blocks[b].qs;
    __m512i lo = _mm512_set1_epi32(a[x].offset[b][0]), hi = _mm512_set1_epi32(a[x].offset[b][1]);
    for (int k = 0; k < 4; ++k) {
      lo = _mm512_dpbusd_epi32(lo, c[k], broadcast_codes(qs + 4 * k));
      hi = _mm512_dpbusd_epi32(hi, c[k + 4], broadcast_codes(qs + 16 + 4 * k));
    }
    const __m512 d = _mm512_mul_ps(dw, _mm512_set1_ps(a[x].d[b]));
    lanes[x][lane] = _mm512_add_ps(lanes[x][lane], _mm512_mul_ps(_mm512_cvtepi32_ps(lo), d));
    lanes[x][lane + 4] = _mm512_add_ps(lanes[x][lane + 4], _mm512_mul_ps(_mm512_cvtepi32_ps(hi), d));
  }
}

// fold_block_lanes, sixteen rows at a time.
__m512 fold(const __m512 (&l)[kLanes]) {
  __m512 t[kBlockLanes];
  for (int i = 0; i < kBlockLanes; ++i) t[i] = _mm512_add_ps(l[i], l[kBlockLanes + i]);
  return _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(t[0], t[4]), _mm512_add_ps(t[2], t[6])),
                       _mm512_add_ps(_mm512_add_ps(t[1], t[5]), _mm512_add_ps(t[3], t[7])));
}

}  // namespace

void q5_0r16_rows_avx512vnni(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  DB_CHECK(n_rows % kQ5_0r16Rows == 0 && nb >= 1 && nb <= kQ5_0r16MaxBlocks);
  const size_t group_bytes = q5_0r16_group_bytes(nb);
  PreparedRow a[kRowsPerGroupPass];
  for (int64_t x0 = 0; x0 < n_x; x0 += kRowsPerGroupPass) {
    const int rows_here = static_cast<int>(std::min<int64_t>(kRowsPerGroupPass, n_x - x0));
    for (int x = 0; x < rows_here; ++x) prepare(reinterpret_cast<const BlockQ8_0*>(xq + static_cast<size_t>(x0 + x) * xq_stride), nb, a[x]);
    for (int64_t g = 0; g < n_rows / kQ5_0r16Rows; ++g) {
      const uint8_t* group = w + static_cast<size_t>(g) * group_bytes;
      __m512 lanes[kRowsPerGroupPass][kLanes];
      for (int x = 0; x < rows_here; ++x)
        for (__m512& l : lanes[x]) l = _mm512_setzero_ps();
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* block = group + static_cast<size_t>(b) * kQ5_0r16BlockBytes;
        for (size_t off = 0; off < kQ5_0r16BlockBytes; off += 64) _mm_prefetch(reinterpret_cast<const char*>(block) + kPrefetchAhead + off, _MM_HINT_T0);
        __m512i c[8];
        block_codes(block, c);
        const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + kQ5_0r16D)));
        for_passes(rows_here, [&](auto X, int p) { block_rows<X()>(c, dw, a + p, b, lanes + p); });
      }
      float* out = y + static_cast<size_t>(x0) * y_stride + static_cast<size_t>(g) * kQ5_0r16Rows;
      for (int x = 0; x < rows_here; ++x) _mm512_storeu_ps(out + static_cast<size_t>(x) * y_stride, fold(lanes[x]));
    }
  }
}

}  // namespace draftbench
