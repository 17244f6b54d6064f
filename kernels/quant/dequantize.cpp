#include "kernels/quant/dequantize.h"

#include <vector>

#include "kernels/runtime/check.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/block_repack.h"

namespace draftbench {
namespace {

void dq_q4_0(const BlockQ4_0* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    const float d = fp16_to_fp32(b[i].d);
    for (int j = 0; j < 16; ++j) {
      y[j] = static_cast<float>((b[i].qs[j] & 0xF) - 8) * d;
      y[j + 16] = static_cast<float>((b[i].qs[j] >> 4) - 8) * d;
    }
  }
}

void dq_q4_1(const BlockQ4_1* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    const float d = fp16_to_fp32(b[i].d), m = fp16_to_fp32(b[i].m);
    for (int j = 0; j < 16; ++j) {
      y[j] = static_cast<float>(b[i].qs[j] & 0xF) * d + m;
      y[j + 16] = static_cast<float>(b[i].qs[j] >> 4) * d + m;
    }
  }
}

uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void dq_q5_0(const BlockQ5_0* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    const float d = fp16_to_fp32(b[i].d);
    const uint32_t qh = load_u32(b[i].qh);
    for (int j = 0; j < 16; ++j) {
      const int x0 = (b[i].qs[j] & 0xF) | (((qh >> j) << 4) & 0x10);
      const int x1 = (b[i].qs[j] >> 4) | ((qh >> (j + 12)) & 0x10);
      y[j] = static_cast<float>(x0 - 16) * d;
      y[j + 16] = static_cast<float>(x1 - 16) * d;
    }
  }
}

void dq_q5_1(const BlockQ5_1* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    const float d = fp16_to_fp32(b[i].d), m = fp16_to_fp32(b[i].m);
    const uint32_t qh = load_u32(b[i].qh);
    for (int j = 0; j < 16; ++j) {
      const int x0 = (b[i].qs[j] & 0xF) | (((qh >> j) << 4) & 0x10);
      const int x1 = (b[i].qs[j] >> 4) | ((qh >> (j + 12)) & 0x10);
      y[j] = static_cast<float>(x0) * d + m;
      y[j + 16] = static_cast<float>(x1) * d + m;
    }
  }
}

void dq_q8_0(const BlockQ8_0* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    const float d = fp16_to_fp32(b[i].d);
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(b[i].qs[j]) * d;
  }
}

void dq_q4_k(const BlockQ4_K* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i) {
    const float d = fp16_to_fp32(b[i].d), dmin = fp16_to_fp32(b[i].dmin);
    const uint8_t* q = b[i].qs;
    for (int c = 0; c < 4; ++c, q += 32) {
      uint8_t sc, m;
      k_scale_min(2 * c, b[i].scales, sc, m);
      const float d1 = d * sc, m1 = dmin * m;
      k_scale_min(2 * c + 1, b[i].scales, sc, m);
      const float d2 = d * sc, m2 = dmin * m;
      for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>(q[l] & 0xF) - m1;
      for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>(q[l] >> 4) - m2;
    }
  }
}

void dq_q5_k(const BlockQ5_K* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i) {
    const float d = fp16_to_fp32(b[i].d), dmin = fp16_to_fp32(b[i].dmin);
    const uint8_t* q = b[i].qs;
    for (int c = 0; c < 4; ++c, q += 32) {
      uint8_t sc, m;
      k_scale_min(2 * c, b[i].scales, sc, m);
      const float d1 = d * sc, m1 = dmin * m;
      k_scale_min(2 * c + 1, b[i].scales, sc, m);
      const float d2 = d * sc, m2 = dmin * m;
      const uint8_t u1 = static_cast<uint8_t>(1u << (2 * c)), u2 = static_cast<uint8_t>(2u << (2 * c));
      for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>((q[l] & 0xF) + (b[i].qh[l] & u1 ? 16 : 0)) - m1;
      for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>((q[l] >> 4) + (b[i].qh[l] & u2 ? 16 : 0)) - m2;
    }
  }
}

void dq_q6_k(const BlockQ6_K* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i) {
    const float d = fp16_to_fp32(b[i].d);
    const uint8_t* ql = b[i].ql;
    const uint8_t* qh = b[i].qh;
    const int8_t* sc = b[i].scales;
    for (int n = 0; n < 2; ++n, y += 128, ql += 64, qh += 32, sc += 8) {
      for (int l = 0; l < 32; ++l) {
        const int is = l / 16;
        const int q1 = static_cast<int>((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        const int q2 = static_cast<int>((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int q3 = static_cast<int>((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int q4 = static_cast<int>((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        y[l] = d * sc[is + 0] * q1;
        y[l + 32] = d * sc[is + 2] * q2;
        y[l + 64] = d * sc[is + 4] * q3;
        y[l + 96] = d * sc[is + 6] * q4;
      }
    }
  }
}

}  // namespace

void dequantize_row(GgmlType type, const void* src, float* dst, int64_t n) {
  const int64_t nb = n / ggml_type_info(type).block_size;
  switch (type) {
    case GgmlType::F32: std::memcpy(dst, src, static_cast<size_t>(n) * 4); break;
    case GgmlType::F16: {
      const auto* h = static_cast<const uint16_t*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32(h[i]);
      break;
    }
    case GgmlType::BF16: {
      const auto* h = static_cast<const uint16_t*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_fp32(h[i]);
      break;
    }
    case GgmlType::Q4_0: dq_q4_0(static_cast<const BlockQ4_0*>(src), dst, nb); break;
    case GgmlType::Q4_1: dq_q4_1(static_cast<const BlockQ4_1*>(src), dst, nb); break;
    case GgmlType::Q5_0: dq_q5_0(static_cast<const BlockQ5_0*>(src), dst, nb); break;
    case GgmlType::Q5_0x4:
    case GgmlType::Q4_Kt: {  // the file type's blocks
      std::vector<uint8_t> blocks(ggml_row_bytes(type, n));
      unpack_values(type, src, n, blocks.data());
      dequantize_row(*repacked_from(type), blocks.data(), dst, n);
      break;
    }
    case GgmlType::Q5_1: dq_q5_1(static_cast<const BlockQ5_1*>(src), dst, nb); break;
    case GgmlType::Q8_0: dq_q8_0(static_cast<const BlockQ8_0*>(src), dst, nb); break;
    case GgmlType::Q4_K: dq_q4_k(static_cast<const BlockQ4_K*>(src), dst, nb); break;
    case GgmlType::Q5_K: dq_q5_k(static_cast<const BlockQ5_K*>(src), dst, nb); break;
    case GgmlType::Q6_K: dq_q6_k(static_cast<const BlockQ6_K*>(src), dst, nb); break;
    case GgmlType::Q8_1:
    case GgmlType::Q8_K: DB_CHECK(!"activation-only type has no file dequantisation"); break;
    case GgmlType::Q8_0r16:
    case GgmlType::Q4_Kr16:
    case GgmlType::Q6_Kr16:
    case GgmlType::Q5_0r16: DB_CHECK(!"a row-interleaved layout's row is spread over its group: dequantise the file's rows"); break;
  }
}

}  // namespace draftbench
