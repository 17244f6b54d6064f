#include "kernels/quant/q4_k_rows16.h"

#include <cstring>

#include "kernels/quant/row_group_reference.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

// The 6-bit values of a block: low nibbles at `nibbles`, top two bits at `tops`.
void put_6bit(uint8_t* nibbles, uint8_t* tops, int k, uint8_t v) {
  nibbles[k / 2] = static_cast<uint8_t>(nibbles[k / 2] | ((v & 0xF) << (4 * (k % 2))));
  tops[k / 4] = static_cast<uint8_t>(tops[k / 4] | ((v >> 4) << (2 * (k % 4))));
}
uint8_t get_6bit(const uint8_t* nibbles, const uint8_t* tops, int k) {
  return static_cast<uint8_t>(((nibbles[k / 2] >> (4 * (k % 2))) & 0xF) | (((tops[k / 4] >> (2 * (k % 4))) & 3) << 4));
}

// The file's 12-byte field from the eight scales and mins, the inverse of k_scale_min: every
// one of its 96 bits holds one of theirs, so the bytes come back exactly.
void pack_scales_mins(const uint8_t (&sc)[8], const uint8_t (&m)[8], uint8_t* s) {
  for (int j = 0; j < 4; ++j) {
    s[j] = static_cast<uint8_t>(sc[j] | ((sc[j + 4] >> 4) << 6));
    s[j + 4] = static_cast<uint8_t>(m[j] | ((m[j + 4] >> 4) << 6));
    s[j + 8] = static_cast<uint8_t>((sc[j + 4] & 0xF) | ((m[j + 4] & 0xF) << 4));
  }
}

using Reference = UnpackedReference<BlockQ4_K, GgmlType::Q4_K, kQ4_Kr16Rows, q4_kr16_unpack_row>;

}  // namespace

void interleave_q4_k_rows16(const uint8_t* rows, size_t row_bytes, int64_t n_rows, int64_t nb, uint8_t* dst) {
  DB_CHECK(n_rows % kQ4_Kr16Rows == 0 && nb >= 1 && row_bytes == static_cast<size_t>(nb) * sizeof(BlockQ4_K));
  std::memset(dst, 0, q4_kr16_group_bytes(nb) * static_cast<size_t>(n_rows / kQ4_Kr16Rows));
  for (int64_t g = 0; g < n_rows / kQ4_Kr16Rows; ++g)
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t* out = dst + static_cast<size_t>(g) * q4_kr16_group_bytes(nb) + static_cast<size_t>(b) * kQ4_Kr16BlockBytes;
      for (int r = 0; r < kQ4_Kr16Rows; ++r) {
        BlockQ4_K in;
        std::memcpy(&in, rows + static_cast<size_t>(g * kQ4_Kr16Rows + r) * row_bytes + static_cast<size_t>(b) * sizeof(BlockQ4_K), sizeof in);
        for (int m = 0; m < 4; ++m)
          for (int t = 0; t < 8; ++t) std::memcpy(out + kQ4_Kr16ChunkBytes * (4 * t + m) + 4 * r, in.qs + 32 * m + 4 * t, 4);
        std::memcpy(out + kQ4_Kr16D + 2 * r, &in.d, 2);
        std::memcpy(out + kQ4_Kr16Dmin + 2 * r, &in.dmin, 2);
        for (int j = 0; j < 8; ++j) {
          uint8_t sc, m;
          k_scale_min(j, in.scales, sc, m);
          put_6bit(out + kQ4_Kr16ScaleNibbles, out + kQ4_Kr16ScaleTops, q4_kr16_scale_index(r, j), sc);
          put_6bit(out + kQ4_Kr16MinNibbles, out + kQ4_Kr16MinTops, q4_kr16_min_index(r, j), m);
        }
      }
    }
}

void q4_kr16_unpack_row(const uint8_t* group, int lane, int64_t nb, BlockQ4_K* out) {
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* in = group + static_cast<size_t>(b) * kQ4_Kr16BlockBytes;
    BlockQ4_K& o = out[b];
    for (int m = 0; m < 4; ++m)
      for (int t = 0; t < 8; ++t) std::memcpy(o.qs + 32 * m + 4 * t, in + kQ4_Kr16ChunkBytes * (4 * t + m) + 4 * lane, 4);
    std::memcpy(&o.d, in + kQ4_Kr16D + 2 * lane, 2);
    std::memcpy(&o.dmin, in + kQ4_Kr16Dmin + 2 * lane, 2);
    uint8_t sc[8], m[8];
    for (int j = 0; j < 8; ++j) {
      sc[j] = get_6bit(in + kQ4_Kr16ScaleNibbles, in + kQ4_Kr16ScaleTops, q4_kr16_scale_index(lane, j));
      m[j] = get_6bit(in + kQ4_Kr16MinNibbles, in + kQ4_Kr16MinTops, q4_kr16_min_index(lane, j));
    }
    pack_scales_mins(sc, m, o.scales);
  }
}

void q4_kr16_rows_ref(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  Reference::rows(w, n_rows, xq, xq_stride, n_x, nb, y, y_stride);
}

void q4_kr16_rows(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride) {
  if (nb <= kQ4_Kr16MaxBlocks && row_groups_have_vnni()) return q4_kr16_rows_avx512vnni(w, n_rows, xq, xq_stride, n_x, nb, y, y_stride);
  Reference::rows(w, n_rows, xq, xq_stride, n_x, nb, y, y_stride);
}

void q4_kr16_indexed(const uint8_t* w, const int32_t* ids, int64_t n_ids, const void* xq, int64_t nb, float* y) {
  Reference::indexed(w, ids, n_ids, xq, nb, y);
}

}  // namespace draftbench
