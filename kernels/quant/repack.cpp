#include "kernels/quant/repack.h"

#include <cstring>

#include "kernels/runtime/check.h"

namespace draftbench {

void repack_rows_to_q8_0(GgmlType type, const uint8_t* src, size_t src_stride, int64_t n_rows, int64_t n, BlockQ8_0* dst) {
  DB_CHECK(repacks_to_q8_0(type));
  const int64_t nb = n / 32;
  for (int64_t r = 0; r < n_rows; ++r, src += src_stride) {
    for (int64_t i = 0; i < nb; ++i) {
      BlockQ8_0& out = dst[r * nb + i];
      if (type == GgmlType::Q4_0) {
        const auto& b = reinterpret_cast<const BlockQ4_0*>(src)[i];
        out.d = b.d;
        for (int j = 0; j < 16; ++j) {
          out.qs[j] = static_cast<int8_t>((b.qs[j] & 0xF) - 8);
          out.qs[j + 16] = static_cast<int8_t>((b.qs[j] >> 4) - 8);
        }
      } else {
        const auto& b = reinterpret_cast<const BlockQ5_0*>(src)[i];
        uint32_t qh;
        std::memcpy(&qh, b.qh, 4);
        out.d = b.d;
        for (int j = 0; j < 16; ++j) {
          out.qs[j] = static_cast<int8_t>(((b.qs[j] & 0xF) | (((qh >> j) << 4) & 0x10)) - 16);
          out.qs[j + 16] = static_cast<int8_t>(((b.qs[j] >> 4) | ((qh >> (j + 12)) & 0x10)) - 16);
        }
      }
    }
  }
}

}  // namespace draftbench
