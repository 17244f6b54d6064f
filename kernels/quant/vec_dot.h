// Dot products of quantised weight rows with one quantised activation row.
//
// Float weights: F32 and F16 rows meet f32 activations in vec_dot_ref.cpp's dot_float order
// (16 lanes, index mod 16, multiply then add). BF16 rows meet BF16 activations
// (quantize_activation.h) in vdpbf16ps's arithmetic (dot_bf16_pairs there: the pair's odd
// value first, exact products, round-to-nearest-even adds, denormal inputs as zero, tiny
// sums flushed), which every build reproduces bit for bit: the AVX-512 BF16 build is that
// instruction; the others use f32 operations where they are exact and the reference
// elsewhere.
//
//   dot_rows_ref  plain scalar code: integer sums, then float multiply-adds in block
//                 order: per block for K-quants and float weights, per lane of four values
//                 (two lane sets, even and odd blocks) for the 32-value types
//                 (block_lanes.h). This order is the contract.
//   dot_rows_avx2 the same integer sums with AVX2, one weight row at a time; the float part
//                 performs exactly the reference's operations (the 32-value types' lanes in
//                 SIMD registers, the K-quants' per-block steps in scalar code or, for Q4_K
//                 (q4_k_x86.h), two blocks' in one register), so results are bit-identical
//                 to it.
//   dot_rows_avx512vnni  the same with vpdpbusd (AVX-512 VNNI, BW, VL), and for the
//                 32-value types a 512-bit kernel taking two blocks per instruction, for
//                 Q4_K and Q6_K kernels taking blocks in pairs, for F32/F16 the
//                 16 lanes in one register; identical results.
//   dot_rows_avx512bf16  BF16 weights with vdpbf16ps (AVX-512 BF16); other types as
//                 dot_rows_avx512vnni.
//   dot_rows      runtime dispatch.
//
// Because every path is bit-identical to the reference and each (weight row, activation
// row) pair is computed on its own, products are batch-invariant by construction.
//
// Shapes: `w` points to n_rows rows of `n` values in `type`, `w_stride` bytes apart;
// `xq` is one activation row quantised by quantize_activation_row(type, ...); y[n_rows].
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace draftbench {

float dot_row_ref(GgmlType type, const uint8_t* w, const void* xq, int64_t n);
void dot_rows_ref(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y);
void dot_rows_avx2(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y);
void dot_rows_avx512vnni(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y);
void dot_rows_avx512bf16(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y);
void dot_rows(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y);

// The same for a subset of rows: y[k] = dot(row ids[k] of w, xq) (draft-vocabulary logits).
void dot_rows_indexed_ref(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y);
void dot_rows_indexed_avx2(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y);
void dot_rows_indexed_avx512vnni(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y);
void dot_rows_indexed_avx512bf16(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y);
void dot_rows_indexed(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y);

// Several activation rows against the same weight rows, the inner loop of a matmul:
// y[x * y_stride + r] = dot(weight row r, activation row x), where activation row x starts at
// xq + x * xq_stride. Each result is bit-identical to dot_rows' for that activation row; the
// optimised builds unpack each weight block once for several activation rows (four for Q8_0, Q5_0,
// Q4_0, Q4_K, Q4_Kt, Q6_K and BF16; the AVX-512 builds take eight for Q8_0, Q5_0 and Q4_0 rows up to
// 4096 values, for Q4_K, Q6_K, F32, F16 and BF16; other types loop over the activation rows).
void dot_rows_batch_ref(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y,
                        size_t y_stride);
void dot_rows_batch_avx2(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n,
                         float* y, size_t y_stride);
void dot_rows_batch_avx512vnni(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n,
                               float* y, size_t y_stride);
void dot_rows_batch_avx512bf16(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n,
                               float* y, size_t y_stride);
void dot_rows_batch(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y,
                    size_t y_stride);

// Which implementation dot_rows uses on this CPU ("avx512vnni", "avx2", "reference"); with
// AVX-512 BF16 too, "avx512vnni" still (a comparability key of the benchmark baselines),
// BF16 weights then taking dot_rows_avx512bf16.
const char* dot_rows_backend();

// Whether dot_rows_batch takes AMX tiles for large batches of `type` on this CPU (k_quant_amx.h:
// Q4_K and Q6_K in the file layout, where AMX-INT8 runs).
bool dot_rows_batch_has_amx(GgmlType type);

}  // namespace draftbench
