// AVX-512 BF16 build: BF16 weights against BF16 activations with vdpbf16ps, whose
// arithmetic vec_dot_ref.cpp's dot_bf16_pairs defines (probed on Zen 4: the odd value's
// product added first, each product exact, each add rounded to nearest even, denormal inputs
// read as zero and tiny sums flushed, both keeping the sign). One instruction takes a
// 32-value chunk onto the 16 lanes; the last chunk is loaded zero-padded (the reference's +0
// values) and the lanes fold as dot_float's. Also the activations' rounding to BF16 with
// vcvtneps2bf16, which fp32_to_bf16_rne reproduces on every input.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/quant/blocks.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/row_count.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/quant/zmm_lanes.h"

namespace draftbench {
namespace {

inline __m512bh load_bf16_chunk(const uint16_t* p, __mmask32 valid) { return reinterpret_cast<__m512bh>(_mm512_maskz_loadu_epi16(valid, p)); }

// One BF16 weight row against X activation rows, x_stride values apart.
template <int X>
void bf16_row_batch(const uint16_t* w, const uint16_t* x, size_t x_stride, int64_t n, float* out, size_t out_stride) {
  __m512 acc[X];
  for (int r = 0; r < X; ++r) acc[r] = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512bh wc = load_bf16_chunk(w + i, ~__mmask32{0});
    for (int r = 0; r < X; ++r) acc[r] = _mm512_dpbf16_ps(acc[r], wc, load_bf16_chunk(x + r * x_stride + i, ~__mmask32{0}));
  }
  if (i < n) {
    const __mmask32 valid = static_cast<__mmask32>((uint64_t{1} << (n - i)) - 1);
    const __m512bh wc = load_bf16_chunk(w + i, valid);
    for (int r = 0; r < X; ++r) acc[r] = _mm512_dpbf16_ps(acc[r], wc, load_bf16_chunk(x + r * x_stride + i, valid));
  }
  for (int r = 0; r < X; ++r) out[static_cast<size_t>(r) * out_stride] = fold_zmm_lanes(acc[r]);
}

// Weight rows row_at(0 .. n_rows) against n_x activation rows, xq_stride bytes apart:
// kZmmBatchRows activation rows at a time, every weight row passing over them (the caller's
// weight tile stays in cache while the activation groups take turns).
template <typename RowAt>
void bf16_rows(RowAt row_at, int64_t n_rows, const void* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y, size_t y_stride) {
  const auto* x = static_cast<const uint16_t*>(xq);
  const size_t x_stride = xq_stride / sizeof(uint16_t);
  for (int64_t x0 = 0; x0 < n_x; x0 += kZmmBatchRows) {
    const uint16_t* x_group = x + static_cast<size_t>(x0) * x_stride;
    float* y_group = y + static_cast<size_t>(x0) * y_stride;
    with_row_count<kZmmBatchRows>(static_cast<int>(std::min<int64_t>(kZmmBatchRows, n_x - x0)), [&](auto X) {
      for (int64_t r = 0; r < n_rows; ++r) bf16_row_batch<X()>(reinterpret_cast<const uint16_t*>(row_at(r)), x_group, x_stride, n, y_group + r, y_stride);
    });
  }
}

}  // namespace

void dot_rows_avx512bf16(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y) {
  if (type != GgmlType::BF16) return dot_rows_avx512vnni(type, w, w_stride, n_rows, xq, n, y);
  bf16_rows([&](int64_t r) { return w + static_cast<size_t>(r) * w_stride; }, n_rows, xq, 0, 1, n, y, 0);
}

void dot_rows_indexed_avx512bf16(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y) {
  if (type != GgmlType::BF16) return dot_rows_indexed_avx512vnni(type, w, row_bytes, ids, n_ids, xq, n, y);
  bf16_rows([&](int64_t r) { return w + static_cast<size_t>(ids[r]) * row_bytes; }, n_ids, xq, 0, 1, n, y, 0);
}

void dot_rows_batch_avx512bf16(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n,
                               float* y, size_t y_stride) {
  if (type != GgmlType::BF16) return dot_rows_batch_avx512vnni(type, w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride);
  bf16_rows([&](int64_t r) { return w + static_cast<size_t>(r) * w_stride; }, n_rows, xq, xq_stride, n_x, n, y, y_stride);
}

void quantize_activation_row_avx512bf16(GgmlType weight_type, const float* x, void* dst, int64_t n) {
  if (activation_type_for(weight_type) != GgmlType::BF16) return quantize_activation_row_avx2(weight_type, x, dst, n);
  auto* y = static_cast<uint16_t*>(dst);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 valid = n - i >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m256bh h = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(valid, x + i));
    _mm256_mask_storeu_epi16(y + i, valid, reinterpret_cast<__m256i>(h));
  }
}

}  // namespace draftbench
