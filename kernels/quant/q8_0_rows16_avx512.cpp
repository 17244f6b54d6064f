// The Q8_0r16 products with AVX-512 VNNI (q8_0_rows16.h): per block, eight vpdpbusd advance
// sixteen rows by four values each against broadcast activation codes, the block's integer
// sums become floats once, and one fused multiply-add per activation row applies the scale
// product: the header's contract, lane for lane.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/quant/blocks.h"
#include "kernels/quant/q8_0_rows16.h"
#include "kernels/quant/row_count.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

// Activation rows per pass over a group: eight accumulators, eight code registers and the
// sums in flight fit the 32 registers.
constexpr int kRowsPerPass = 8;
// Each block asks for the lines this far ahead of its codes: one activation row is a pure
// stream of the weights, and the hardware prefetcher alone does not keep enough of it in
// flight (kernels/bench/README.md, "The LM head by rows").
constexpr size_t kPrefetchAhead = 1024;

// One activation row as the kernel reads it: each block's codes as eight 32-bit words (four
// codes each, broadcast against a chunk), its scale as a float, and -128 times the sum of its
// codes, which takes back the +128 of the stored weight codes.
struct PreparedRow {
  alignas(64) int32_t q[kQ8_0r16MaxBlocks][8];
  float d[kQ8_0r16MaxBlocks];
  int32_t offset[kQ8_0r16MaxBlocks];
};

void prepare(const BlockQ8_0* x, int64_t nb, PreparedRow& p) {
  for (int64_t b = 0; b < nb; ++b) {
    std::memcpy(p.q[b], x[b].qs, sizeof p.q[b]);
    p.d[b] = fp16_to_fp32(x[b].d);
    int32_t sum = 0;
    for (int8_t c : x[b].qs) sum += c;
    p.offset[b] = -128 * sum;
  }
}

// The sixteen rows of one group against X prepared activation rows; row r against activation
// row x goes to y[x * y_stride + r]. One group at a time keeps one activation row's reads a
// single forward stream (two groups side by side were slower from one to two rows).
template <int X>
void group_rows(const uint8_t* group, const PreparedRow* a, int64_t nb, float* y, size_t y_stride) {
  __m512 acc[X];
  for (int x = 0; x < X; ++x) acc[x] = _mm512_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q8_0r16_scales(group, b))));
    const uint8_t* block = q8_0r16_codes(group, b);
    for (int k = 0; k < 8; ++k) _mm_prefetch(reinterpret_cast<const char*>(block + kPrefetchAhead + k * 64), _MM_HINT_T0);
    __m512i w[8];
    for (int k = 0; k < 8; ++k) w[k] = _mm512_loadu_si512(block + k * kQ8_0r16ChunkBytes);
    for (int x = 0; x < X; ++x) {
      // Two chains of four: integer adds are exact in any order.
      __m512i s0 = _mm512_set1_epi32(a[x].offset[b]), s1 = _mm512_setzero_si512();
      for (int k = 0; k < 8; k += 2) {
        s0 = _mm512_dpbusd_epi32(s0, w[k], _mm512_set1_epi32(a[x].q[b][k]));
        s1 = _mm512_dpbusd_epi32(s1, w[k + 1], _mm512_set1_epi32(a[x].q[b][k + 1]));
      }
      const __m512 scale = _mm512_mul_ps(dw, _mm512_set1_ps(a[x].d[b]));
      acc[x] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(s0, s1)), scale, acc[x]);
    }
  }
  for (int x = 0; x < X; ++x) _mm512_storeu_ps(y + static_cast<size_t>(x) * y_stride, acc[x]);
}

}  // namespace

void q8_0r16_rows_avx512vnni(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  DB_CHECK(n_rows % kQ8_0r16Rows == 0 && nb >= 2 && nb % 2 == 0 && nb <= kQ8_0r16MaxBlocks);
  const size_t group_bytes = q8_0r16_group_bytes(nb);
  PreparedRow a[kRowsPerPass];
  for (int64_t x0 = 0; x0 < n_x; x0 += kRowsPerPass) {
    const int rows_here = static_cast<int>(std::min<int64_t>(kRowsPerPass, n_x - x0));
    for (int x = 0; x < rows_here; ++x) prepare(reinterpret_cast<const BlockQ8_0*>(xq + static_cast<size_t>(x0 + x) * xq_stride), nb, a[x]);
    float* y_x = y + static_cast<size_t>(x0) * y_stride;
    with_row_count<kRowsPerPass>(rows_here, [&](auto X) {
      for (int64_t g = 0; g < n_rows / kQ8_0r16Rows; ++g) group_rows<X()>(w + static_cast<size_t>(g) * group_bytes, a, nb, y_x + g * kQ8_0r16Rows, y_stride);
    });
  }
}

}  // namespace draftbench
