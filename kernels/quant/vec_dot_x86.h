// x86 dot products, shared by the AVX2 and AVX-512 VNNI builds: each including translation
// unit is compiled with its own ISA flags and gets its own copy of the kernels with its
// integer-dot primitive (see dot_abs_s8). Integer sums are exact, so both give the same
// integers, and only the float steps matter for bit-identity with vec_dot_ref.cpp:
//   32-value blocks (Q4_0, Q5_0, Q8_0): one weight row at a time, the eight float lanes of a
//     register being block_lanes.h's lanes;
//   K-quants: 8 weight rows per pass, lane r of the accumulator performing exactly the
//     scalar operations the reference performs for row r.
// Everything here has internal linkage on purpose.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/quant/block_lanes.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/vec_dot.h"

namespace draftbench {
namespace {


constexpr int kRows = 8;

// Horizontal sums of 8 vectors of 8 int32 into one vector [sum(v0) .. sum(v7)].
inline __m256i hsum8_epi32(const __m256i v[8]) {
  const __m256i t0 = _mm256_hadd_epi32(v[0], v[1]);
  const __m256i t1 = _mm256_hadd_epi32(v[2], v[3]);
  const __m256i t2 = _mm256_hadd_epi32(v[4], v[5]);
  const __m256i t3 = _mm256_hadd_epi32(v[6], v[7]);
  const __m256i u0 = _mm256_hadd_epi32(t0, t1);
  const __m256i u1 = _mm256_hadd_epi32(t2, t3);
  return _mm256_add_epi32(_mm256_permute2x128_si256(u0, u1, 0x20), _mm256_permute2x128_si256(u0, u1, 0x31));
}

// Signed int8 x int8 -> 8 int32 partial sums. Neither operand may be -128
// (true for Q8_0 activations and for every weight code we feed here).
// It takes |w| and a with w's signs, so a caller that reuses w takes |w| once.
inline __m256i dot_abs_s8(__m256i abs_w, __m256i signed_a) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), abs_w, signed_a);
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(abs_w, signed_a), _mm256_set1_epi16(1));
#endif
}

// Unsigned (0..127) x signed int8 -> 16 int16 pair sums.
inline __m256i dot_u8_pairs(__m256i w, __m256i a) { return _mm256_maddubs_epi16(w, a); }

// 32 nibbles of 16 bytes: low nibbles first, then high nibbles (Q4_0/Q5_0 order).
inline __m256i unpack_nibbles_16(const uint8_t* qs) {
  const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
  const __m128i m = _mm_set1_epi8(0x0F);
  return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(q, 4), m), _mm_and_si128(q, m));
}

// Byte j = 0xF0 if bit j of the 32-bit mask is clear, else 0: or-ed onto a nibble, that is
// the Q5_0 code (nibble | bit << 4) - 16 as an int8, without a subtraction.
inline __m256i clear_bits_to_0xf0(const uint8_t* qh) {
  uint32_t bits;
  std::memcpy(&bits, qh, 4);
  const __m256i shuf = _mm256_setr_epi64x(0x0000000000000000, 0x0101010101010101, 0x0202020202020202, 0x0303030303030303);
  __m256i b = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)), shuf);
  const __m256i sel = _mm256_set1_epi64x(0x8040201008040201LL);
  b = _mm256_cmpeq_epi8(_mm256_and_si256(b, sel), sel);
  return _mm256_andnot_si256(b, _mm256_set1_epi8(static_cast<char>(0xF0)));
}

// The fp16 field at byte `offset` of block i of each of the 8 rows.
template <typename Block>
inline __m256 load_8_halves(const uint8_t* const* rows, int64_t i, size_t offset) {
  alignas(16) uint16_t h[8];
  for (int r = 0; r < 8; ++r) std::memcpy(&h[r], reinterpret_cast<const uint8_t*>(reinterpret_cast<const Block*>(rows[r]) + i) + offset, 2);
  return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(h)));
}

// block_lanes.h's fold of the eight lanes.
inline float fold_lanes(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));  // l + (l + 4)
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));                                          // (0 + 2), (1 + 3)
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

// One weight row of 32-value blocks against X activation rows: each block is unpacked once,
// with its |w|, for all X. Lane l of acc[x] performs exactly the reference's operations for
// lane l (block_lanes.h), so the result does not depend on X: matmul stays batch-invariant.
template <int X, typename Block, typename Unpack>
void row_32block_batch(const Block* w, const uint8_t* xq, size_t xq_stride, int64_t nb, float* out, size_t out_stride, Unpack unpack) {
  __m256 acc[X];
  for (int x = 0; x < X; ++x) acc[x] = _mm256_setzero_ps();
  for (int64_t i = 0; i < nb; ++i) {
    const __m256i q = unpack(w + i);
    const __m256i abs_q = _mm256_sign_epi8(q, q);
    const float dw = fp16_to_fp32(w[i].d);
    for (int x = 0; x < X; ++x) {
      const BlockQ8_0& y = reinterpret_cast<const BlockQ8_0*>(xq + static_cast<size_t>(x) * xq_stride)[i];
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y.qs));
      const __m256 lanes = _mm256_cvtepi32_ps(dot_abs_s8(abs_q, _mm256_sign_epi8(a, q)));
      acc[x] = _mm256_add_ps(acc[x], _mm256_mul_ps(lanes, _mm256_set1_ps(dw * fp16_to_fp32(y.d))));
    }
  }
  for (int x = 0; x < X; ++x) out[static_cast<size_t>(x) * out_stride] = fold_lanes(acc[x]);
}

inline __m256i unpack_q8_0(const BlockQ8_0* b) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b->qs)); }
inline __m256i unpack_q5_0(const BlockQ5_0* b) { return _mm256_or_si256(unpack_nibbles_16(b->qs), clear_bits_to_0xf0(b->qh)); }
inline __m256i unpack_q4_0(const BlockQ4_0* b) { return _mm256_sub_epi8(unpack_nibbles_16(b->qs), _mm256_set1_epi8(8)); }

// Up to kBatchX activation rows per pass over a weight row: four accumulators, the block
// and its |w| fit the 16 AVX2 registers.
constexpr int64_t kBatchX = 4;

// Weight rows row_at(0 .. n_rows) against n_x activation rows, xq_stride bytes apart:
// y[x * y_stride + r].
template <typename Block, typename RowAt, typename Unpack>
void rows_32block(RowAt row_at, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride,
                  Unpack unpack) {
  for (int64_t r = 0; r < n_rows; ++r) {
    const Block* w = reinterpret_cast<const Block*>(row_at(r));
    for (int64_t x = 0; x < n_x; x += kBatchX) {
      const uint8_t* xq_x = xq + static_cast<size_t>(x) * xq_stride;
      float* y_x = y + static_cast<size_t>(x) * y_stride + r;
      switch (std::min(kBatchX, n_x - x)) {
        case 4: row_32block_batch<4>(w, xq_x, xq_stride, nb, y_x, y_stride, unpack); break;
        case 3: row_32block_batch<3>(w, xq_x, xq_stride, nb, y_x, y_stride, unpack); break;
        case 2: row_32block_batch<2>(w, xq_x, xq_stride, nb, y_x, y_stride, unpack); break;
        default: row_32block_batch<1>(w, xq_x, xq_stride, nb, y_x, y_stride, unpack); break;
      }
    }
  }
}

// The 32-value-block kernel for `type`, or false for other types.
template <typename RowAt>
bool rows_32block_any(GgmlType type, RowAt row_at, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y,
                      size_t y_stride) {
  switch (type) {
    case GgmlType::Q8_0: rows_32block<BlockQ8_0>(row_at, n_rows, xq, xq_stride, n_x, n / 32, y, y_stride, unpack_q8_0); return true;
    case GgmlType::Q5_0: rows_32block<BlockQ5_0>(row_at, n_rows, xq, xq_stride, n_x, n / 32, y, y_stride, unpack_q5_0); return true;
    case GgmlType::Q4_0: rows_32block<BlockQ4_0>(row_at, n_rows, xq, xq_stride, n_x, n / 32, y, y_stride, unpack_q4_0); return true;
    default: return false;
  }
}

// Q4_K: scale-weighted integer sum of one super-block for one row.
inline __m256i q4_k_block_sum(const BlockQ4_K* b, const BlockQ8_K* y, int& imin) {
  __m256i acc = _mm256_setzero_si256();
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  for (int c = 0; c < 4; ++c) {
    uint8_t sc1, sc2, m;
    k_scale_min(2 * c, b->scales, sc1, m);
    k_scale_min(2 * c + 1, b->scales, sc2, m);
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b->qs + 32 * c));
    const __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y->qs + 64 * c));
    const __m256i a2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y->qs + 64 * c + 32));
    const __m256i p1 = dot_u8_pairs(_mm256_and_si256(q, m4), a1);
    const __m256i p2 = dot_u8_pairs(_mm256_and_si256(_mm256_srli_epi16(q, 4), m4), a2);
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p1, _mm256_set1_epi16(sc1)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p2, _mm256_set1_epi16(sc2)));
  }
  imin = 0;
  for (int j = 0; j < 8; ++j) {
    uint8_t sc, m;
    k_scale_min(j, b->scales, sc, m);
    imin += m * (y->bsums[2 * j] + y->bsums[2 * j + 1]);
  }
  return acc;
}

void rows_q4_k(const uint8_t* const* w, const BlockQ8_K* y, int64_t nb, float* out) {
  __m256 acc = _mm256_setzero_ps();
  for (int64_t i = 0; i < nb; ++i) {
    __m256i parts[kRows];
    alignas(32) int mins[kRows];
    for (int r = 0; r < kRows; ++r) parts[r] = q4_k_block_sum(reinterpret_cast<const BlockQ4_K*>(w[r]) + i, y + i, mins[r]);
    const __m256 isum = _mm256_cvtepi32_ps(hsum8_epi32(parts));
    const __m256 imin = _mm256_cvtepi32_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(mins)));
    const __m256 yd = _mm256_set1_ps(y[i].d);
    const __m256 d = _mm256_mul_ps(load_8_halves<BlockQ4_K>(w, i, offsetof(BlockQ4_K, d)), yd);
    const __m256 dmin = _mm256_mul_ps(load_8_halves<BlockQ4_K>(w, i, offsetof(BlockQ4_K, dmin)), yd);
    acc = _mm256_add_ps(acc, _mm256_mul_ps(isum, d));
    acc = _mm256_sub_ps(acc, _mm256_mul_ps(imin, dmin));
  }
  _mm256_storeu_ps(out, acc);
}

inline __m256i q6_k_block_sum(const BlockQ6_K* b, const BlockQ8_K* y) {
  __m256i acc = _mm256_setzero_si256();
  const __m256i m4 = _mm256_set1_epi8(0x0F), m2 = _mm256_set1_epi8(0x03);
  int bias = 0;  // sum over groups of scale * 32 * (activation group sum)
  for (int g = 0; g < 16; ++g) bias += b->scales[g] * y->bsums[g];
  for (int n = 0; n < 2; ++n) {
    const uint8_t* ql = b->ql + 64 * n;
    const __m256i l0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql));
    const __m256i l1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql + 32));
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b->qh + 32 * n));
    const __m256i q[4] = {
        _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_slli_epi16(_mm256_and_si256(h, m2), 4)),
        _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2), m2), 4)),
        _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 4), m2), 4)),
        _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 6), m2), 4)),
    };
    for (int k = 0; k < 4; ++k) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y->qs + 128 * n + 32 * k));
      const int8_t* sc = b->scales + 8 * n + 2 * k;
      // Pairs 0..7 of the product cover values 0..15 (scale sc[0]), pairs 8..15 values 16..31.
      const __m256i scales = _mm256_setr_m128i(_mm_set1_epi16(sc[0]), _mm_set1_epi16(sc[1]));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(dot_u8_pairs(q[k], a), scales));
    }
  }
  return _mm256_sub_epi32(acc, _mm256_setr_epi32(32 * bias, 0, 0, 0, 0, 0, 0, 0));
}

void rows_q6_k(const uint8_t* const* w, const BlockQ8_K* y, int64_t nb, float* out) {
  __m256 acc = _mm256_setzero_ps();
  for (int64_t i = 0; i < nb; ++i) {
    __m256i parts[kRows];
    for (int r = 0; r < kRows; ++r) parts[r] = q6_k_block_sum(reinterpret_cast<const BlockQ6_K*>(w[r]) + i, y + i);
    const __m256 isum = _mm256_cvtepi32_ps(hsum8_epi32(parts));
    const __m256 d = _mm256_mul_ps(load_8_halves<BlockQ6_K>(w, i, offsetof(BlockQ6_K, d)), _mm256_set1_ps(y[i].d));
    acc = _mm256_add_ps(acc, _mm256_mul_ps(isum, d));
  }
  _mm256_storeu_ps(out, acc);
}

// Float weights (F32, F16, BF16), one row at a time, in vec_dot_ref.cpp's dot_float order:
// its 16 partial sums (lane = index mod 16) are two vectors here, each lane doing the same
// multiply, then add; the tail and the pairwise combination then run on the stored lanes
// exactly as there. F16 converts with F16C, which is exact, as the reference's conversion.
template <GgmlType T>
inline __m256 load_8_floats(const uint8_t* w, int64_t i) {
  if constexpr (T == GgmlType::F32) return _mm256_loadu_ps(reinterpret_cast<const float*>(w) + i);
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(reinterpret_cast<const uint16_t*>(w) + i));
  if constexpr (T == GgmlType::F16) return _mm256_cvtph_ps(h);
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));  // BF16: the high half of an f32
}

template <GgmlType T>
inline float float_weight(const uint8_t* w, int64_t i) {
  if constexpr (T == GgmlType::F32) return reinterpret_cast<const float*>(w)[i];
  const uint16_t h = reinterpret_cast<const uint16_t*>(w)[i];
  if constexpr (T == GgmlType::F16) return fp16_to_fp32(h);
  return bf16_to_fp32(h);
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

// The float-row kernel for `type`, or null for quantised types.
inline float (*float_row_kernel(GgmlType type))(const uint8_t*, const float*, int64_t) {
  switch (type) {
    case GgmlType::F32: return dot_float_row<GgmlType::F32>;
    case GgmlType::F16: return dot_float_row<GgmlType::F16>;
    case GgmlType::BF16: return dot_float_row<GgmlType::BF16>;
    default: return nullptr;
  }
}

// K-quant rows given as 8 pointers: dispatches to the typed kernel, or returns false.
bool rows8_k(GgmlType type, const uint8_t* const* rows, const void* xq, int64_t n, float* y) {
  switch (type) {
    case GgmlType::Q4_K: rows_q4_k(rows, static_cast<const BlockQ8_K*>(xq), n / QK_K, y); return true;
    case GgmlType::Q6_K: rows_q6_k(rows, static_cast<const BlockQ8_K*>(xq), n / QK_K, y); return true;
    default: return false;
  }
}

void dot_rows_x86(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y) {
  if (const auto row = float_row_kernel(type)) {
    for (int64_t r = 0; r < n_rows; ++r) y[r] = row(w + static_cast<size_t>(r) * w_stride, static_cast<const float*>(xq), n);
    return;
  }
  const auto row_at = [&](int64_t r) { return w + static_cast<size_t>(r) * w_stride; };
  if (rows_32block_any(type, row_at, n_rows, static_cast<const uint8_t*>(xq), 0, 1, n, y, 0)) return;
  int64_t r = 0;
  for (; r + kRows <= n_rows; r += kRows) {
    const uint8_t* rows[kRows];
    for (int k = 0; k < kRows; ++k) rows[k] = row_at(r + k);
    if (!rows8_k(type, rows, xq, n, y + r)) break;
  }
  if (r < n_rows) dot_rows_ref(type, row_at(r), w_stride, n_rows - r, xq, n, y + r);
}

void dot_rows_batch_x86(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride,
                        int64_t n_x, int64_t n, float* y, size_t y_stride) {
  const auto row_at = [&](int64_t r) { return w + static_cast<size_t>(r) * w_stride; };
  if (rows_32block_any(type, row_at, n_rows, xq, xq_stride, n_x, n, y, y_stride)) return;
  for (int64_t x = 0; x < n_x; ++x)  // other types: one activation row at a time
    dot_rows_x86(type, w, w_stride, n_rows, xq + static_cast<size_t>(x) * xq_stride, n, y + static_cast<size_t>(x) * y_stride);
}

void dot_rows_indexed_x86(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq,
                           int64_t n, float* y) {
  if (const auto row = float_row_kernel(type)) {
    for (int64_t r = 0; r < n_ids; ++r) y[r] = row(w + static_cast<size_t>(ids[r]) * row_bytes, static_cast<const float*>(xq), n);
    return;
  }
  const auto row_at = [&](int64_t r) { return w + static_cast<size_t>(ids[r]) * row_bytes; };
  if (rows_32block_any(type, row_at, n_ids, static_cast<const uint8_t*>(xq), 0, 1, n, y, 0)) return;
  int64_t r = 0;
  for (; r + kRows <= n_ids; r += kRows) {
    const uint8_t* rows[kRows];
    for (int k = 0; k < kRows; ++k) rows[k] = row_at(r + k);
    if (!rows8_k(type, rows, xq, n, y + r)) break;
  }
  for (; r < n_ids; ++r) y[r] = dot_row_ref(type, row_at(r), xq, n);
}

}  // namespace
}  // namespace draftbench
