// Byte layouts of the quantised blocks, in file order (ggml-common.h), and the K-quant
// scale unpacking: plain structs and DB_HOST_DEVICE code, so the CPU kernels and the CUDA
// kernels read blocks through one definition. `half` fields are IEEE fp16 stored as uint16_t
// (decoded by blocks.h on the CPU, kernels/cuda/quant_layout.h on the device).
#pragma once

#include <cstdint>

#include "kernels/runtime/host_device.h"

namespace draftbench {

struct BlockQ4_0 {
  uint16_t d;
  uint8_t qs[16];
};
struct BlockQ4_1 {
  uint16_t d, m;
  uint8_t qs[16];
};
struct BlockQ5_0 {
  uint16_t d;
  uint8_t qh[4];
  uint8_t qs[16];
};
struct BlockQ5_1 {
  uint16_t d, m;
  uint8_t qh[4];
  uint8_t qs[16];
};
struct BlockQ8_0 {
  uint16_t d;
  int8_t qs[32];
};
struct BlockQ8_1 {
  uint16_t d, s;
  int8_t qs[32];
};  // s = d * sum(qs)
struct BlockQ4_K {
  uint16_t d, dmin;
  uint8_t scales[12];
  uint8_t qs[128];
};  // also Q4_Kt's, qs transposed (q4_k_transpose.h)
struct BlockQ5_K {
  uint16_t d, dmin;
  uint8_t scales[12];
  uint8_t qh[32];
  uint8_t qs[128];
};
struct BlockQ6_K {
  uint8_t ql[128];
  uint8_t qh[64];
  int8_t scales[16];
  uint16_t d;
};
struct BlockQ8_K {
  float d;
  int8_t qs[256];
  int16_t bsums[16];
};  // activations only
// Four Q5_0 blocks repacked for the x86 kernels (q5_0_repack.h; not a file type), the same
// bytes as the blocks: the scales, then per pair of code registers one byte per position
// with one register's 5-bit code and three bits of the other's, and a plane of the other's
// top two bits.
struct BlockQ5_0x4 {
  uint16_t d[4];
  uint8_t qh[16];
  uint8_t qs[64];
};

static_assert(sizeof(BlockQ4_0) == 18 && sizeof(BlockQ4_1) == 20 && sizeof(BlockQ5_0) == 22 && sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockQ8_0) == 34 && sizeof(BlockQ8_1) == 36 && sizeof(BlockQ8_K) == 292 && sizeof(BlockQ5_0x4) == 88);
static_assert(sizeof(BlockQ4_K) == 144 && sizeof(BlockQ5_K) == 176 && sizeof(BlockQ6_K) == 210);

// The 6-bit scale and min of sub-block j (0..7) of a Q4_K/Q5_K block.
DB_HOST_DEVICE inline void k_scale_min(int j, const uint8_t* s, uint8_t& sc, uint8_t& m) {
  if (j < 4) {
    sc = s[j] & 63;
    m = s[j + 4] & 63;
  } else {
    sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
    m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

}  // namespace draftbench
