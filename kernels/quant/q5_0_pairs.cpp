#include "kernels/quant/q5_0_pairs.h"

#include <cstring>

namespace draftbench {
namespace {

uint32_t high_bits(const BlockQ5_0& b) {
  uint32_t h;
  std::memcpy(&h, b.qh, 4);
  return h;
}

}  // namespace

void repack_q5_0_pairs(const BlockQ5_0* blocks, int64_t n_pairs, BlockQ5_0x2* pairs) {
  for (int64_t p = 0; p < n_pairs; ++p) {
    const BlockQ5_0& b0 = blocks[2 * p];
    const BlockQ5_0& b1 = blocks[2 * p + 1];
    BlockQ5_0x2& out = pairs[p];
    std::memcpy(out.qs, b0.qs, 16);
    std::memcpy(out.qs + 16, b1.qs, 16);
    const uint32_t h0 = high_bits(b0), h1 = high_bits(b1);
    const uint64_t qh = (h0 & 0xFFFFu) | static_cast<uint64_t>(h1 & 0xFFFFu) << 16 | static_cast<uint64_t>(h0 >> 16) << 32 |
                        static_cast<uint64_t>(h1 >> 16) << 48;
    std::memcpy(out.qh, &qh, 8);
    out.d[0] = b0.d;
    out.d[1] = b1.d;
  }
}

void unpack_q5_0_pairs(const BlockQ5_0x2* pairs, int64_t n_pairs, BlockQ5_0* blocks) {
  for (int64_t p = 0; p < n_pairs; ++p) {
    const BlockQ5_0x2& in = pairs[p];
    uint64_t qh;
    std::memcpy(&qh, in.qh, 8);
    for (int b = 0; b < 2; ++b) {
      BlockQ5_0& out = blocks[2 * p + b];
      const auto h = static_cast<uint32_t>((qh >> (16 * b)) & 0xFFFFu) | static_cast<uint32_t>((qh >> (32 + 16 * b)) & 0xFFFFu) << 16;
      std::memcpy(out.qh, &h, 4);
      std::memcpy(out.qs, in.qs + 16 * b, 16);
      out.d = in.d[b];
    }
  }
}

}  // namespace draftbench
