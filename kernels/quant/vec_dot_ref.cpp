// Reference dot products. The float operations and their order defined here are what
// every optimised version reproduces bit for bit (see vec_dot.h).
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/quant/block_lanes.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/block_repack.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/quant/row_groups.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Float weights: 16 partial sums (lane = index mod 16), combined pairwise at the end.
template <typename Load>
float dot_float(Load load, const float* x, int64_t n) {
  float acc[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) acc[l] += load(i + l) * x[i + l];
  for (int l = 0; i < n; ++i, ++l) acc[l] += load(i) * x[i];
  for (int w = 8; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
  return acc[0];
}

// BF16 weights against BF16 activations: vdpbf16ps's arithmetic, as probed on Zen 4 and
// documented by Intel, so that the AVX-512 BF16 build is one instruction per 32 values and
// every other build gives its bits. 16 lanes; lane l takes values 32c + 2l + 1, then
// 32c + 2l, of every 32-value chunk c (values past n are +0). Each product is exact (two
// 8-bit significands) and each addition rounds to nearest even; bf16 denormals read as zeros
// of their sign, and a sum below 2^-126 after rounding becomes a zero of its sign. Then the
// lanes combine as dot_float's, in plain f32.
float bf16_as_float_daz(uint16_t h) { return (h & 0x7F80u) == 0 ? ((h & 0x8000u) ? -0.0f : 0.0f) : bf16_to_fp32(h); }

// acc + w * x, one vdpbf16ps step. In double the product is exact and the sum, rounded to
// 53 bits and then to 24, is the correctly rounded f32 sum (53 >= 2 x 24 + 1: double
// rounding is innocuous for an addition); below the midpoint between 2^-126 and its lower
// neighbour (2^-126 - 2^-151) it rounds to a tiny f32, which is flushed.
float bf16_pair_step(float acc, uint16_t w, uint16_t x) {
  const double sum = static_cast<double>(acc) + static_cast<double>(bf16_as_float_daz(w)) * static_cast<double>(bf16_as_float_daz(x));
  if (std::fabs(sum) < 0x1p-126 - 0x1p-151) return std::signbit(sum) ? -0.0f : 0.0f;
  return static_cast<float>(sum);
}

float dot_bf16_pairs(const uint16_t* w, const uint16_t* x, int64_t n) {
  float acc[16] = {};
  const auto at = [n](const uint16_t* v, int64_t i) { return i < n ? v[i] : uint16_t{0}; };
  for (int64_t c = 0; c < n; c += 32)
    for (int l = 0; l < 16; ++l) {
      const int64_t even = c + 2 * l, odd = even + 1;
      acc[l] = bf16_pair_step(acc[l], at(w, odd), at(x, odd));
      acc[l] = bf16_pair_step(acc[l], at(w, even), at(x, even));
    }
  for (int width = 8; width >= 1; width /= 2)
    for (int l = 0; l < width; ++l) acc[l] += acc[l + width];
  return acc[0];
}

// 32-value blocks: block_lanes.h's lanes over units of G blocks (1: block lanes, 4: group
// lanes). code(block, v) is value v's signed code.
template <int G, typename Block, typename Code>
float dot_32block(const Block* b, const BlockQ8_0* y, int64_t nb, Code code) {
  float lane[kBlockLaneSets * kBlockLanes] = {};
  for (int64_t u = 0; u * G < nb; ++u) {
    float* set = lane + (u % kBlockLaneSets) * kBlockLanes;
    for (int l = 0; l < kBlockLanes; ++l) {
      const int64_t i = u * G + lane_block<G>(l);
      if (i >= nb) continue;  // a short last group
      const float d = fp16_to_fp32(b[i].d) * fp16_to_fp32(y[i].d);
      int s = 0;
      for (int v = lane_first_value<G>(l); v < lane_first_value<G>(l) + kLaneValues<G>; ++v) s += code(b[i], v) * y[i].qs[v];
      set[l] += static_cast<float>(s) * d;
    }
  }
  return fold_block_lanes(lane);
}

// Q4_0 and Q5_0 keep values 0..15 in the low nibbles of qs[0..15] and 16..31 in the high.
int nibble(const uint8_t* qs, int v) { return v < 16 ? (qs[v] & 0xF) : (qs[v - 16] >> 4); }

float dot_q4_0(const BlockQ4_0* b, const BlockQ8_0* y, int64_t nb) {
  return dot_32block<1>(b, y, nb, [](const BlockQ4_0& w, int v) { return nibble(w.qs, v) - 8; });
}

float dot_q4_1(const BlockQ4_1* b, const BlockQ8_1* y, int64_t nb) {
  float sum = 0.0f;
  for (int64_t i = 0; i < nb; ++i) {
    int isum = 0;
    for (int j = 0; j < 16; ++j) isum += (b[i].qs[j] & 0xF) * y[i].qs[j] + (b[i].qs[j] >> 4) * y[i].qs[j + 16];
    sum += static_cast<float>(isum) * (fp16_to_fp32(b[i].d) * fp16_to_fp32(y[i].d));
    sum += fp16_to_fp32(b[i].m) * fp16_to_fp32(y[i].s);
  }
  return sum;
}

int q5_isum(const uint8_t* qs, uint32_t qh, const int8_t* y, int offset) {
  int isum = 0;
  for (int j = 0; j < 16; ++j) {
    const int x0 = ((qs[j] & 0xF) | (((qh >> j) << 4) & 0x10)) - offset;
    const int x1 = ((qs[j] >> 4) | ((qh >> (j + 12)) & 0x10)) - offset;
    isum += x0 * y[j] + x1 * y[j + 16];
  }
  return isum;
}

// Q5_0: group lanes (block_lanes.h).
float dot_q5_0(const BlockQ5_0* b, const BlockQ8_0* y, int64_t nb) {
  return dot_32block<kGroupBlocks>(b, y, nb,
                                   [](const BlockQ5_0& w, int v) { return (nibble(w.qs, v) | static_cast<int>(((load_u32(w.qh) >> v) & 1u) << 4)) - 16; });
}

float dot_q5_1(const BlockQ5_1* b, const BlockQ8_1* y, int64_t nb) {
  float sum = 0.0f;
  for (int64_t i = 0; i < nb; ++i) {
    const int isum = q5_isum(b[i].qs, load_u32(b[i].qh), y[i].qs, 0);
    sum += static_cast<float>(isum) * (fp16_to_fp32(b[i].d) * fp16_to_fp32(y[i].d));
    sum += fp16_to_fp32(b[i].m) * fp16_to_fp32(y[i].s);
  }
  return sum;
}

float dot_q8_0(const BlockQ8_0* b, const BlockQ8_0* y, int64_t nb) {
  return dot_32block<1>(b, y, nb, [](const BlockQ8_0& w, int v) { return static_cast<int>(w.qs[v]); });
}

// Sum of sub-block mins weighted by the activation sums, shared by Q4_K and Q5_K.
int k_min_isum(const uint8_t* scales, const BlockQ8_K& y) {
  int imin = 0;
  for (int j = 0; j < 8; ++j) {
    uint8_t sc, m;
    k_scale_min(j, scales, sc, m);
    imin += m * (y.bsums[2 * j] + y.bsums[2 * j + 1]);
  }
  return imin;
}

float dot_q4_k(const BlockQ4_K* b, const BlockQ8_K* y, int64_t nb) {
  float sum = 0.0f;
  for (int64_t i = 0; i < nb; ++i) {
    int isum = 0;
    const uint8_t* q = b[i].qs;
    const int8_t* a = y[i].qs;
    for (int c = 0; c < 4; ++c, q += 32, a += 64) {
      uint8_t sc1, sc2, m;
      k_scale_min(2 * c, b[i].scales, sc1, m);
      k_scale_min(2 * c + 1, b[i].scales, sc2, m);
      int s1 = 0, s2 = 0;
      for (int l = 0; l < 32; ++l) {
        s1 += (q[l] & 0xF) * a[l];
        s2 += (q[l] >> 4) * a[l + 32];
      }
      isum += sc1 * s1 + sc2 * s2;
    }
    const int imin = k_min_isum(b[i].scales, y[i]);
    sum += static_cast<float>(isum) * (fp16_to_fp32(b[i].d) * y[i].d);
    sum -= static_cast<float>(imin) * (fp16_to_fp32(b[i].dmin) * y[i].d);
  }
  return sum;
}

float dot_q5_k(const BlockQ5_K* b, const BlockQ8_K* y, int64_t nb) {
  float sum = 0.0f;
  for (int64_t i = 0; i < nb; ++i) {
    int isum = 0;
    const uint8_t* q = b[i].qs;
    const int8_t* a = y[i].qs;
    for (int c = 0; c < 4; ++c, q += 32, a += 64) {
      uint8_t sc1, sc2, m;
      k_scale_min(2 * c, b[i].scales, sc1, m);
      k_scale_min(2 * c + 1, b[i].scales, sc2, m);
      const uint8_t u1 = static_cast<uint8_t>(1u << (2 * c)), u2 = static_cast<uint8_t>(2u << (2 * c));
      int s1 = 0, s2 = 0;
      for (int l = 0; l < 32; ++l) {
        s1 += ((q[l] & 0xF) + (b[i].qh[l] & u1 ? 16 : 0)) * a[l];
        s2 += ((q[l] >> 4) + (b[i].qh[l] & u2 ? 16 : 0)) * a[l + 32];
      }
      isum += sc1 * s1 + sc2 * s2;
    }
    const int imin = k_min_isum(b[i].scales, y[i]);
    sum += static_cast<float>(isum) * (fp16_to_fp32(b[i].d) * y[i].d);
    sum -= static_cast<float>(imin) * (fp16_to_fp32(b[i].dmin) * y[i].d);
  }
  return sum;
}

float dot_q6_k(const BlockQ6_K* b, const BlockQ8_K* y, int64_t nb) {
  float sum = 0.0f;
  for (int64_t i = 0; i < nb; ++i) {
    // Value v of the block has 6-bit code q(v) in 0..63 and scale index v/16.
    int isum = 0;
    for (int n = 0; n < 2; ++n) {
      const uint8_t* ql = b[i].ql + 64 * n;
      const uint8_t* qh = b[i].qh + 32 * n;
      const int8_t* a = y[i].qs + 128 * n;
      const int8_t* sc = b[i].scales + 8 * n;
      int g[8] = {};  // per 16-value group of this half
      for (int l = 0; l < 32; ++l) {
        const int q1 = (ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4);
        const int q2 = (ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4);
        const int q3 = (ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4);
        const int q4 = (ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4);
        g[0 + l / 16] += q1 * a[l];
        g[2 + l / 16] += q2 * a[l + 32];
        g[4 + l / 16] += q3 * a[l + 64];
        g[6 + l / 16] += q4 * a[l + 96];
      }
      for (int k = 0; k < 8; ++k) isum += sc[k] * (g[k] - 32 * y[i].bsums[8 * n + k]);
    }
    sum += static_cast<float>(isum) * (fp16_to_fp32(b[i].d) * y[i].d);
  }
  return sum;
}

}  // namespace

float dot_row_ref(GgmlType type, const uint8_t* w, const void* xq, int64_t n) {
  switch (type) {
    case GgmlType::F32: {
      const auto* wf = reinterpret_cast<const float*>(w);
      return dot_float([wf](int64_t i) { return wf[i]; }, static_cast<const float*>(xq), n);
    }
    case GgmlType::F16: {
      const auto* wh = reinterpret_cast<const uint16_t*>(w);
      return dot_float([wh](int64_t i) { return fp16_to_fp32(wh[i]); }, static_cast<const float*>(xq), n);
    }
    case GgmlType::BF16: return dot_bf16_pairs(reinterpret_cast<const uint16_t*>(w), static_cast<const uint16_t*>(xq), n);
    case GgmlType::Q4_0: return dot_q4_0(reinterpret_cast<const BlockQ4_0*>(w), static_cast<const BlockQ8_0*>(xq), n / 32);
    case GgmlType::Q4_1: return dot_q4_1(reinterpret_cast<const BlockQ4_1*>(w), static_cast<const BlockQ8_1*>(xq), n / 32);
    case GgmlType::Q5_0: return dot_q5_0(reinterpret_cast<const BlockQ5_0*>(w), static_cast<const BlockQ8_0*>(xq), n / 32);
    case GgmlType::Q5_0x4:
    case GgmlType::Q4_Kt: {  // the file type's blocks, through its reference (a copy: the slow path)
      std::vector<uint8_t> blocks(ggml_row_bytes(type, n));
      unpack_values(type, w, n, blocks.data());
      return dot_row_ref(*repacked_from(type), blocks.data(), xq, n);
    }
    case GgmlType::Q5_1: return dot_q5_1(reinterpret_cast<const BlockQ5_1*>(w), static_cast<const BlockQ8_1*>(xq), n / 32);
    case GgmlType::Q8_0: return dot_q8_0(reinterpret_cast<const BlockQ8_0*>(w), static_cast<const BlockQ8_0*>(xq), n / 32);
    case GgmlType::Q4_K: return dot_q4_k(reinterpret_cast<const BlockQ4_K*>(w), static_cast<const BlockQ8_K*>(xq), n / QK_K);
    case GgmlType::Q5_K: return dot_q5_k(reinterpret_cast<const BlockQ5_K*>(w), static_cast<const BlockQ8_K*>(xq), n / QK_K);
    case GgmlType::Q6_K: return dot_q6_k(reinterpret_cast<const BlockQ6_K*>(w), static_cast<const BlockQ8_K*>(xq), n / QK_K);
    case GgmlType::Q8_1:
    case GgmlType::Q8_K: break;
    case GgmlType::Q8_0r16:
    case GgmlType::Q4_Kr16:
    case GgmlType::Q6_Kr16:
    case GgmlType::Q5_0r16: DB_CHECK(!"dot_row_ref: a row-interleaved layout's row is spread over its group (dot_rows_ref takes whole groups)");
  }
  DB_CHECK(!"dot_row_ref: activation-only type used as a weight");
  return 0.0f;
}

void dot_rows_ref(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y) {
  if (const RowGroupLayout* g = row_group_layout(type))
    return g->rows_ref(w, n_rows, static_cast<const uint8_t*>(xq), 0, 1, n / ggml_type_info(type).block_size, y, 0);
  for (int64_t r = 0; r < n_rows; ++r) y[r] = dot_row_ref(type, w + static_cast<size_t>(r) * w_stride, xq, n);
}

void dot_rows_batch_ref(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y,
                        size_t y_stride) {
  if (const RowGroupLayout* g = row_group_layout(type)) return g->rows_ref(w, n_rows, xq, xq_stride, n_x, n / ggml_type_info(type).block_size, y, y_stride);
  for (int64_t x = 0; x < n_x; ++x) dot_rows_ref(type, w, w_stride, n_rows, xq + static_cast<size_t>(x) * xq_stride, n, y + static_cast<size_t>(x) * y_stride);
}

void dot_rows_indexed_ref(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y) {
  if (const RowGroupLayout* g = row_group_layout(type)) return g->indexed(w, ids, n_ids, xq, n / ggml_type_info(type).block_size, y);
  for (int64_t r = 0; r < n_ids; ++r) y[r] = dot_row_ref(type, w + static_cast<size_t>(ids[r]) * row_bytes, xq, n);
}

}  // namespace draftbench
