#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench {

void dot_rows(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y) {
  if (cpu_features().avx2) dot_rows_avx2(type, w, w_stride, n_rows, xq, n, y);
  else dot_rows_ref(type, w, w_stride, n_rows, xq, n, y);
}

void dot_rows_indexed(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y) {
  if (cpu_features().avx2) dot_rows_indexed_avx2(type, w, row_bytes, ids, n_ids, xq, n, y);
  else dot_rows_indexed_ref(type, w, row_bytes, ids, n_ids, xq, n, y);
}

const char* dot_rows_backend() { return cpu_features().avx2 ? "avx2" : "reference"; }

}  // namespace draftbench
