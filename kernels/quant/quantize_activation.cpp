#include "kernels/quant/quantize_activation.h"

#include <cmath>
#include <cstring>

#include "kernels/quant/blocks.h"
#include "kernels/quant/quantize_block.h"
#include "kernels/runtime/check.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench {
namespace {

void quantize_q8_0(const float* x, BlockQ8_0* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += 32) y[i].d = fp32_to_fp16(quantize_q8_0_codes(x, y[i].qs));
}

void quantize_q8_1(const float* x, BlockQ8_1* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += 32) {
    const float d = quantize_q8_0_codes(x, y[i].qs);
    int sum = 0;
    for (int j = 0; j < 32; ++j) sum += y[i].qs[j];
    y[i].d = fp32_to_fp16(d);
    y[i].s = fp32_to_fp16(static_cast<float>(sum) * d);
  }
}

void quantize_q8_k(const float* x, BlockQ8_K* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += QK_K) quantize_q8_k_block(x, y[i]);
}

}  // namespace

GgmlType activation_type_for(GgmlType weight_type) {
  switch (weight_type) {
    case GgmlType::Q4_0: case GgmlType::Q5_0: case GgmlType::Q8_0: return GgmlType::Q8_0;
    case GgmlType::Q4_1: case GgmlType::Q5_1: return GgmlType::Q8_1;
    case GgmlType::Q4_K: case GgmlType::Q5_K: case GgmlType::Q6_K: return GgmlType::Q8_K;
    default: return GgmlType::F32;
  }
}

size_t activation_row_bytes(GgmlType weight_type, int64_t n) {
  return ggml_row_bytes(activation_type_for(weight_type), n);
}

void quantize_activation_row_ref(GgmlType weight_type, const float* x, void* dst, int64_t n) {
  switch (activation_type_for(weight_type)) {
    case GgmlType::Q8_0: quantize_q8_0(x, static_cast<BlockQ8_0*>(dst), n / 32); break;
    case GgmlType::Q8_1: quantize_q8_1(x, static_cast<BlockQ8_1*>(dst), n / 32); break;
    case GgmlType::Q8_K: quantize_q8_k(x, static_cast<BlockQ8_K*>(dst), n / QK_K); break;
    case GgmlType::F32: std::memcpy(dst, x, static_cast<size_t>(n) * sizeof(float)); break;
    default: DB_CHECK(!"no activation type");
  }
}

void quantize_activation_row(GgmlType weight_type, const float* x, void* dst, int64_t n) {
  if (cpu_features().avx2) return quantize_activation_row_avx2(weight_type, x, dst, n);
  quantize_activation_row_ref(weight_type, x, dst, n);
}

}  // namespace draftbench
