// On-the-fly quantisation of activation rows on the device, one thread per quant block:
// Q8_0 blocks for Q8_0/Q5_0 weights, Q8_K for the K-quants, as
// quantize_activation_row (kernels/quant/quantize_activation.h) writes them, bit for bit.
// The arithmetic is that reference's (fabs, fmax, correctly rounded divisions and
// multiplies, round-half-even), so the device quantises exactly as the host does and the
// products that follow stay bit-identical to the CPU's. Shared by the CUDA kernel and the
// CPU emulation.
#pragma once

#include <math.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/quant_layout.h"
#include "kernels/quant/ggml_type.h"

namespace draftbench::cuda {

inline constexpr unsigned kQuantizeThreads = 128;

enum class ActivationBlocks : int { kQ8_0, kQ8_K };

struct QuantizeActivationArgs {
  const float* x;      // n_rows rows of n values, x_stride floats apart
  int64_t x_stride;
  int64_t n_rows;
  int64_t n;           // a multiple of the block size
  void* xq;            // n_rows rows of n / block-size blocks, xq_stride bytes apart
  size_t xq_stride;
  ActivationBlocks blocks;
};

DB_HOST_DEVICE inline void quantize_block_q8_0(const float* x, BlockQ8_0& y) {
  float amax = 0.0f;
  for (int j = 0; j < 32; ++j) amax = fmaxf(amax, fabsf(x[j]));
  const float d = amax / 127.0f;
  const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
  y.d = float_to_half(d);
  for (int j = 0; j < 32; ++j) y.qs[j] = static_cast<int8_t>(rintf(x[j] * id));
}

DB_HOST_DEVICE inline void quantize_block_q8_k(const float* x, BlockQ8_K& y) {
  float max = 0.0f, amax = 0.0f;
  for (int j = 0; j < QK_K; ++j) {
    const float ax = fabsf(x[j]);
    if (ax > amax) {
      amax = ax;
      max = x[j];
    }
  }
  if (amax == 0.0f) {
    y.d = 0.0f;
    for (int j = 0; j < QK_K; ++j) y.qs[j] = 0;
    for (int g = 0; g < QK_K / 16; ++g) y.bsums[g] = 0;
    return;
  }
  const float iscale = -128.0f / max;  // the largest magnitude maps to -128, as in ggml
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

inline Launch quantize_activation_launch(const QuantizeActivationArgs& a) {
  return {blocks_for(a.n / (a.blocks == ActivationBlocks::kQ8_0 ? 32 : QK_K), kQuantizeThreads), a.n_rows, Dim3{kQuantizeThreads}};
}

DB_HOST_DEVICE inline void quantize_activation_thread(const QuantizeActivationArgs& a, Dim3 block, Dim3 thread) {
  const int64_t row = block.y, b = static_cast<int64_t>(block.x) * kQuantizeThreads + thread.x;
  const int64_t size = a.blocks == ActivationBlocks::kQ8_0 ? 32 : QK_K;
  if (row >= a.n_rows || b >= a.n / size) return;
  const float* x = a.x + row * a.x_stride + b * size;
  uint8_t* out = static_cast<uint8_t*>(a.xq) + static_cast<size_t>(row) * a.xq_stride;
  if (a.blocks == ActivationBlocks::kQ8_0) quantize_block_q8_0(x, reinterpret_cast<BlockQ8_0*>(out)[b]);
  else quantize_block_q8_k(x, reinterpret_cast<BlockQ8_K*>(out)[b]);
}

}  // namespace draftbench::cuda
