// What the CUDA products need beyond the shared block layouts (kernels/quant/block_layout.h):
// fp16 decode and fp16/bf16 encode in host-device code (blocks.h's use the host's F16C and
// _Float16). The emulation tests check them against blocks.h: the decode on all 65536
// codes, the encodes on every rounding boundary and a sweep of the float range.
#pragma once

#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/quant/block_layout.h"

namespace draftbench::cuda {

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
  if (exponent == 0x1F) return bit_cast_of<float>(sign | 0x7F800000u | (mantissa ? 0x400000u : 0u) | (mantissa << 13));
  return bit_cast_of<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));  // rebias 15 -> 127
}

// binary32 to binary16, rounding to nearest even (F16C's conversion with the default
// rounding mode, and CUDA's __float2half_rn). NaNs come out quiet with the payload's top
// bits, as F16C makes them.
DB_HOST_DEVICE inline uint16_t float_to_half(float f) {
  const uint32_t x = bit_cast_of<uint32_t>(f), magnitude = x & 0x7FFFFFFFu;
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  if (magnitude > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((magnitude >> 13) & 0x3FFu));
  // 65520 (0x477FF000) lies halfway between the largest half, 65504, whose last mantissa
  // bit is odd, and 65536: it and everything above round to infinity.
  if (magnitude >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  auto round_shifted = [](uint32_t value, uint32_t shift) {  // value >> shift, nearest even
    const uint32_t q = value >> shift, rest = value & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    return q + ((rest > half || (rest == half && (q & 1u))) ? 1u : 0u);
  };
  if (magnitude >= 0x38800000u)  // normal half (>= 2^-14): rebias 127 -> 15; a carry may reach the next binade
    return static_cast<uint16_t>(sign | round_shifted(magnitude - 0x38000000u, 13));
  // Subnormal half: the value in units of 2^-24. Below 2^-25 (exponent 102) that is under
  // half a unit; 2^-25 itself is a tie and goes to the even 0.
  const uint32_t exponent = magnitude >> 23;
  if (exponent < 102) return sign;
  return static_cast<uint16_t>(sign | round_shifted((magnitude & 0x7FFFFFu) | 0x800000u, 126u - exponent));
}

// binary32 to bfloat16 (the top half), rounding to nearest even; NaNs stay NaN (quiet).
DB_HOST_DEVICE inline uint16_t float_to_bf16(float f) {
  const uint32_t x = bit_cast_of<uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace draftbench::cuda
