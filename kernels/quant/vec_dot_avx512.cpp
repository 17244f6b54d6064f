// AVX-512 VNNI (VL, BW) build of the x86 dot-product kernels: vpdpbusd replaces the
// maddubs+madd pair; the integers, and so the results, are identical to the AVX2 build.
//
// One activation row against Q4_0 and Q8_0 blocks (decode's mat-vec) also has a 512-bit
// kernel here: two blocks per instruction for the integer work. Q5_0 (block_lanes.h's group
// lanes) takes vec_dot_x86.h's kernels, q5_0x4_x86.h's for the Q5_0x4 layout the engine
// makes here too: the same source as the AVX2 build's, compiled for this one. The K-quants
// have their own kernels (q4_k_x86.h's VNNI form, q6_k_avx512.h: vpdpbusd per 32 values,
// one vpmaddwd for two chunks' scales, blocks in pairs), for one activation row and for
// batches. The activation row is prepared once per call, which the weight rows then share:
// its codes packed back to back (two blocks per 64-byte load), its block scales as floats,
// and, for weights stored as unsigned codes with an offset (Q4_0: code - 8), offset x each
// lane's activation sum, so that vpdpbusd takes the unsigned codes as they are. The integer lane sums are
// exact either way, and the float steps (block_lanes.h) are the reference's, block after
// block in each lane set: results stay bit-identical.
//
// Float weights (F32, F16, BF16) take the reference's 16 lanes in one register, and in
// batches each 16-value chunk of weights is converted once for eight activation rows.
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "kernels/quant/q6_k_avx512.h"
#include "kernels/quant/row_count.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/quant/vec_dot_x86.h"
#include "kernels/quant/zmm_lanes.h"

namespace draftbench {
namespace {

// The mat-vec's row: up to 16384 values; longer ones take the 256-bit kernels.
using PreparedRow = PreparedActivation<512>;

// Two blocks' 32 unsigned codes each, block i in the low 256 bits. Nibbles as
// unpack_nibbles_16 lays them out (value j in byte j).
template <typename Block>
inline __m512i nibbles_2(const Block& b0, const Block& b1) {
  const __m512i q = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b0.qs)))),
                                       _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b1.qs))), 1);
  return _mm512_and_si512(_mm512_srlv_epi64(q, _mm512_setr_epi64(0, 0, 4, 4, 0, 0, 4, 4)), _mm512_set1_epi8(0x0F));
}

inline __m512i codes_2(const BlockQ4_0& b0, const BlockQ4_0& b1) { return nibbles_2(b0, b1); }

// The two weight blocks' scales as floats, in lanes 0 and 1.
template <typename Block>
inline __m128 weight_scales_2(const Block& b0, const Block& b1) {
  return _mm_cvtph_ps(_mm_insert_epi16(_mm_cvtsi32_si128(b0.d), b1.d, 1));
}

// [s0 x 8, s1 x 8] with s = the weight block's scale (dw, lanes 0 and 1) times the
// activation block's (yd[0], yd[1]).
inline __m512 pair_scales(__m128 dw, const float* yd) {
  const __m128 s = _mm_mul_ps(dw, _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(yd))));
  return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1), _mm512_castps128_ps512(s));
}

template <typename Block>
inline __m512 scales_2(const Block& b0, const Block& b1, const float* yd) {
  return pair_scales(weight_scales_2(b0, b1), yd);
}

// One weight row against a prepared activation row. Q4_0 takes unsigned codes with the
// offset sums; Q8_0 takes |w| against the activations with w's signs. One row at a time:
// rows side by side are streams far apart, whose weights arrive late (kernels/bench/README.md,
// "Why the kernels look as they do"). A block pair's products are one add onto both lane sets.
template <typename Block>
float row_2blocks(const Block* w, const PreparedRow& a, int64_t nb) {
  constexpr bool kSigned = std::is_same_v<Block, BlockQ8_0>;
  __m512 acc = _mm512_setzero_ps();  // block_lanes.h's set 0 (even blocks) low, set 1 high
  int64_t i = 0;
  for (; i + 2 <= nb; i += 2) {
    const __m512i x = _mm512_load_si512(a.qs[i]);
    __m512i isum;
    if constexpr (kSigned) {
      const __m512i q = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[i].qs))),
                                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[i + 1].qs)), 1);
      const __m512i signed_x = _mm512_mask_sub_epi8(x, _mm512_movepi8_mask(q), _mm512_setzero_si512(), x);
      isum = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_abs_epi8(q), signed_x);
    } else {
      isum = _mm512_dpbusd_epi32(_mm512_load_si512(a.offset_sums[i]), codes_2(w[i], w[i + 1]), x);
    }
    acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_cvtepi32_ps(isum), scales_2(w[i], w[i + 1], a.d + i)));
  }
  if (i < nb) {  // an odd last block
    const __m256i x = _mm256_load_si256(reinterpret_cast<const __m256i*>(a.qs[i]));
    __m256i isum;
    if constexpr (kSigned) {
      const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[i].qs));
      isum = _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_abs_epi8(q), _mm256_sign_epi8(x, q));
    } else {
      isum = _mm512_castsi512_si256(_mm512_dpbusd_epi32(_mm512_load_si512(a.offset_sums[i]), codes_2(w[i], w[i]), _mm512_castsi256_si512(x)));
    }
    const __m256 products = _mm256_mul_ps(_mm256_cvtepi32_ps(isum), _mm512_castps512_ps256(scales_2(w[i], w[i], a.d + i)));
    acc = _mm512_mask_add_ps(acc, 0x00FF, acc, _mm512_castps256_ps512(products));  // set 0 only
  }
  return fold_zmm_lanes(acc);
}

template <typename Block, typename RowAt>
void rows_prepared(RowAt row_at, int64_t n_rows, const PreparedRow& a, int64_t nb, float* y) {
  for (int64_t r = 0; r < n_rows; ++r) y[r] = row_2blocks(reinterpret_cast<const Block*>(row_at(r)), a, nb);
}

// A K-quant type (q4_k_x86.h, q6_k_avx512.h) against n_x activation rows, up to
// kZmmBatchRows at a time, or false for other types.
template <typename RowAt>
bool rows_k_quant_zmm(GgmlType type, RowAt row_at, int64_t n_rows, const void* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y, size_t y_stride) {
  const int64_t nb = n / QK_K;
  switch (type) {
    case GgmlType::Q4_K: rows_prepared_q8_k<kZmmBatchRows, BlockQ4_K>(row_at, n_rows, xq, xq_stride, n_x, nb, y, y_stride, q4_k_rows); return true;
    case GgmlType::Q6_K: rows_prepared_q8_k<kZmmBatchRows, BlockQ6_K>(row_at, n_rows, xq, xq_stride, n_x, nb, y, y_stride, q6_k_rows_zmm); return true;
    default: return false;
  }
}

// The 512-bit kernel for one activation row (Q4_K, Q6_K: the VNNI kernels for them), or
// false (other types, or 32-value rows too long).
template <typename RowAt>
bool rows_zmm(GgmlType type, RowAt row_at, int64_t n_rows, const void* xq, int64_t n, float* y) {
  if (n_rows == 0) return false;
  if (rows_k_quant_zmm(type, row_at, n_rows, xq, 0, 1, n, y, 0)) return true;
  const int64_t nb = n / 32;
  if (nb > PreparedRow::kBlocks) return false;
  PreparedRow a;
  const auto run = [&]<typename Block>() {
    // Q8_0's codes stay signed here (row_2blocks): no offset.
    prepare_activation(static_cast<const BlockQ8_0*>(xq), nb, std::is_same_v<Block, BlockQ8_0> ? 0 : kCodeOffset<Block>, a);
    rows_prepared<Block>(row_at, n_rows, a, nb, y);
    return true;
  };
  switch (type) {
    case GgmlType::Q4_0: return run.template operator()<BlockQ4_0>();
    case GgmlType::Q8_0: return run.template operator()<BlockQ8_0>();
    default: return false;
  }
}

// Several activation rows (matmul in prefill and tree verification): the mat-vec's step,
// with each block pair's codes and weight scales unpacked once for up to kBatchRows
// activation rows. Every type gives vpdpbusd unsigned codes here (Q8_0 too: code + 128,
// which its offset sums take back), so an activation row costs one vpdpbusd per block pair
// and no sign work. Lane for lane the float steps are row_2blocks': bit-identical. The
// 256-bit batch kernel paid its float steps per block and activation row, which kept
// Q5_0 products (then on this kernel) at under half the FLOP probe.
constexpr int kBatchRows = kZmmBatchRows;
using PreparedBatchRow = PreparedActivation<128>;  // rows up to 4096 values; longer take the 256-bit kernels
static_assert(PreparedBatchRow::kBlocks % 2 == 0, "an odd last block reads the slot after it");

inline __m512i unsigned_codes_2(const BlockQ8_0& b0, const BlockQ8_0& b1) {
  const __m512i q = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b0.qs))),
                                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b1.qs)), 1);
  return _mm512_xor_si512(q, _mm512_set1_epi8(static_cast<char>(0x80)));
}
template <typename Block>
inline __m512i unsigned_codes_2(const Block& b0, const Block& b1) {
  return codes_2(b0, b1);
}

template <int X, typename Block>
void row_2blocks_batch(const Block* w, const PreparedBatchRow* a, int64_t nb, float* out, size_t out_stride) {
  __m512 acc[X];  // as row_2blocks: set 0 low, set 1 high
  for (int x = 0; x < X; ++x) acc[x] = _mm512_setzero_ps();
  // Blocks i and i + 1 (codes q, scales dw) onto the lane sets `sets` of every row's acc.
  // An odd last block goes as the pair (i, i) onto set 0 alone, as in row_2blocks: the
  // activation's slot i + 1 is read (Blocks is even) but lands only in the masked lanes.
  const auto add_pair = [&](int64_t i, __m512i q, __m128 dw, __mmask16 sets) {
    for (int x = 0; x < X; ++x) {
      const __m512i isum = _mm512_dpbusd_epi32(_mm512_load_si512(a[x].offset_sums[i]), q, _mm512_load_si512(a[x].qs[i]));
      acc[x] = _mm512_mask_add_ps(acc[x], sets, acc[x], _mm512_mul_ps(_mm512_cvtepi32_ps(isum), pair_scales(dw, a[x].d + i)));
    }
  };
  int64_t i = 0;
  for (; i + 2 <= nb; i += 2) add_pair(i, unsigned_codes_2(w[i], w[i + 1]), weight_scales_2(w[i], w[i + 1]), 0xFFFF);
  if (i < nb) add_pair(i, unsigned_codes_2(w[i], w[i]), weight_scales_2(w[i], w[i]), 0x00FF);
  for (int x = 0; x < X; ++x) out[static_cast<size_t>(x) * out_stride] = fold_zmm_lanes(acc[x]);
}

// kBatchRows activation rows at a time are prepared, then every weight row passes over them:
// the caller's weight tile stays in cache while the activation groups take turns.
template <typename Block>
void rows_batch_zmm(const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y,
                    size_t y_stride) {
  PreparedBatchRow a[kBatchRows];
  for (int64_t x0 = 0; x0 < n_x; x0 += kBatchRows) {
    const int rows_here = static_cast<int>(std::min<int64_t>(kBatchRows, n_x - x0));
    for (int x = 0; x < rows_here; ++x)
      prepare_activation(reinterpret_cast<const BlockQ8_0*>(xq + static_cast<size_t>(x0 + x) * xq_stride), nb, kCodeOffset<Block>, a[x]);
    float* y_x = y + static_cast<size_t>(x0) * y_stride;
    with_row_count<kZmmBatchRows>(rows_here, [&](auto X) {
      for (int64_t r = 0; r < n_rows; ++r) {
        const auto* w_r = reinterpret_cast<const Block*>(w + static_cast<size_t>(r) * w_stride);
        row_2blocks_batch<X()>(w_r, a, nb, y_x + r, y_stride);
      }
    });
  }
}

// The 512-bit batch kernel for several activation rows (Q4_K, Q6_K: the VNNI kernels for
// them), or false (other types, 32-value rows too long).
bool batch_zmm(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y,
               size_t y_stride) {
  const auto row_at = [&](int64_t r) { return w + static_cast<size_t>(r) * w_stride; };
  if (rows_k_quant_zmm(type, row_at, n_rows, xq, xq_stride, n_x, n, y, y_stride)) return true;
  const int64_t nb = n / 32;
  if (nb > PreparedBatchRow::kBlocks) return false;
  switch (type) {
    case GgmlType::Q4_0: rows_batch_zmm<BlockQ4_0>(w, w_stride, n_rows, xq, xq_stride, n_x, nb, y, y_stride); return true;
    case GgmlType::Q8_0: rows_batch_zmm<BlockQ8_0>(w, w_stride, n_rows, xq, xq_stride, n_x, nb, y, y_stride); return true;
    default: return false;
  }
}

// F32 and F16 weights against f32 activations: vec_dot_ref.cpp's dot_float with
// its 16 partial sums in one register, lane l = index mod 16, a multiply then an add per
// lane; the tail's values go to lanes 0.. under a mask, and fold_zmm_lanes is the reference's
// pairwise combination (8, 4, 2, 1): bit-identical. (BF16 weights take BF16 activations:
// vec_dot_ref.cpp's dot_bf16_pairs, vec_dot_x86.h's AVX2 form, vec_dot_avx512bf16.cpp.)
template <GgmlType T>
inline __m512 load_16_floats(const uint8_t* w, int64_t i, __mmask16 valid = 0xFFFF) {
  static_assert(T == GgmlType::F32 || T == GgmlType::F16);
  if constexpr (T == GgmlType::F32) return _mm512_maskz_loadu_ps(valid, reinterpret_cast<const float*>(w) + i);
  else return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(valid, reinterpret_cast<const uint16_t*>(w) + i));  // exact, as fp16_to_fp32
}

// One float weight row against X activation rows (x, x_stride floats apart): each 16-value
// chunk of the row is loaded and converted once for all X. Lane for lane every row's
// operations are dot_float's, so the result does not depend on X.
template <int X, GgmlType T>
void float_row_batch(const uint8_t* w, const float* x, size_t x_stride, int64_t n, float* out, size_t out_stride) {
  __m512 acc[X];
  for (int r = 0; r < X; ++r) acc[r] = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 wv = load_16_floats<T>(w, i);
    for (int r = 0; r < X; ++r) acc[r] = _mm512_add_ps(acc[r], _mm512_mul_ps(wv, _mm512_loadu_ps(x + r * x_stride + i)));
  }
  if (i < n) {  // the reference's tail: value i + l onto lane l
    const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 wv = load_16_floats<T>(w, i, tail);
    for (int r = 0; r < X; ++r) acc[r] = _mm512_mask_add_ps(acc[r], tail, acc[r], _mm512_mul_ps(wv, _mm512_maskz_loadu_ps(tail, x + r * x_stride + i)));
  }
  for (int r = 0; r < X; ++r) out[static_cast<size_t>(r) * out_stride] = fold_zmm_lanes(acc[r]);
}

// Weight rows row_at(0 .. n_rows) against n_x activation rows: kBatchRows activation rows at
// a time, every weight row passing over them (the caller's weight tile stays in cache).
template <GgmlType T, typename RowAt>
void float_rows(RowAt row_at, int64_t n_rows, const float* x, size_t x_stride, int64_t n_x, int64_t n, float* y, size_t y_stride) {
  for (int64_t x0 = 0; x0 < n_x; x0 += kBatchRows) {
    const float* x_group = x + static_cast<size_t>(x0) * x_stride;
    float* y_group = y + static_cast<size_t>(x0) * y_stride;
    with_row_count<kZmmBatchRows>(static_cast<int>(std::min<int64_t>(kBatchRows, n_x - x0)), [&](auto X) {
      for (int64_t r = 0; r < n_rows; ++r) float_row_batch<X(), T>(row_at(r), x_group, x_stride, n, y_group + r, y_stride);
    });
  }
}

// The F32/F16 kernel for `type` (x: n_x f32 rows, xq_stride bytes apart), or false.
template <typename RowAt>
bool float_rows_any(GgmlType type, RowAt row_at, int64_t n_rows, const void* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y, size_t y_stride) {
  const auto* x = static_cast<const float*>(xq);
  const size_t x_stride = xq_stride / sizeof(float);
  switch (type) {
    case GgmlType::F32: float_rows<GgmlType::F32>(row_at, n_rows, x, x_stride, n_x, n, y, y_stride); return true;
    case GgmlType::F16: float_rows<GgmlType::F16>(row_at, n_rows, x, x_stride, n_x, n, y, y_stride); return true;
    default: return false;
  }
}

}  // namespace

void dot_rows_avx512vnni(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y) {
  const auto row_at = [&](int64_t r) { return w + static_cast<size_t>(r) * w_stride; };
  if (float_rows_any(type, row_at, n_rows, xq, 0, 1, n, y, 0) || rows_zmm(type, row_at, n_rows, xq, n, y)) return;
  dot_rows_x86(type, w, w_stride, n_rows, xq, n, y);
}

void dot_rows_indexed_avx512vnni(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y) {
  const auto row_at = [&](int64_t r) { return w + static_cast<size_t>(ids[r]) * row_bytes; };
  if (float_rows_any(type, row_at, n_ids, xq, 0, 1, n, y, 0) || rows_zmm(type, row_at, n_ids, xq, n, y)) return;
  dot_rows_indexed_x86(type, w, row_bytes, ids, n_ids, xq, n, y);
}

void dot_rows_batch_avx512vnni(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n,
                               float* y, size_t y_stride) {
  const auto row_at = [&](int64_t r) { return w + static_cast<size_t>(r) * w_stride; };
  if (float_rows_any(type, row_at, n_rows, xq, xq_stride, n_x, n, y, y_stride)) return;
  // One activation row (decode through matmul) is the mat-vec: the 512-bit kernel.
  if (n_x == 1 && rows_zmm(type, row_at, n_rows, xq, n, y)) return;
  if (n_x > 1 && batch_zmm(type, w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride)) return;
  dot_rows_batch_x86(type, w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride);
}

}  // namespace draftbench
