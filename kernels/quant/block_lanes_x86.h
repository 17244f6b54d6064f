// block_lanes.h on x86, shared by the AVX2 and AVX-512 builds (each including translation
// unit gets its ISA's integer dot): the integer dot into the lanes, their fold, and a Q8_0
// activation row laid out for the products that take unsigned weight codes, prepared once
// per call and then shared by every weight row. Weights stored as unsigned
// codes with an offset (Q4_0: code - 8, Q5_0x4: code - 16, Q8_0 made unsigned: code + 128)
// need offset x each lane's activation sum taken back; with it stored as the lane sums'
// starting value, an unsigned-by-signed integer dot needs no sign work per block, and the
// lane sums stay the exact integers of the reference.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include "kernels/quant/block_lanes.h"
#include "kernels/quant/blocks.h"

namespace draftbench {
namespace {

// Unsigned (0..255) x signed int8 -> 8 int32 sums of four products, in the lanes of
// block_lanes.h. For the AVX2 form (maddubs, then madd) the pair sums must fit int16: true
// for w <= 128 against Q8_0 activations (|a| <= 127).
inline __m256i dot_abs_s8(__m256i abs_w, __m256i signed_a) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), abs_w, signed_a);
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(abs_w, signed_a), _mm256_set1_epi16(1));
#endif
}

// acc + dot_abs_s8(w, a): one vpdpbusd in the VNNI build.
inline __m256i add_dot_u8_s8(__m256i acc, __m256i w, __m256i a) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(acc, w, a);
#else
  return _mm256_add_epi32(acc, dot_abs_s8(w, a));
#endif
}

// block_lanes.h's fold of the two sets of eight lanes.
inline float fold_lanes(__m256 set0, __m256 set1) {
  const __m256 v = _mm256_add_ps(set0, set1);
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));  // l + (l + 4)
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));                                         // (0 + 2), (1 + 3)
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

// step(i, set) for i = 0 .. n - 1 with set = i mod 2 (block_lanes.h's sets) as a constant,
// two at a time: each set's accumulators are then registers. Indexed at run time they were
// an array GCC kept in memory, every add waiting on a store.
template <typename Step>
inline void for_each_in_sets(int64_t n, Step step) {
  int64_t i = 0;
  for (; i + 2 <= n; i += 2) {
    step(i, std::integral_constant<int, 0>{});
    step(i + 1, std::integral_constant<int, 1>{});
  }
  if (i < n) step(i, std::integral_constant<int, 0>{});
}

// The offset that makes a weight type's codes unsigned (Q8_0: code + 128; Q4_0: code - 8
// stored as code), which the prepared activation's offset sums take back. (Q5_0x4 has its
// own prepared row, q5_0x4_x86.h.)
template <typename Block>
constexpr int kCodeOffset = std::is_same_v<Block, BlockQ8_0> ? 128 : 8;

// One activation row, up to Blocks blocks.
template <int64_t Blocks>
struct PreparedActivation {
  static constexpr int64_t kBlocks = Blocks;
  alignas(64) int8_t qs[Blocks][32];
  alignas(64) int32_t offset_sums[Blocks][kBlockLanes];  // -offset x sum of each lane's four values
  alignas(64) float d[Blocks];
};

template <int64_t Blocks>
void prepare_activation(const BlockQ8_0* y, int64_t nb, int offset, PreparedActivation<Blocks>& p) {
  const __m256i offsets = _mm256_set1_epi8(static_cast<char>(offset));
  for (int64_t i = 0; i < nb; ++i) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y[i].qs));
    _mm256_store_si256(reinterpret_cast<__m256i*>(p.qs[i]), a);
    _mm256_store_si256(reinterpret_cast<__m256i*>(p.offset_sums[i]), _mm256_sub_epi32(_mm256_setzero_si256(), dot_abs_s8(offsets, a)));
    p.d[i] = fp16_to_fp32(y[i].d);
  }
}

}  // namespace
}  // namespace draftbench
