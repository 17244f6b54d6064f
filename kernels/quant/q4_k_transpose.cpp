#include "kernels/quant/q4_k_transpose.h"

namespace draftbench {
namespace {

// Code k (0..31) of nibble plane R (0..7), as q4_k_transpose.h numbers them.
int plane_code(const BlockQ4_K& b, int plane, int k) { return (b.qs[32 * (plane / 2) + k] >> (4 * (plane % 2))) & 0x0F; }

}  // namespace

void transpose_q4_k_codes(const BlockQ4_K* src, int64_t n_blocks, BlockQ4_K* dst) {
  for (int64_t i = 0; i < n_blocks; ++i) {
    const BlockQ4_K& in = src[i];
    BlockQ4_K& out = dst[i];
    out = in;  // scales and mins as they are; the codes are rewritten below
    // Group g of plane R takes group R of plane g; planes 2c and 2c + 1 share bytes 32c ..
    for (int c = 0; c < 4; ++c)
      for (int g = 0; g < 8; ++g)
        for (int e = 0; e < 4; ++e)
          out.qs[32 * c + 4 * g + e] = static_cast<uint8_t>(plane_code(in, g, 4 * (2 * c) + e) | plane_code(in, g, 4 * (2 * c + 1) + e) << 4);
  }
}

}  // namespace draftbench
