// The quantised blocks on the CPU: their layouts (block_layout.h) and the fp16/bf16
// conversions, which use the host's _Float16 and so stay out of device code.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/quant/block_layout.h"
#include "kernels/quant/ggml_type.h"
#ifndef __FLT16_MAX__
#include "kernels/cuda/quant_layout.h"
#endif

namespace draftbench {

// fp16 <-> fp32 with the hardware conversion (F16C is baseline on every CPU we target).
// A compiler without _Float16 on x86 (clang before 15: the `fuzz` preset's clang-14) gets
// the portable conversions of quant_layout.h, which equal these on every input.
#ifdef __FLT16_MAX__
inline float fp16_to_fp32(uint16_t h) {
  _Float16 f;
  std::memcpy(&f, &h, 2);
  return static_cast<float>(f);
}
inline uint16_t fp32_to_fp16(float x) {
  _Float16 f = static_cast<_Float16>(x);
  uint16_t h;
  std::memcpy(&h, &f, 2);
  return h;
}
#else
inline float fp16_to_fp32(uint16_t h) { return cuda::half_to_float(h); }
inline uint16_t fp32_to_fp16(float x) { return cuda::float_to_half(x); }
#endif
inline float bf16_to_fp32(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// f32 -> bf16 exactly as vcvtneps2bf16 converts (checked against it on all 2^32 inputs):
// round to nearest even (overflow gives infinity); zero and denormal inputs give a zero of
// their sign; a NaN keeps its sign and top payload bits and becomes quiet.
inline uint16_t fp32_to_bf16_rne(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7F800000u) == 0) return static_cast<uint16_t>((u >> 16) & 0x8000u);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace draftbench
