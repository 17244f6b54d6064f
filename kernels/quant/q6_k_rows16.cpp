#include "kernels/quant/q6_k_rows16.h"

#include <cstring>

#include "kernels/quant/row_group_reference.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

// Where step (h, t)'s chunk k (0: ql, 1: ql + 32, 2: qh) keeps row r's four bytes, and the
// file bytes they are.
size_t chunk_at(int h, int t, int k, int r) {
  return static_cast<size_t>(8 * h + t) * kQ6_Kr16StepBytes + static_cast<size_t>(k) * kQ6_Kr16ChunkBytes + 4 * static_cast<size_t>(r);
}
template <typename Block>
auto* file_bytes(Block& b, int h, int t, int k) {
  return k == 2 ? b.qh + 32 * h + 4 * t : b.ql + 64 * h + 32 * k + 4 * t;
}

using Reference = UnpackedReference<BlockQ6_K, GgmlType::Q6_K, kQ6_Kr16Rows, q6_kr16_unpack_row>;

}  // namespace

void interleave_q6_k_rows16(const uint8_t* rows, size_t row_bytes, int64_t n_rows, int64_t nb, uint8_t* dst) {
  DB_CHECK(n_rows % kQ6_Kr16Rows == 0 && nb >= 1 && row_bytes == static_cast<size_t>(nb) * sizeof(BlockQ6_K));
  for (int64_t g = 0; g < n_rows / kQ6_Kr16Rows; ++g)
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t* out = dst + static_cast<size_t>(g) * q6_kr16_group_bytes(nb) + static_cast<size_t>(b) * kQ6_Kr16BlockBytes;
      for (int r = 0; r < kQ6_Kr16Rows; ++r) {
        BlockQ6_K in;
        std::memcpy(&in, rows + static_cast<size_t>(g * kQ6_Kr16Rows + r) * row_bytes + static_cast<size_t>(b) * sizeof(BlockQ6_K), sizeof in);
        for (int h = 0; h < 2; ++h)
          for (int t = 0; t < 8; ++t)
            for (int k = 0; k < 3; ++k) std::memcpy(out + chunk_at(h, t, k, r), file_bytes(in, h, t, k), 4);
        for (int s = 0; s < 16; ++s) out[kQ6_Kr16Scales + 16 * s + r] = static_cast<uint8_t>(in.scales[s]);
        std::memcpy(out + kQ6_Kr16D + 2 * r, &in.d, 2);
      }
    }
}

void q6_kr16_unpack_row(const uint8_t* group, int lane, int64_t nb, BlockQ6_K* out) {
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* in = group + static_cast<size_t>(b) * kQ6_Kr16BlockBytes;
    BlockQ6_K& o = out[b];
    for (int h = 0; h < 2; ++h)
      for (int t = 0; t < 8; ++t)
        for (int k = 0; k < 3; ++k) std::memcpy(file_bytes(o, h, t, k), in + chunk_at(h, t, k, lane), 4);
    for (int s = 0; s < 16; ++s) o.scales[s] = static_cast<int8_t>(in[kQ6_Kr16Scales + 16 * s + lane]);
    std::memcpy(&o.d, in + kQ6_Kr16D + 2 * lane, 2);
  }
}

void q6_kr16_rows_ref(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  Reference::rows(w, n_rows, xq, xq_stride, n_x, nb, y, y_stride);
}

void q6_kr16_rows(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  if (nb <= kQ6_Kr16MaxBlocks && row_groups_have_vnni()) return q6_kr16_rows_avx512vnni(w, n_rows, xq, xq_stride, n_x, nb, y, y_stride);
  Reference::rows(w, n_rows, xq, xq_stride, n_x, nb, y, y_stride);
}

void q6_kr16_indexed(const uint8_t* w, const int32_t* ids, int64_t n_ids, const void* xq, int64_t nb, float* y) {
  Reference::indexed(w, ids, n_ids, xq, nb, y);
}

}  // namespace draftbench
