// What the CUDA products need beyond the shared block layouts (kernels/quant/block_layout.h):
// an fp16 decode in host-device code (blocks.h's uses the host's _Float16). The emulation
// tests check it against fp16_to_fp32 on all 65536 codes.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/cuda/host_device.h"
#include "kernels/quant/block_layout.h"

namespace draftbench::cuda {

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

}  // namespace draftbench::cuda
