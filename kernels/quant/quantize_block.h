// One activation block's quantisation, written once for the host (quantize_activation.cpp)
// and the device (kernels/cuda/quantize_activation_thread.h), so both quantise alike by
// construction: fabs, fmax, correctly rounded divisions and multiplies, round-half-even
// (rintf in the default rounding mode). The fp16 scale of a Q8_0 block is left to the
// caller, which encodes it with its own exact fp16 conversion (F16C on the host).
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/quant/block_layout.h"
#include "kernels/quant/ggml_type.h"
#include "kernels/runtime/host_device.h"

namespace draftbench {

// A block whose largest magnitude is below this quantises to zeros: 127 / max|x| would
// overflow for the smallest ones, turning codes into infinities and NaNs whose int8
// conversion is undefined (and the fp16 scale of such a block is 0 anyway).
inline constexpr float kQuantMinMagnitude = 1e-30f;

// What a Q8_0 block's values are multiplied by before rounding, from their largest magnitude.
DB_HOST_DEVICE inline float q8_0_code_scale(float amax) { return amax >= kQuantMinMagnitude ? 127.0f / amax : 0.0f; }

// 32 values to int8 codes in qs; returns the block's scale d = max|x| / 127.
DB_HOST_DEVICE inline float quantize_q8_0_codes(const float* x, int8_t* qs) {
  float amax = 0.0f;
  for (int j = 0; j < 32; ++j) amax = fmaxf(amax, fabsf(x[j]));
  const float id = q8_0_code_scale(amax);
  for (int j = 0; j < 32; ++j) qs[j] = static_cast<int8_t>(rintf(x[j] * id));
  return amax / 127.0f;
}

// 256 values as ggml's Q8_K: the largest magnitude maps to -128, so the full int8 range is used.
DB_HOST_DEVICE inline void quantize_q8_k_block(const float* x, BlockQ8_K& y) {
  float max = 0.0f, amax = 0.0f;
  for (int j = 0; j < QK_K; ++j) {
    const float ax = fabsf(x[j]);
    if (ax > amax) {
      amax = ax;
      max = x[j];
    }
  }
  if (!(amax >= kQuantMinMagnitude)) {
    y.d = 0.0f;
    for (int j = 0; j < QK_K; ++j) y.qs[j] = 0;
    for (int g = 0; g < QK_K / 16; ++g) y.bsums[g] = 0;
    return;
  }
  const float iscale = -128.0f / max;
  for (int j = 0; j < QK_K; ++j) {
    const float v = rintf(iscale * x[j]);
    y.qs[j] = static_cast<int8_t>(v > 127.0f ? 127.0f : v);
  }
  for (int g = 0; g < QK_K / 16; ++g) {
    int sum = 0;
    for (int j = 0; j < 16; ++j) sum += y.qs[g * 16 + j];
    y.bsums[g] = static_cast<int16_t>(sum);
  }
  y.d = 1.0f / iscale;
}

}  // namespace draftbench
