// The quantised blocks the CUDA products read, as host-device code: byte layouts (the
// file's, as in kernels/quant/blocks.h, which uses _Float16 and so stays host-only), the
// fp16 decode and the K-quant 6-bit scale unpacking. The emulation tests check the layouts
// against blocks.h field by field and the decode against fp16_to_fp32 on all 65536 codes.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/cuda/host_device.h"

namespace draftbench::cuda {

inline constexpr int kQk = 256;  // values per K-quant super-block (QK_K)

struct BlockQ5_0 { uint16_t d; uint8_t qh[4]; uint8_t qs[16]; };
struct BlockQ8_0 { uint16_t d; int8_t qs[32]; };
struct BlockQ4_K { uint16_t d, dmin; uint8_t scales[12]; uint8_t qs[128]; };
struct BlockQ6_K { uint8_t ql[128]; uint8_t qh[64]; int8_t scales[16]; uint16_t d; };
struct BlockQ8_K { float d; int8_t qs[256]; int16_t bsums[16]; };  // activations only

static_assert(sizeof(BlockQ5_0) == 22 && sizeof(BlockQ8_0) == 34 && sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ6_K) == 210 && sizeof(BlockQ8_K) == 292);

DB_HOST_DEVICE inline float float_from_bits(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
#endif
}

// IEEE binary16 to binary32, exact for every number, without relying on either side's half
// type. NaNs keep their payload and come out quiet, as x86's F16C conversion makes them.
DB_HOST_DEVICE inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, which float holds exactly.
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1F) return float_from_bits(sign | 0x7F800000u | (mantissa ? 0x400000u : 0u) | (mantissa << 13));
  return float_from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));  // rebias 15 -> 127
}

// The 6-bit scale and min of sub-block j (0..7) of a Q4_K block: j < 4 sit in the low six
// bits of bytes j and j+4; j >= 4 take their low nibbles from byte j+4 and their top two
// bits from the spare high bits of bytes j-4 (scale) and j (min).
struct ScaleMin { int scale, min; };
DB_HOST_DEVICE inline ScaleMin k_quant_scale_min(int j, const uint8_t* s) {
  if (j < 4) return {s[j] & 63, s[j + 4] & 63};
  return {(s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4), (s[j + 4] >> 4) | ((s[j] >> 6) << 4)};
}

}  // namespace draftbench::cuda
