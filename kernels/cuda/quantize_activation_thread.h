// On-the-fly quantisation of activation rows on the device, one thread per quant block:
// Q8_0 blocks for Q8_0/Q5_0 weights, Q8_K for the K-quants, as
// quantize_activation_row (kernels/quant/quantize_activation.h) writes them, bit for bit:
// the block arithmetic is the host's own (kernels/quant/quantize_block.h), and the fp16
// scale goes through the exact host-device encoder. So the products that follow stay
// bit-identical to the CPU's. Shared by the CUDA kernel and the CPU emulation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/quant_layout.h"
#include "kernels/quant/ggml_type.h"
#include "kernels/quant/quantize_block.h"

namespace draftbench::cuda {

inline constexpr unsigned kQuantizeThreads = 128;

enum class ActivationBlocks : int { kQ8_0, kQ8_K };

struct QuantizeActivationArgs {
  const float* x;  // n_rows rows of n values, x_stride floats apart
  int64_t x_stride;
  int64_t n_rows;
  int64_t n;  // a multiple of the block size
  void* xq;   // n_rows rows of n / block-size blocks, xq_stride bytes apart
  size_t xq_stride;
  ActivationBlocks blocks;
};

inline Launch quantize_activation_launch(const QuantizeActivationArgs& a) {
  return {blocks_for(a.n / (a.blocks == ActivationBlocks::kQ8_0 ? 32 : QK_K), kQuantizeThreads), a.n_rows, Dim3{kQuantizeThreads}};
}

DB_HOST_DEVICE inline void quantize_activation_thread(const QuantizeActivationArgs& a, Dim3 block, Dim3 thread) {
  const int64_t row = block.y, b = static_cast<int64_t>(block.x) * kQuantizeThreads + thread.x;
  const int64_t size = a.blocks == ActivationBlocks::kQ8_0 ? 32 : QK_K;
  if (row >= a.n_rows || b >= a.n / size) return;
  const float* x = a.x + row * a.x_stride + b * size;
  uint8_t* out = static_cast<uint8_t*>(a.xq) + static_cast<size_t>(row) * a.xq_stride;
  if (a.blocks == ActivationBlocks::kQ8_0) {
    BlockQ8_0& y = reinterpret_cast<BlockQ8_0*>(out)[b];
    y.d = float_to_half(quantize_q8_0_codes(x, y.qs));
  } else {
    quantize_q8_k_block(x, reinterpret_cast<BlockQ8_K*>(out)[b]);
  }
}

}  // namespace draftbench::cuda
