#include "kernels/quant/q8_0_rows16.h"

#include <cmath>
#include <cstring>

#include "kernels/quant/blocks.h"
#include "kernels/runtime/check.h"
#include "kernels/quant/vec_dot.h"

namespace draftbench {
namespace {

// Row `lane` of the group at `group` against one activation row: the header's contract.
float lane_dot(const uint8_t* group, int lane, const BlockQ8_0* x, int64_t nb) {
  float y = 0.0f;
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* block = q8_0r16_codes(group, b);
    int32_t s = 0;
    for (int k = 0; k < 8; ++k)
      for (int j = 0; j < 4; ++j) s += (static_cast<int32_t>(block[k * kQ8_0r16ChunkBytes + 4 * lane + j]) - 128) * x[b].qs[4 * k + j];
    y = std::fma(static_cast<float>(s), fp16_to_fp32(q8_0r16_scales(group, b)[lane]) * fp16_to_fp32(x[b].d), y);
  }
  return y;
}

// The VNNI build exactly where the dot products' dispatcher picks theirs.
bool has_vnni() { return std::strcmp(dot_rows_backend(), "avx512vnni") == 0; }

}  // namespace

void interleave_q8_0_rows16(const uint8_t* rows, size_t row_bytes, int64_t n_rows, int64_t nb, uint8_t* dst) {
  DB_CHECK(n_rows % kQ8_0r16Rows == 0 && nb % 2 == 0 && row_bytes == static_cast<size_t>(nb) * sizeof(BlockQ8_0));
  const size_t group_bytes = q8_0r16_group_bytes(nb);
  for (int64_t g = 0; g < n_rows / kQ8_0r16Rows; ++g) {
    uint8_t* group = dst + static_cast<size_t>(g) * group_bytes;
    for (int lane = 0; lane < kQ8_0r16Rows; ++lane)
      for (int64_t b = 0; b < nb; ++b) {
        BlockQ8_0 in;
        std::memcpy(&in, rows + static_cast<size_t>(g * kQ8_0r16Rows + lane) * row_bytes + static_cast<size_t>(b) * sizeof(BlockQ8_0), sizeof in);
        const_cast<uint16_t*>(q8_0r16_scales(group, b))[lane] = in.d;
        uint8_t* block = const_cast<uint8_t*>(q8_0r16_codes(group, b));
        for (int k = 0; k < 8; ++k)
          for (int j = 0; j < 4; ++j) block[k * kQ8_0r16ChunkBytes + 4 * lane + j] = static_cast<uint8_t>(in.qs[4 * k + j] + 128);
      }
  }
}

void q8_0r16_rows_ref(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  DB_CHECK(n_rows % kQ8_0r16Rows == 0);
  const size_t group_bytes = q8_0r16_group_bytes(nb);
  for (int64_t x = 0; x < n_x; ++x) {
    const auto* xb = reinterpret_cast<const BlockQ8_0*>(xq + static_cast<size_t>(x) * xq_stride);
    for (int64_t r = 0; r < n_rows; ++r)
      y[static_cast<size_t>(x) * y_stride + static_cast<size_t>(r)] =
          lane_dot(w + static_cast<size_t>(r / kQ8_0r16Rows) * group_bytes, static_cast<int>(r % kQ8_0r16Rows), xb, nb);
  }
}

void q8_0r16_rows(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  if (nb <= kQ8_0r16MaxBlocks && has_vnni()) return q8_0r16_rows_avx512vnni(w, n_rows, xq, xq_stride, n_x, nb, y, y_stride);
  q8_0r16_rows_ref(w, n_rows, xq, xq_stride, n_x, nb, y, y_stride);
}

void q8_0r16_indexed(const uint8_t* w, const int32_t* ids, int64_t n_ids, const void* xq, int64_t nb, float* y) {
  const auto* xb = static_cast<const BlockQ8_0*>(xq);
  const size_t group_bytes = q8_0r16_group_bytes(nb);
  for (int64_t k = 0; k < n_ids; ++k) y[k] = lane_dot(w + static_cast<size_t>(ids[k] / kQ8_0r16Rows) * group_bytes, ids[k] % kQ8_0r16Rows, xb, nb);
}

}  // namespace draftbench
