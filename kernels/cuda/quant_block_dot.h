// One weight block times one activation block, per weight type, for the CUDA products and
// their CPU emulation. Integer sums are exact, so how they are formed is free; the float
// part is the reference's (kernels/quant/vec_dot_ref.cpp): per block, `lane[l] += add[l]`
// for each of the type's kLanes float lanes and, for types with a min, then `lane[0] -=
// sub`, with add and sub rounded exactly as it forms them. The caller folds the terms in
// block order and then the lanes (quant_matvec_block.h). 32-value types have eight lanes
// per block, or two for Q5_0 (kUnitBlocks 4: block_lanes.h's group lanes), which the row
// adds into lanes of one of two lane sets (kernels/quant/block_lanes.h); K-quants one.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/quant_layout.h"
#include "kernels/quant/block_lanes.h"
#include "kernels/quant/ggml_type.h"

namespace draftbench::cuda {

template <int Lanes>
struct BlockTerms {
  float add[Lanes] = {};
  float sub = 0.0f;  // only read when the type has a min term
};

// A 32-value block's terms under block_lanes.h's lanes over units of G blocks: its
// kBlockLanes / G lanes of kLaneValues<G> values (eight of 4, or two of 16), each an integer
// sum times the scale product. quant_matvec_block.h adds term h to lane block % G + G h of
// the set of the block's unit.
template <int G>
DB_HOST_DEVICE inline BlockTerms<kBlockLanes> block_lane_terms(const int* code, const BlockQ8_0& a, float w_scale) {
  BlockTerms<kBlockLanes> t;
  const float d = w_scale * half_to_float(a.d);
  for (int h = 0; h < kBlockLanes / G; ++h) {
    int s = 0;
    for (int v = kLaneValues<G> * h; v < kLaneValues<G> * (h + 1); ++v) s += code[v] * a.qs[v];
    t.add[h] = static_cast<float>(s) * d;
  }
  return t;
}

// Q8_0 weights with Q8_0 activations: 32 values, sum of code products times both scales.
struct Q8_0Dot {
  static constexpr const char* kRange = "quant_matvec Q8_0";  // its NVTX range
  using Weight = BlockQ8_0;
  using Activation = BlockQ8_0;
  static constexpr int kValues = 32;
  static constexpr int kLanes = kBlockLanes;
  static constexpr int kUnitBlocks = 1;  // block lanes
  static constexpr bool kHasMin = false;
  static DB_HOST_DEVICE BlockTerms<kLanes> terms(const Weight& w, const Activation& a) {
    int code[32];
    for (int v = 0; v < 32; ++v) code[v] = w.qs[v];
    return block_lane_terms<kUnitBlocks>(code, a, half_to_float(w.d));
  }
};

// Q5_0 weights with Q8_0 activations: value v's code is the nibble (low nibbles are values
// 0..15, high nibbles 16..31) plus bit v of qh as bit 4, offset by 16.
struct Q5_0Dot {
  static constexpr const char* kRange = "quant_matvec Q5_0";  // its NVTX range
  using Weight = BlockQ5_0;
  using Activation = BlockQ8_0;
  static constexpr int kValues = 32;
  static constexpr int kLanes = kBlockLanes;
  static constexpr int kUnitBlocks = kGroupBlocks;  // group lanes
  static constexpr bool kHasMin = false;
  static DB_HOST_DEVICE int code(const Weight& w, uint32_t qh, int v) {
    const int nibble = v < 16 ? (w.qs[v] & 0xF) : (w.qs[v - 16] >> 4);
    return (nibble | static_cast<int>(((qh >> v) & 1u) << 4)) - 16;
  }
  static DB_HOST_DEVICE BlockTerms<kLanes> terms(const Weight& w, const Activation& a) {
    const uint32_t qh = w.qh[0] | (uint32_t{w.qh[1]} << 8) | (uint32_t{w.qh[2]} << 16) | (uint32_t{w.qh[3]} << 24);
    int codes[32];
    for (int v = 0; v < 32; ++v) codes[v] = code(w, qh, v);
    return block_lane_terms<kUnitBlocks>(codes, a, half_to_float(w.d));
  }
};

// Q4_K weights with Q8_K activations: 8 sub-blocks of 32 with 6-bit scale and min. Value v
// sits in byte 32 * (v / 64) + v % 32, low nibble for the first 32 of each 64.
struct Q4_KDot {
  static constexpr const char* kRange = "quant_matvec Q4_K";  // its NVTX range
  using Weight = BlockQ4_K;
  using Activation = BlockQ8_K;
  static constexpr int kValues = QK_K;
  static constexpr int kLanes = 1;
  static constexpr bool kHasMin = true;
  static DB_HOST_DEVICE int code(const Weight& w, int v) {
    const uint8_t byte = w.qs[32 * (v / 64) + v % 32];
    return (v % 64) < 32 ? (byte & 0xF) : (byte >> 4);
  }
  static DB_HOST_DEVICE BlockTerms<kLanes> terms(const Weight& w, const Activation& a) {
    int isum = 0, imin = 0;
    for (int j = 0; j < 8; ++j) {
      uint8_t scale, min;
      k_scale_min(j, w.scales, scale, min);
      int s = 0;
      for (int v = 32 * j; v < 32 * j + 32; ++v) s += code(w, v) * a.qs[v];
      isum += scale * s;
      imin += min * (a.bsums[2 * j] + a.bsums[2 * j + 1]);
    }
    return {{static_cast<float>(isum) * (half_to_float(w.d) * a.d)}, static_cast<float>(imin) * (half_to_float(w.dmin) * a.d)};
  }
};

// Q6_K weights with Q8_K activations: 16 groups of 16 with signed 8-bit scales, codes
// offset by 32 (applied through the activation's group sums, as the reference does).
// Value v = 128 h + 32 q + l (half h, quarter q, lane l) takes the low (q < 2) or high
// nibble of ql[64 h + 32 (q % 2) + l] and bits 2q, 2q+1 of qh[32 h + l].
struct Q6_KDot {
  static constexpr const char* kRange = "quant_matvec Q6_K";  // its NVTX range
  using Weight = BlockQ6_K;
  using Activation = BlockQ8_K;
  static constexpr int kValues = QK_K;
  static constexpr int kLanes = 1;
  static constexpr bool kHasMin = false;
  static DB_HOST_DEVICE int code(const Weight& w, int v) {
    const int h = v / 128, q = (v % 128) / 32, l = v % 32;
    const uint8_t low = w.ql[64 * h + 32 * (q % 2) + l];
    const int nibble = q < 2 ? (low & 0xF) : (low >> 4);
    return nibble | (((w.qh[32 * h + l] >> (2 * q)) & 3) << 4);
  }
  static DB_HOST_DEVICE BlockTerms<kLanes> terms(const Weight& w, const Activation& a) {
    int isum = 0;
    for (int g = 0; g < 16; ++g) {
      int s = 0;
      for (int v = 16 * g; v < 16 * g + 16; ++v) s += code(w, v) * a.qs[v];
      isum += w.scales[g] * (s - 32 * a.bsums[g]);
    }
    return {{static_cast<float>(isum) * (half_to_float(w.d) * a.d)}};
  }
};

// Float weights (F32, F16) with f32 activations, vec_dot_ref.cpp's dot_float: sixteen
// lanes, value i into lane i mod 16, each product rounded and then added; a "block" is 16
// values, so whole rows only (n a multiple of 16, which the reference's tail would
// otherwise handle apart). fold_float_lanes is its final pairwise combination. (BF16 weights
// take BF16 activations in vdpbf16ps's arithmetic, two rounded adds per lane and value pair,
// which the one-add-per-lane terms here do not express.)
template <GgmlType T>
struct FloatDot {
  static_assert(T == GgmlType::F32 || T == GgmlType::F16);
  static constexpr const char* kRange = T == GgmlType::F32 ? "matvec F32" : "matvec F16";
  struct Weight {
    std::conditional_t<T == GgmlType::F32, float, uint16_t> v[16];
  };
  struct Activation {
    float v[16];
  };
  static constexpr int kValues = 16;
  static constexpr int kLanes = 16;
  static constexpr bool kHasMin = false;
  static DB_HOST_DEVICE float weight(const Weight& w, int l) {
    if constexpr (T == GgmlType::F32) return w.v[l];
    else return half_to_float(w.v[l]);
  }
  static DB_HOST_DEVICE BlockTerms<kLanes> terms(const Weight& w, const Activation& a) {
    BlockTerms<kLanes> t;
    for (int l = 0; l < kLanes; ++l) t.add[l] = weight(w, l) * a.v[l];
    return t;
  }
};

// dot_float's combination of its sixteen lanes: halves added pairwise, 8, 4, 2, 1.
DB_HOST_DEVICE inline float fold_float_lanes(const float* lanes) {
  float t[16];
  for (int l = 0; l < 16; ++l) t[l] = lanes[l];
  for (int w = 8; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) t[l] += t[l + w];
  return t[0];
}

// fn(Dot{}) with the product type of `type`'s weights; false, without calling fn, for a
// type that has none (device_quant_matvec_supports, kernels/cuda/device_kernels.h).
template <class Fn>
bool visit_quant_dot(GgmlType type, Fn&& fn) {
  switch (type) {
    case GgmlType::Q8_0: fn(Q8_0Dot{}); return true;
    case GgmlType::Q5_0: fn(Q5_0Dot{}); return true;
    case GgmlType::Q4_K: fn(Q4_KDot{}); return true;
    case GgmlType::Q6_K: fn(Q6_KDot{}); return true;
    default: return false;
  }
}

// visit_quant_dot's types and F32, F16 (f32 activations): the products of the fused SiLU
// layer (linear_silu_block.h), whose drafter weights are F16.
template <class Fn>
bool visit_row_dot(GgmlType type, Fn&& fn) {
  switch (type) {
    case GgmlType::F32: fn(FloatDot<GgmlType::F32>{}); return true;
    case GgmlType::F16: fn(FloatDot<GgmlType::F16>{}); return true;
    default: return visit_quant_dot(type, fn);
  }
}

}  // namespace draftbench::cuda
