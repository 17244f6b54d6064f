// AVX2 (+FMA, F16C) build of the x86 dot-product kernels; see vec_dot_x86.h.
#include "kernels/quant/vec_dot.h"
#include "kernels/quant/vec_dot_x86.h"

namespace draftbench {

void dot_rows_avx2(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y) {
  dot_rows_x86(type, w, w_stride, n_rows, xq, n, y);
}

void dot_rows_indexed_avx2(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y) {
  dot_rows_indexed_x86(type, w, row_bytes, ids, n_ids, xq, n, y);
}

void dot_rows_batch_avx2(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n,
                         float* y, size_t y_stride) {
  dot_rows_batch_x86(type, w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride);
}

}  // namespace draftbench
