// The Q6_Kr16 products with AVX-512 VNNI (q6_k_rows16.h), in 512-bit registers whose
// sixteen 32-bit lanes are a group's sixteen rows: per block half and four-value step, the
// three chunks of ql and qh bytes give the 6-bit codes of four values in each of four
// 16-value groups of every row, and vpdpbusd against four broadcast activation codes adds
// them to that group's lane sums. A group's sums then lose 32 x its activation sum (the
// codes' offset) and take its sixteen rows' scales (vpmulld), and the float step is
// dot_q6_k's, lane for lane: the header's contract.
#include <immintrin.h>

#include "kernels/quant/k_quant_rows16_avx512.h"
#include "kernels/quant/q6_k_rows16.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

// Each chunk read asks for the line a block ahead (q4_k_rows16_avx512.cpp says why).
constexpr size_t kPrefetchAhead = kQ6_Kr16BlockBytes;

// One activation row as the kernel reads it: its Q8_K blocks, and per block 32 x each
// 16-value group's activation sum, which takes back the codes' offset of 32.
struct PreparedRow {
  const BlockQ8_K* blocks;
  alignas(64) int32_t offsets[kQ6_Kr16MaxBlocks][16];
};

void prepare(const BlockQ8_K* x, int64_t nb, PreparedRow& p) {
  p.blocks = x;
  for (int64_t b = 0; b < nb; ++b)
    for (int g = 0; g < 16; ++g) p.offsets[b][g] = 32 * x[b].bsums[g];
}

// The four code vectors of step (h, t): values 128h + 32k + 4t .. + 3 of every row, k = 0..3.
inline void step_codes(const uint8_t* step, __m512i (&c)[4]) {
  _mm_prefetch(reinterpret_cast<const char*>(step) + kPrefetchAhead, _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(step) + kPrefetchAhead + 64, _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(step) + kPrefetchAhead + 128, _MM_HINT_T0);
  const __m512i lo4 = _mm512_set1_epi8(0x0F), hi2 = _mm512_set1_epi8(0x30);
  const __m512i a = _mm512_loadu_si512(step), b = _mm512_loadu_si512(step + kQ6_Kr16ChunkBytes);
  const __m512i h = _mm512_loadu_si512(step + 2 * kQ6_Kr16ChunkBytes);
  // (low & 0x0F) | high, the high part holding bits 4-5 only (0xEC: (A and C) or B).
  const auto join = [&](__m512i low, __m512i high) { return _mm512_ternarylogic_epi32(low, high, lo4, 0xEC); };
  // Word shifts move bits across the bytes of a word only into bits the masks clear.
  c[0] = join(a, _mm512_and_si512(_mm512_slli_epi16(h, 4), hi2));
  c[1] = join(b, _mm512_and_si512(_mm512_slli_epi16(h, 2), hi2));
  c[2] = join(_mm512_srli_epi16(a, 4), _mm512_and_si512(h, hi2));
  c[3] = join(_mm512_srli_epi16(b, 4), _mm512_and_si512(_mm512_srli_epi16(h, 2), hi2));
}

// Block b of a group against X prepared activation rows, continuing each row's lane sums in
// sums[x]. Per quarter (h, q) of the block: steps t = 4q .. 4q + 3 cover four values of
// groups 8h + q + 2k, k = 0..3, whose sums then fold into isum; integer sums are exact in
// any order.
template <int X>
inline void block_rows(const uint8_t* block, const PreparedRow* a, int64_t b, __m512* sums) {
  __m512i isum[X];
  for (int x = 0; x < X; ++x) isum[x] = _mm512_setzero_si512();
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h)
#pragma GCC unroll 2
    for (int q = 0; q < 2; ++q) {
      __m512i acc[X][4];
      for (int x = 0; x < X; ++x)
        for (int k = 0; k < 4; ++k) acc[x][k] = _mm512_setzero_si512();
#pragma GCC unroll 4
      for (int t = 4 * q; t < 4 * q + 4; ++t) {
        __m512i c[4];
        step_codes(block + static_cast<size_t>(8 * h + t) * kQ6_Kr16StepBytes, c);
        for (int x = 0; x < X; ++x)
          for (int k = 0; k < 4; ++k) acc[x][k] = _mm512_dpbusd_epi32(acc[x][k], c[k], broadcast_codes(a[x].blocks[b].qs + 128 * h + 32 * k + 4 * t));
      }
      for (int k = 0; k < 4; ++k) {
        const int g = 8 * h + q + 2 * k;
        const __m512i sc = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + kQ6_Kr16Scales + 16 * g)));
        for (int x = 0; x < X; ++x)
          isum[x] = _mm512_add_epi32(isum[x], _mm512_mullo_epi32(_mm512_sub_epi32(acc[x][k], _mm512_set1_epi32(a[x].offsets[b][g])), sc));
      }
    }
  const __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + kQ6_Kr16D)));
  for (int x = 0; x < X; ++x) sums[x] = _mm512_add_ps(sums[x], _mm512_mul_ps(_mm512_cvtepi32_ps(isum[x]), _mm512_mul_ps(d, _mm512_set1_ps(a[x].blocks[b].d))));
}

}  // namespace

void q6_kr16_rows_avx512vnni(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  DB_CHECK(n_rows % kQ6_Kr16Rows == 0 && nb >= 1 && nb <= kQ6_Kr16MaxBlocks);
  k_quant_rows16<kQ6_Kr16Rows, kQ6_Kr16BlockBytes, kQ6_Kr16Scales, PreparedRow>(
      w, n_rows, xq, xq_stride, n_x, nb, y, y_stride, prepare, [](const uint8_t* block, int64_t b, int n, const PreparedRow* a, __m512* sums) {
        for_passes(n, [&](auto X, int p) { block_rows<X()>(block, a + p, b, sums + p); });
      });
}

}  // namespace draftbench
