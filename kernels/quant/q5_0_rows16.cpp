#include "kernels/quant/q5_0_rows16.h"

#include <cstring>

#include "kernels/quant/row_group_reference.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

using Reference = UnpackedReference<BlockQ5_0, GgmlType::Q5_0, kQ5_0r16Rows, q5_0r16_unpack_row>;

}  // namespace

void interleave_q5_0_rows16(const uint8_t* rows, size_t row_bytes, int64_t n_rows, int64_t nb, uint8_t* dst) {
  DB_CHECK(n_rows % kQ5_0r16Rows == 0 && nb >= 1 && row_bytes == static_cast<size_t>(nb) * sizeof(BlockQ5_0));
  for (int64_t g = 0; g < n_rows / kQ5_0r16Rows; ++g)
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t* out = dst + static_cast<size_t>(g) * q5_0r16_group_bytes(nb) + static_cast<size_t>(b) * kQ5_0r16BlockBytes;
      for (int r = 0; r < kQ5_0r16Rows; ++r) {
        BlockQ5_0 in;
        std::memcpy(&in, rows + static_cast<size_t>(g * kQ5_0r16Rows + r) * row_bytes + static_cast<size_t>(b) * sizeof(BlockQ5_0), sizeof in);
        for (int k = 0; k < 4; ++k) std::memcpy(out + kQ5_0r16ChunkBytes * k + 4 * r, in.qs + 4 * k, 4);
        std::memcpy(out + kQ5_0r16Qh + 4 * r, in.qh, 4);
        std::memcpy(out + kQ5_0r16D + 2 * r, &in.d, 2);
      }
    }
}

void q5_0r16_unpack_row(const uint8_t* group, int lane, int64_t nb, BlockQ5_0* out) {
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* in = group + static_cast<size_t>(b) * kQ5_0r16BlockBytes;
    for (int k = 0; k < 4; ++k) std::memcpy(out[b].qs + 4 * k, in + kQ5_0r16ChunkBytes * k + 4 * lane, 4);
    std::memcpy(out[b].qh, in + kQ5_0r16Qh + 4 * lane, 4);
    std::memcpy(&out[b].d, in + kQ5_0r16D + 2 * lane, 2);
  }
}

void q5_0r16_rows_ref(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  Reference::rows(w, n_rows, xq, xq_stride, n_x, nb, y, y_stride);
}

void q5_0r16_rows(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  if (nb <= kQ5_0r16MaxBlocks && row_groups_have_vnni()) return q5_0r16_rows_avx512vnni(w, n_rows, xq, xq_stride, n_x, nb, y, y_stride);
  Reference::rows(w, n_rows, xq, xq_stride, n_x, nb, y, y_stride);
}

void q5_0r16_indexed(const uint8_t* w, const int32_t* ids, int64_t n_ids, const void* xq, int64_t nb, float* y) {
  Reference::indexed(w, ids, n_ids, xq, nb, y);
}

}  // namespace draftbench
