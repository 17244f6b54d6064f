#include "kernels/quant/quantize_activation.h"

#include <cmath>
#include <cstring>

#include "kernels/quant/block_repack.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/quantize_block.h"
#include "kernels/quant/row_groups.h"
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

void round_to_bf16(const float* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = fp32_to_bf16_rne(x[i]);
}

}  // namespace

GgmlType activation_type_for(GgmlType weight_type) {
  if (const auto from = repacked_from(weight_type)) return activation_type_for(*from);
  if (const RowGroupLayout* g = row_group_layout(weight_type)) return activation_type_for(g->file_type);
  switch (weight_type) {
    case GgmlType::Q4_0:
    case GgmlType::Q5_0:
    case GgmlType::Q8_0: return GgmlType::Q8_0;
    case GgmlType::Q4_1:
    case GgmlType::Q5_1: return GgmlType::Q8_1;
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
    case GgmlType::Q6_K: return GgmlType::Q8_K;
    case GgmlType::BF16: return GgmlType::BF16;  // vdpbf16ps's operands (vec_dot.h)
    default: return GgmlType::F32;
  }
}

size_t activation_row_bytes(GgmlType weight_type, int64_t n) { return ggml_row_bytes(activation_type_for(weight_type), n); }

void quantize_activation_row_ref(GgmlType weight_type, const float* x, void* dst, int64_t n) {
  switch (activation_type_for(weight_type)) {
    case GgmlType::Q8_0: quantize_q8_0(x, static_cast<BlockQ8_0*>(dst), n / 32); break;
    case GgmlType::Q8_1: quantize_q8_1(x, static_cast<BlockQ8_1*>(dst), n / 32); break;
    case GgmlType::Q8_K: quantize_q8_k(x, static_cast<BlockQ8_K*>(dst), n / QK_K); break;
    case GgmlType::BF16: round_to_bf16(x, static_cast<uint16_t*>(dst), n); break;
    case GgmlType::F32: std::memcpy(dst, x, static_cast<size_t>(n) * sizeof(float)); break;
    default: DB_CHECK(!"no activation type");
  }
}

void quantize_activation_row(GgmlType weight_type, const float* x, void* dst, int64_t n) {
  const CpuFeatures& f = cpu_features();
  if (activation_type_for(weight_type) == GgmlType::BF16 && f.avx512bf16 && f.avx512bw && f.avx512vl)
    return quantize_activation_row_avx512bf16(weight_type, x, dst, n);
  if (f.avx2) return quantize_activation_row_avx2(weight_type, x, dst, n);
  quantize_activation_row_ref(weight_type, x, dst, n);
}

}  // namespace draftbench
