// x86 dot products, shared by the AVX2 and AVX-512 VNNI builds: each including translation
// unit is compiled with its own ISA flags and gets its own copy of the kernels with its
// integer-dot primitive (see dot_abs_s8). Integer sums are exact, so both give the same
// integers, and only the float steps matter for bit-identity with vec_dot_ref.cpp:
//   32-value blocks (Q4_0, Q8_0): one weight row at a time, two registers of eight float
//     lanes being block_lanes.h's two sets; Q5_0 with its group lanes, from the file's
//     layout here and repacked in fours (Q5_0x4) in q5_0x4_x86.h;
//   K-quants: Q4_K and its transposed layout Q4_Kt in q4_k_x86.h (blocks in pairs, their
//     float steps in one register);
//     Q6_K one weight row at a time too, the per-super-block float steps in scalar code as
//     in the reference;
//   F32, F16 weights: dot_float's 16 lanes in two registers; BF16 weights (BF16
//     activations): vdpbf16ps's arithmetic in f32 operations, for rows whose values keep
//     every product exact, the reference otherwise.
// Everything here has internal linkage on purpose.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <memory>

#include "kernels/quant/block_lanes.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/block_lanes_x86.h"
#include "kernels/quant/q4_k_x86.h"
#include "kernels/quant/q5_0x4_x86.h"
#include "kernels/quant/row_count.h"
#include "kernels/quant/weight_prefetch.h"
#include "kernels/quant/word_broadcast.h"
#include "kernels/quant/vec_dot.h"

namespace draftbench {
namespace {

// Unsigned (0..127) x signed int8 -> 16 int16 pair sums.
inline __m256i dot_u8_pairs(__m256i w, __m256i a) { return _mm256_maddubs_epi16(w, a); }

// 32 nibbles of 16 bytes: low nibbles first, then high nibbles (Q4_0/Q5_0 order). The 16
// bytes go to both halves and the high half shifts by 4: three instructions, not five.
inline __m256i unpack_nibbles_16(const uint8_t* qs) {
  const __m256i q = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs)));
  return _mm256_and_si256(_mm256_srlv_epi64(q, _mm256_setr_epi64x(0, 0, 4, 4)), _mm256_set1_epi8(0x0F));
}

// The Q5_0 code (nibble | bit << 4) - 16 as an int8, without a subtraction: 0xF0 or-ed onto
// the nibbles whose bit j of the 32-bit mask is clear.
inline __m256i or_clear_bits_0xf0(__m256i nibbles, const uint8_t* qh) {
  uint32_t bits;
  std::memcpy(&bits, qh, 4);
#if defined(__AVX512BW__) && defined(__AVX512VL__)
  // A mask register expands the bits to bytes in one instruction; ternlog does the or.
  const __m256i clear = _mm256_movm_epi8(static_cast<__mmask32>(~bits));
  return _mm256_ternarylogic_epi32(nibbles, clear, _mm256_set1_epi8(static_cast<char>(0xF0)), 0xF8);  // a | (b & c)
#else
  const __m256i shuf = _mm256_setr_epi64x(0x0000000000000000, 0x0101010101010101, 0x0202020202020202, 0x0303030303030303);
  __m256i b = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)), shuf);
  const __m256i sel = _mm256_set1_epi64x(0x8040201008040201LL);
  b = _mm256_cmpeq_epi8(_mm256_and_si256(b, sel), sel);
  return _mm256_or_si256(nibbles, _mm256_andnot_si256(b, _mm256_set1_epi8(static_cast<char>(0xF0))));
#endif
}

// A 32-value block's fp16 scale (its first field) as a float in lane 0: one load-and-convert
// of the block's first 8 bytes, instead of an insert into a register and a convert.
template <typename Block>
inline __m128 block_scale(const Block* b) {
  static_assert(offsetof(Block, d) == 0 && sizeof(Block) >= 8);
  return _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b)));
}

// One weight row of 32-value blocks against X activation rows: each block is unpacked once,
// with its |w| and its scale, for all X. dy holds the X rows' block scales as floats, nb
// apart (ActivationScales). Lane l of acc[s][x] performs exactly the reference's operations
// for lane l of set s (block_lanes.h), so the result does not depend on X: matmul stays
// batch-invariant.
template <int X, typename Block, typename Unpack>
void row_32block_batch(const Block* w, const uint8_t* xq, size_t xq_stride, const float* dy, int64_t nb, float* out, size_t out_stride, Unpack unpack) {
  __m256 acc[2][X];  // block_lanes.h's two sets: even and odd blocks
  for (int x = 0; x < X; ++x) acc[0][x] = acc[1][x] = _mm256_setzero_ps();
  const auto add_block = [&](int64_t i, __m256* set) {
    prefetch_weights(w + i, sizeof(Block));
    const __m256i q = unpack(w + i);
    const __m256i abs_q = _mm256_sign_epi8(q, q);
    const __m256 dw = _mm256_broadcastss_ps(block_scale(w + i));
    for (int x = 0; x < X; ++x) {
      const BlockQ8_0& y = reinterpret_cast<const BlockQ8_0*>(xq + static_cast<size_t>(x) * xq_stride)[i];
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y.qs));
      const __m256 lanes = _mm256_cvtepi32_ps(dot_abs_s8(abs_q, _mm256_sign_epi8(a, q)));
      const __m256 scale = _mm256_mul_ps(dw, _mm256_broadcast_ss(dy + static_cast<size_t>(x) * static_cast<size_t>(nb) + i));
      set[x] = _mm256_add_ps(set[x], _mm256_mul_ps(lanes, scale));
    }
  };
  for_each_in_sets(nb, [&](int64_t i, auto set) { add_block(i, acc[set]); });
  for (int x = 0; x < X; ++x) out[static_cast<size_t>(x) * out_stride] = fold_lanes(acc[0][x], acc[1][x]);
}

// The block scales of some activation rows as floats (row x's block i at x * nb + i),
// converted once per call and shared by every weight row. Converted per weight row and
// activation row, with the scale product's multiply and broadcast, they were three of the ten
// vector operations per block and activation row that bound the LM head's batches on AVX2.
// Rows of up to kStackFloats / kBatchX blocks (32768 values) use the caller's stack; longer
// ones, which no model here has, a heap buffer (new[], not std::vector: a library template
// instantiated here would be compiled with this unit's ISA flags and could be the copy the
// linker keeps for the other ISA's unit).
class ActivationScales {
 public:
  static constexpr int64_t kStackFloats = 4096;  // 16 KB

  ActivationScales(int64_t nb, int batch) : nb_(nb) {
    rows_ = std::max<int64_t>(batch, kStackFloats / std::max<int64_t>(nb, 1) / batch * batch);
    if (rows_ * nb > kStackFloats) {
      heap_ = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(rows_ * nb));
      d_ = heap_.get();
    }
  }
  // Activation rows per pass over the weight rows: a multiple of the batch, at least one.
  int64_t rows_per_pass() const { return rows_; }
  const float* row(int64_t x) const { return d_ + x * nb_; }
  void convert(const uint8_t* xq, size_t xq_stride, int64_t n_x) {
    for (int64_t x = 0; x < n_x; ++x) {
      const BlockQ8_0* y = reinterpret_cast<const BlockQ8_0*>(xq + static_cast<size_t>(x) * xq_stride);
      for (int64_t i = 0; i < nb_; ++i) d_[x * nb_ + i] = fp16_to_fp32(y[i].d);
    }
  }

 private:
  int64_t nb_;
  int64_t rows_;
  alignas(32) float stack_[kStackFloats];
  std::unique_ptr<float[]> heap_;
  float* d_ = stack_;
};

// Lambdas, not functions: each is its own type, so the kernels inline them (a function
// pointer passed through the batching lambda stays an indirect call in the inner loop).
inline constexpr auto unpack_q8_0 = [](const BlockQ8_0* b) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b->qs)); };
inline constexpr auto unpack_q5_0 = [](const BlockQ5_0* b) { return or_clear_bits_0xf0(unpack_nibbles_16(b->qs), b->qh); };
inline constexpr auto unpack_q4_0 = [](const BlockQ4_0* b) { return _mm256_sub_epi8(unpack_nibbles_16(b->qs), _mm256_set1_epi8(8)); };

// One Q5_0 row in the file's layout against X activation rows: block_lanes.h's group
// lanes. Each block's codes give the block lanes' eight int32 sums of four values as
// above; two rounds of horizontal adds turn four blocks' into the group's eight lanes
// ([block 0..3 values 0-15 | block 0..3 values 16-31]). The engine repacks Q5_0 to Q5_0x4
// (q5_0x4_x86.h), which needs none of that; this serves longer rows and the tests.
template <int X>
void row_q5_0_batch(const BlockQ5_0* w, const uint8_t* xq, size_t xq_stride, int64_t nb, float* out, size_t out_stride) {
  __m256 acc[2][X];  // the two sets: even and odd groups
  for (int x = 0; x < X; ++x) acc[0][x] = acc[1][x] = _mm256_setzero_ps();
  // The four blocks' scales as floats, blocks past count 0. Inserted as words: stored to
  // memory and loaded as one vector they would miss store forwarding.
  const auto scales = [](const auto* blocks, int count) {
    const auto d = [&](int k) { return static_cast<short>(k < count ? blocks[k].d : 0); };
    return _mm_cvtph_ps(_mm_setr_epi16(d(0), d(1), d(2), d(3), 0, 0, 0, 0));
  };
  const auto add_group = [&](int64_t g, __m256* set) {
    const int64_t i0 = 4 * g;
    const int count = static_cast<int>(std::min<int64_t>(4, nb - i0));
    __m256i q[4], abs_q[4];
    for (int k = 0; k < 4; ++k) {
      q[k] = abs_q[k] = _mm256_setzero_si256();
      if (k >= count) continue;
      prefetch_weights(w + i0 + k, sizeof(BlockQ5_0));
      q[k] = unpack_q5_0(w + i0 + k);
      abs_q[k] = _mm256_sign_epi8(q[k], q[k]);
    }
    const __m128 dw = scales(w + i0, count);
    for (int x = 0; x < X; ++x) {
      const BlockQ8_0* y = reinterpret_cast<const BlockQ8_0*>(xq + static_cast<size_t>(x) * xq_stride) + i0;
      __m256i lanes[4];
      for (int k = 0; k < 4; ++k)
        lanes[k] =
            k < count ? dot_abs_s8(abs_q[k], _mm256_sign_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(y[k].qs)), q[k])) : _mm256_setzero_si256();
      const __m256i group = _mm256_hadd_epi32(_mm256_hadd_epi32(lanes[0], lanes[1]), _mm256_hadd_epi32(lanes[2], lanes[3]));
      const __m128 scale = _mm_mul_ps(dw, scales(y, count));
      set[x] = _mm256_add_ps(set[x], _mm256_mul_ps(_mm256_cvtepi32_ps(group), _mm256_set_m128(scale, scale)));
    }
  };
  for_each_in_sets((nb + 3) / 4, [&](int64_t g, auto set) { add_group(g, acc[set]); });
  for (int x = 0; x < X; ++x) out[static_cast<size_t>(x) * out_stride] = fold_lanes(acc[0][x], acc[1][x]);
}

// Up to kBatchX activation rows per pass over a weight row: four accumulators, the block
// and its |w| fit the 16 AVX2 registers.
constexpr int kBatchX = 4;

// Weight rows row_at(0 .. n_rows) against n_x activation rows, xq_stride bytes apart, into
// y[x * y_stride + r]: kBatchX activation rows at a time, from row x, go to
// row(w, x, xq_x, y_x, X), X being their count as a std::integral_constant so that the kernel unrolls over them.
template <typename Block, typename RowAt, typename RowKernel>
void rows_batched(RowAt row_at, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, float* y, size_t y_stride, RowKernel row) {
  for (int64_t r = 0; r < n_rows; ++r) {
    const Block* w = reinterpret_cast<const Block*>(row_at(r));
    for (int64_t x = 0; x < n_x; x += kBatchX) {
      const uint8_t* xq_x = xq + static_cast<size_t>(x) * xq_stride;
      float* y_x = y + static_cast<size_t>(x) * y_stride + r;
      with_row_count<kBatchX>(static_cast<int>(std::min<int64_t>(kBatchX, n_x - x)), [&](auto X) { row(w, x, xq_x, y_x, X); });
    }
  }
}

// The activation rows go in passes of as many as ActivationScales holds (every row of a
// decode or verification batch in one pass; weight rows are re-read per pass only for long
// batches of long rows, from L2 within matmul's tiles).
template <typename Block, typename RowAt, typename Unpack>
void rows_32block(RowAt row_at, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride, Unpack unpack) {
  ActivationScales scales(nb, kBatchX);
  const int64_t pass = scales.rows_per_pass();
  for (int64_t x0 = 0; x0 < n_x; x0 += pass) {
    const int64_t n_pass = std::min(pass, n_x - x0);
    const uint8_t* xq_pass = xq + static_cast<size_t>(x0) * xq_stride;
    scales.convert(xq_pass, xq_stride, n_pass);
    rows_batched<Block>(row_at, n_rows, xq_pass, xq_stride, n_pass, y + static_cast<size_t>(x0) * y_stride, y_stride,
                        [&](const Block* w, int64_t x, const uint8_t* xq_x, float* y_x, auto X) {
                          row_32block_batch<X()>(w, xq_x, xq_stride, scales.row(x), nb, y_x, y_stride, unpack);
                        });
  }
}

// The 32-value-block kernel for `type`, or false for other types (and Q5_0x4 rows longer
// than q5_0x4_x86.h's prepared activation).
template <typename RowAt>
bool rows_32block_any(GgmlType type, RowAt row_at, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y, size_t y_stride) {
  switch (type) {
    case GgmlType::Q8_0: rows_32block<BlockQ8_0>(row_at, n_rows, xq, xq_stride, n_x, n / 32, y, y_stride, unpack_q8_0); return true;
    case GgmlType::Q5_0:
      rows_batched<BlockQ5_0>(row_at, n_rows, xq, xq_stride, n_x, y, y_stride, [&](const BlockQ5_0* w, int64_t, const uint8_t* xq_x, float* y_x, auto X) {
        row_q5_0_batch<X()>(w, xq_x, xq_stride, n / 32, y_x, y_stride);
      });
      return true;
    case GgmlType::Q4_0: rows_32block<BlockQ4_0>(row_at, n_rows, xq, xq_stride, n_x, n / 32, y, y_stride, unpack_q4_0); return true;
    case GgmlType::Q5_0x4: return q5_0x4_rows(row_at, n_rows, xq, xq_stride, n_x, n, y, y_stride);
    default: return false;
  }
}

// Q6_K (Q4_K: q4_k_x86.h), one weight row at a time like the 32-value blocks: a row is one
// sequential stream, which the hardware prefetcher follows; several rows side by side are
// as many streams a row apart, which it does not (kernels/bench/README.md).
// Per super-block the integer sum is exact, so only the reference's float steps matter:
// one multiply-add per block, done in scalar float exactly as there.

inline int hsum_epi32(__m128i s) {
  s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
  return _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, 1)));
}
inline int hsum_epi32(__m256i v) { return hsum_epi32(_mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1))); }

// Half n (values 128n .. 128n + 127) of a Q6_K block's codes, 0..63: q[k] holds values
// 128n + 32k .. + 31 (its 16-value groups 8n + 2k and 8n + 2k + 1).
inline void q6_k_codes(const BlockQ6_K& b, int n, __m256i (&q)[4]) {
  const __m256i m4 = _mm256_set1_epi8(0x0F), m2 = _mm256_set1_epi8(0x03);
  const __m256i l0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.ql + 64 * n));
  const __m256i l1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.ql + 64 * n + 32));
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qh + 32 * n));
  q[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_slli_epi16(_mm256_and_si256(h, m2), 4));
  q[1] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2), m2), 4));
  q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 4), m2), 4));
  q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 6), m2), 4));
}

// One Q6_K row against X activation rows. Codes are q - 32 with q in 0..63: the integer sum
// takes q times the activations and subtracts 32 x scale x each 16-value group's sum.
template <int X>
void row_q6_k_batch(const BlockQ6_K* w, const uint8_t* xq, size_t xq_stride, int64_t nb, float* out, size_t out_stride) {
  float sum[X] = {};
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ6_K& b = w[i];
    prefetch_weights(&b, sizeof b);
    const __m128i sc8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.scales));
    const __m256i sc16 = _mm256_cvtepi8_epi16(sc8);
    const __m256i sc_lo = _mm256_permute4x64_epi64(sc16, 0x44), sc_hi = _mm256_permute4x64_epi64(sc16, 0xEE);  // groups 0-7, 8-15 twice
    __m256i acc[X];
    for (int x = 0; x < X; ++x) acc[x] = _mm256_setzero_si256();
    for (int n = 0; n < 2; ++n) {
      __m256i q[4];
      q6_k_codes(b, n, q);
      for (int k = 0; k < 4; ++k) {
        // Pairs 0..7 of the product cover values 0..15 (group 8n+2k), pairs 8..15 values 16..31.
        const int g = 8 * n + 2 * k;
        const __m256i scales = broadcast_word_pair(n == 0 ? sc_lo : sc_hi, g % 8);
        for (int x = 0; x < X; ++x) {
          const int8_t* a = reinterpret_cast<const BlockQ8_K*>(xq + static_cast<size_t>(x) * xq_stride)[i].qs + 128 * n + 32 * k;
          acc[x] = _mm256_add_epi32(acc[x], _mm256_madd_epi16(dot_u8_pairs(q[k], _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a))), scales));
        }
      }
    }
    const float d = fp16_to_fp32(b.d);
    for (int x = 0; x < X; ++x) {
      const BlockQ8_K& y = reinterpret_cast<const BlockQ8_K*>(xq + static_cast<size_t>(x) * xq_stride)[i];
      const __m256i bias = _mm256_madd_epi16(sc16, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y.bsums)));
      sum[x] += static_cast<float>(hsum_epi32(_mm256_sub_epi32(acc[x], _mm256_slli_epi32(bias, 5)))) * (d * y.d);
    }
  }
  for (int x = 0; x < X; ++x) out[static_cast<size_t>(x) * out_stride] = sum[x];
}

// The K-quant kernel for `type`, or false for other types.
template <typename RowAt>
bool rows_k_any(GgmlType type, RowAt row_at, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y, size_t y_stride) {
  const int64_t nb = n / QK_K;
  switch (type) {
    case GgmlType::Q4_K: rows_prepared_q8_k<kBatchX, BlockQ4_K>(row_at, n_rows, xq, xq_stride, n_x, nb, y, y_stride, q4_k_rows); return true;
    case GgmlType::Q4_Kt: rows_prepared_q8_k<kBatchX, BlockQ4_K, PreparedQ8Kt>(row_at, n_rows, xq, xq_stride, n_x, nb, y, y_stride, q4_k_rows); return true;
    case GgmlType::Q6_K:
      rows_batched<BlockQ6_K>(row_at, n_rows, xq, xq_stride, n_x, y, y_stride, [&](const BlockQ6_K* w, int64_t, const uint8_t* xq_x, float* y_x, auto X) {
        row_q6_k_batch<X()>(w, xq_x, xq_stride, nb, y_x, y_stride);
      });
      return true;
    default: return false;
  }
}

// F32 and F16 weights, one row at a time, in vec_dot_ref.cpp's dot_float order: its 16
// partial sums (lane = index mod 16) are two vectors here, each lane doing the same
// multiply, then add; the tail and the pairwise combination then run on the stored lanes
// exactly as there. F16 converts with F16C, which is exact, as the reference's conversion.
template <GgmlType T>
inline __m256 load_8_floats(const uint8_t* w, int64_t i) {
  static_assert(T == GgmlType::F32 || T == GgmlType::F16);
  if constexpr (T == GgmlType::F32) return _mm256_loadu_ps(reinterpret_cast<const float*>(w) + i);
  else return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(reinterpret_cast<const uint16_t*>(w) + i)));
}

template <GgmlType T>
inline float float_weight(const uint8_t* w, int64_t i) {
  if constexpr (T == GgmlType::F32) return reinterpret_cast<const float*>(w)[i];
  else return fp16_to_fp32(reinterpret_cast<const uint16_t*>(w)[i]);
}

template <GgmlType T>
float dot_float_row(const uint8_t* w, const float* x, int64_t n) {
  __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    lo = _mm256_add_ps(lo, _mm256_mul_ps(load_8_floats<T>(w, i), _mm256_loadu_ps(x + i)));
    hi = _mm256_add_ps(hi, _mm256_mul_ps(load_8_floats<T>(w, i + 8), _mm256_loadu_ps(x + i + 8)));
  }
  float acc[16];
  _mm256_storeu_ps(acc, lo);
  _mm256_storeu_ps(acc + 8, hi);
  for (int l = 0; i < n; ++i, ++l) acc[l] += float_weight<T>(w, i) * x[i];
  for (int width = 8; width >= 1; width /= 2)
    for (int l = 0; l < width; ++l) acc[l] += acc[l + width];
  return acc[0];
}

// The float-row kernel for `type`, or null for other types.
inline float (*float_row_kernel(GgmlType type))(const uint8_t*, const float*, int64_t) {
  switch (type) {
    case GgmlType::F32: return dot_float_row<GgmlType::F32>;
    case GgmlType::F16: return dot_float_row<GgmlType::F16>;
    default: return nullptr;
  }
}

// BF16 weights against BF16 activations (vec_dot_ref.cpp's dot_bf16_pairs: vdpbf16ps's
// arithmetic) in f32 operations, which are that arithmetic exactly when every operand is
// zero or of magnitude in [2^-63, 2^64): each f32 product is then the exact product (in
// [2^-126, 2^128)), each f32 sum of two normal numbers is the correctly rounded sum (a
// tiny one exact, so "tiny after rounding" is "tiny"), and flushing a tiny sum to a zero of
// its sign is the instruction's FTZ. A row with another value (a bf16 denormal, a tiny or
// huge value, an infinity or NaN: rare in weights and activations) takes the reference
// instead; a row's check is a running min and max of its bits, alongside the products.
struct Bf16RangeCheck {
  // Over the values' bits shifted left by one (the sign dropped), s: min(s - 2) (a zero wraps
  // to 0xFFFE) and max(s). In range: min >= 0x3FFE (exponent >= 64) and max <= 0xBEFF (<= 190).
  __m256i low = _mm256_set1_epi16(-1), high = _mm256_setzero_si256();
  void add(__m256i bf16) {
    const __m256i s = _mm256_slli_epi16(bf16, 1);
    high = _mm256_max_epu16(high, s);
    low = _mm256_min_epu16(low, _mm256_sub_epi16(s, _mm256_set1_epi16(2)));
  }
  bool in_range() const {
    const __m256i low_ok = _mm256_cmpeq_epi16(_mm256_max_epu16(low, _mm256_set1_epi16(0x3FFE)), low);
    const __m256i high_ok = _mm256_cmpeq_epi16(_mm256_min_epu16(high, _mm256_set1_epi16(static_cast<short>(0xBEFF))), high);
    return _mm256_movemask_epi8(_mm256_and_si256(low_ok, high_ok)) == -1;
  }
};

inline bool bf16_row_in_range(const uint16_t* x, int64_t n) {
  Bf16RangeCheck check;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) check.add(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)));
  alignas(32) uint16_t tail[16] = {};
  std::memcpy(tail, x + i, static_cast<size_t>(n - i) * 2);
  check.add(_mm256_load_si256(reinterpret_cast<const __m256i*>(tail)));
  return check.in_range();
}

// A sum below 2^-126 to a zero of its sign.
inline __m256 flush_tiny(__m256 t) {
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  const __m256 tiny = _mm256_cmp_ps(_mm256_and_ps(t, magnitude), _mm256_set1_ps(0x1p-126f), _CMP_LT_OQ);
  return _mm256_andnot_ps(_mm256_and_ps(tiny, magnitude), t);
}

// 16 weights and activations onto eight lanes: lane l adds value 2l + 1's product, then 2l's.
inline __m256 bf16_pairs_step(__m256 acc, __m256i w, __m256i x) {
  const __m256i high = _mm256_set1_epi32(static_cast<int>(0xFFFF0000u));
  const __m256 odd = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_and_si256(w, high)), _mm256_castsi256_ps(_mm256_and_si256(x, high)));
  const __m256 even = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(w, 16)), _mm256_castsi256_ps(_mm256_slli_epi32(x, 16)));
  return flush_tiny(_mm256_add_ps(flush_tiny(_mm256_add_ps(acc, odd)), even));
}

// One BF16 weight row against X activation rows (x_stride values apart), in range as their
// flags x_in_range say: each 32-value chunk of weights is loaded once for all X. Lanes 0..7
// (lo) take the chunk's first 16 values, lanes 8..15 (hi) the next; the last chunk is
// zero-padded, as the reference's missing values are +0.
template <int X>
void bf16_row_batch(const uint16_t* w, const uint16_t* x, size_t x_stride, const bool* x_in_range, int64_t n, float* out, size_t out_stride) {
  __m256 lo[X], hi[X];
  for (int r = 0; r < X; ++r) lo[r] = hi[r] = _mm256_setzero_ps();
  Bf16RangeCheck check;
  const auto chunk = [&](const uint16_t* wc, const auto& x_at) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wc));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wc + 16));
    check.add(w0);
    check.add(w1);
    for (int r = 0; r < X; ++r) {
      const uint16_t* xc = x_at(r);
      lo[r] = bf16_pairs_step(lo[r], w0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xc)));
      hi[r] = bf16_pairs_step(hi[r], w1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xc + 16)));
    }
  };
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    prefetch_weights(w + i, 64);
    chunk(w + i, [&](int r) { return x + r * x_stride + i; });
  }
  if (i < n) {
    const size_t bytes = static_cast<size_t>(n - i) * 2;
    uint16_t w_tail[32] = {}, x_tail[X][32] = {};
    std::memcpy(w_tail, w + i, bytes);
    for (int r = 0; r < X; ++r) std::memcpy(x_tail[r], x + r * x_stride + i, bytes);
    chunk(w_tail, [&](int r) { return x_tail[r]; });
  }
  const bool w_in_range = check.in_range();
  for (int r = 0; r < X; ++r) {
    float& y = out[static_cast<size_t>(r) * out_stride];
    if (w_in_range && x_in_range[r]) {
      y = fold_lanes(lo[r], hi[r]);
    } else {
      y = dot_row_ref(GgmlType::BF16, reinterpret_cast<const uint8_t*>(w), x + r * x_stride, n);
    }
  }
}

// BF16 weight rows row_at(0 .. n_rows) against n_x BF16 activation rows, xq_stride bytes
// apart: kBatchX activation rows at a time, each weight row passing over them.
template <typename RowAt>
void bf16_rows(RowAt row_at, int64_t n_rows, const void* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y, size_t y_stride) {
  const auto* x = static_cast<const uint16_t*>(xq);
  const size_t x_stride = xq_stride / sizeof(uint16_t);
  for (int64_t x0 = 0; x0 < n_x; x0 += kBatchX) {
    const int rows_here = static_cast<int>(std::min<int64_t>(kBatchX, n_x - x0));
    const uint16_t* x_group = x + static_cast<size_t>(x0) * x_stride;
    bool in_range[kBatchX];
    for (int r = 0; r < rows_here; ++r) in_range[r] = bf16_row_in_range(x_group + static_cast<size_t>(r) * x_stride, n);
    float* y_group = y + static_cast<size_t>(x0) * y_stride;
    for (int64_t r = 0; r < n_rows; ++r) {
      const auto* w = reinterpret_cast<const uint16_t*>(row_at(r));
      with_row_count<kBatchX>(rows_here, [&](auto X) { bf16_row_batch<X()>(w, x_group, x_stride, in_range, n, y_group + r, y_stride); });
    }
  }
}

// Every quantised type with an x86 kernel, or false (Q4_1, Q5_1, Q5_K, Q5_0x4 rows
// longer than its prepared activation: the reference).
template <typename RowAt>
bool rows_quantised(GgmlType type, RowAt row_at, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y, size_t y_stride) {
  return rows_32block_any(type, row_at, n_rows, xq, xq_stride, n_x, n, y, y_stride) || rows_k_any(type, row_at, n_rows, xq, xq_stride, n_x, n, y, y_stride);
}

void dot_rows_x86(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y) {
  if (type == GgmlType::BF16) return bf16_rows([&](int64_t r) { return w + static_cast<size_t>(r) * w_stride; }, n_rows, xq, 0, 1, n, y, 0);
  if (const auto row = float_row_kernel(type)) {
    for (int64_t r = 0; r < n_rows; ++r) y[r] = row(w + static_cast<size_t>(r) * w_stride, static_cast<const float*>(xq), n);
    return;
  }
  const auto row_at = [&](int64_t r) { return w + static_cast<size_t>(r) * w_stride; };
  if (!rows_quantised(type, row_at, n_rows, static_cast<const uint8_t*>(xq), 0, 1, n, y, 0)) dot_rows_ref(type, w, w_stride, n_rows, xq, n, y);
}

void dot_rows_batch_x86(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y,
                        size_t y_stride) {
  const auto row_at = [&](int64_t r) { return w + static_cast<size_t>(r) * w_stride; };
  if (type == GgmlType::BF16) return bf16_rows(row_at, n_rows, xq, xq_stride, n_x, n, y, y_stride);
  if (rows_quantised(type, row_at, n_rows, xq, xq_stride, n_x, n, y, y_stride)) return;
  for (int64_t x = 0; x < n_x; ++x)  // F32/F16 weights and reference-only types: one activation row at a time
    dot_rows_x86(type, w, w_stride, n_rows, xq + static_cast<size_t>(x) * xq_stride, n, y + static_cast<size_t>(x) * y_stride);
}

void dot_rows_indexed_x86(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y) {
  if (type == GgmlType::BF16) return bf16_rows([&](int64_t r) { return w + static_cast<size_t>(ids[r]) * row_bytes; }, n_ids, xq, 0, 1, n, y, 0);
  if (const auto row = float_row_kernel(type)) {
    for (int64_t r = 0; r < n_ids; ++r) y[r] = row(w + static_cast<size_t>(ids[r]) * row_bytes, static_cast<const float*>(xq), n);
    return;
  }
  const auto row_at = [&](int64_t r) { return w + static_cast<size_t>(ids[r]) * row_bytes; };
  if (!rows_quantised(type, row_at, n_ids, static_cast<const uint8_t*>(xq), 0, 1, n, y, 0)) dot_rows_indexed_ref(type, w, row_bytes, ids, n_ids, xq, n, y);
}

}  // namespace
}  // namespace draftbench
