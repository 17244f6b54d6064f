// What the AVX-512 VNNI kernels of the row-interleaved K-quants (q4_k_rows16_avx512.cpp,
// q6_k_rows16_avx512.cpp) share: include only from those and q5_0_rows16_avx512.cpp (which
// takes the row counts, broadcast_codes and for_passes). Both take sixteen rows per 512-bit
// register, Q8_K activation rows prepared eight at a time, and per group the blocks in order,
// each block's work split into passes of up to four activation rows whose lane sums carry
// from block to block.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/quant/blocks.h"
#include "kernels/quant/row_count.h"

namespace draftbench {
namespace {

// Activation rows prepared at a time; each block's codes are read once per pass, from L1.
constexpr int kRowsPerGroupPass = 8;
// Activation rows per pass over a block: their accumulators and sums fit the 32 registers.
constexpr int kRowsPerPass = 4;

// Four activation codes (the bytes at p) in every lane, against four codes of each row.
inline __m512i broadcast_codes(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}

// pass(X, first) for passes of up to kRowsPerPass of n activation rows (X a
// std::integral_constant, first the pass's first row).
template <typename Pass>
inline void for_passes(int n, Pass pass) {
  for (int p = 0; p < n; p += kRowsPerPass) with_row_count<kRowsPerPass>(n - p, [&](auto X) { pass(X, p); });
}

// The rows of w (whole groups of kRows, group_bytes apart) against n_x activation rows
// xq_stride bytes apart, into y[x * y_stride + r]. Each activation row is prepared with
// prepare(blocks, nb, Prepared&); per group, each block b (block_bytes apart) first asks for
// the lines of [tail, block_bytes) a block ahead (its codes ask for theirs as they are read),
// then block(block, b, n, prepared, sums) adds block b against the n prepared rows to their
// lane sums (for_passes splits that into passes).
template <int kRows, size_t kBlockBytes, size_t kTail, typename Prepared, typename Prepare, typename Block>
void k_quant_rows16(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride, Prepare prepare,
                    Block block) {
  const size_t group_bytes = static_cast<size_t>(nb) * kBlockBytes;
  Prepared a[kRowsPerGroupPass];
  for (int64_t x0 = 0; x0 < n_x; x0 += kRowsPerGroupPass) {
    const int rows_here = static_cast<int>(std::min<int64_t>(kRowsPerGroupPass, n_x - x0));
    for (int x = 0; x < rows_here; ++x) prepare(reinterpret_cast<const BlockQ8_K*>(xq + static_cast<size_t>(x0 + x) * xq_stride), nb, a[x]);
    for (int64_t g = 0; g < n_rows / kRows; ++g) {
      const uint8_t* group = w + static_cast<size_t>(g) * group_bytes;
      __m512 sums[kRowsPerGroupPass];
      for (int x = 0; x < rows_here; ++x) sums[x] = _mm512_setzero_ps();
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* at = group + static_cast<size_t>(b) * kBlockBytes;
        for (size_t off = kTail; off < kBlockBytes; off += 64) _mm_prefetch(reinterpret_cast<const char*>(at) + kBlockBytes + off, _MM_HINT_T0);
        block(at, b, rows_here, a, sums);
      }
      float* out = y + static_cast<size_t>(x0) * y_stride + static_cast<size_t>(g) * kRows;
      for (int x = 0; x < rows_here; ++x) _mm512_storeu_ps(out + static_cast<size_t>(x) * y_stride, sums[x]);
    }
  }
}

}  // namespace
}  // namespace draftbench
