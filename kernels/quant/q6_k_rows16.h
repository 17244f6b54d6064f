// Q6_Kr16: a Q6_K matrix with its rows interleaved in groups of sixteen, the layout of the
// transformer's Q6_K matrices where the AVX-512 VNNI kernels run (draftbench's own type,
// never in a file); q4_k_rows16.h explains the idea and what it gained for Q4_K.
//
// The float contract is Q6_K's own (vec_dot_ref.cpp's dot_q6_k): per row and block in block
// order, sum += isum x (d x y.d), isum the exact integer sum over the sixteen 16-value groups
// of sc_g x (codes . activations - 32 x the group's activation sum). Each row is one lane of
// those steps, so results are bit-identical to the file layout's.
//
// Layout: group g (rows 16g .. 16g + 15) takes 16 row_bytes, so a run of whole groups sits
// where the same rows' Q6_K bytes would. A group is its blocks in order, each block b 3,360
// bytes (16 x sizeof(BlockQ6_K)) holding all sixteen rows' block b:
//   [0, 3072)     codes, for each half h = 0, 1 of the block and four-value step t = 0..7,
//                 three 64-byte chunks (at 192 (8h + t)) holding at 4r row r's bytes
//                 ql[64h + 4t ..], ql[64h + 32 + 4t ..] and qh[32h + 4t ..] (four each):
//                 the file's bytes for values 128h + 4t + 32k .. + 3, k = 0..3
//   [3072, 3328)  the scales: group k's sixteen rows at 16k (int8, row order)
//   [3328, 3360)  the sixteen rows' d (fp16), row order
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/block_layout.h"

namespace draftbench {

inline constexpr int kQ6_Kr16Rows = 16;
// The VNNI kernel's prepared activations hold rows up to this many blocks (16384 values);
// longer rows keep the file's Q6_K.
inline constexpr int64_t kQ6_Kr16MaxBlocks = 64;

inline constexpr size_t kQ6_Kr16BlockBytes = kQ6_Kr16Rows * sizeof(BlockQ6_K);
inline constexpr size_t kQ6_Kr16ChunkBytes = 4 * kQ6_Kr16Rows;
inline constexpr size_t kQ6_Kr16StepBytes = 3 * kQ6_Kr16ChunkBytes;  // one (half, t): ql, ql + 32, qh
inline constexpr size_t kQ6_Kr16Scales = 16 * kQ6_Kr16StepBytes, kQ6_Kr16D = kQ6_Kr16Scales + 16 * kQ6_Kr16Rows;
static_assert(kQ6_Kr16D + 2 * kQ6_Kr16Rows == kQ6_Kr16BlockBytes);

inline size_t q6_kr16_group_bytes(int64_t nb) { return static_cast<size_t>(nb) * kQ6_Kr16BlockBytes; }

// n_rows Q6_K rows of nb blocks (row_bytes apart; n_rows a multiple of 16) into Q6_Kr16 at
// dst, and back: row `lane` of the group at `group` as the file's nb blocks.
void interleave_q6_k_rows16(const uint8_t* rows, size_t row_bytes, int64_t n_rows, int64_t nb, uint8_t* dst);
void q6_kr16_unpack_row(const uint8_t* group, int lane, int64_t nb, BlockQ6_K* out);

// y[x * y_stride + r] = row r . activation row x for the n_rows rows (a multiple of 16) of
// whole groups starting at w; activation row x is the Q8_K blocks at xq + x * xq_stride.
void q6_kr16_rows_ref(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);
void q6_kr16_rows_avx512vnni(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);
// The VNNI kernel where the CPU has it and nb fits, else the reference.
void q6_kr16_rows(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);

// y[k] = row ids[k] . xq, rows anywhere in the matrix starting at w.
void q6_kr16_indexed(const uint8_t* w, const int32_t* ids, int64_t n_ids, const void* xq, int64_t nb, float* y);

}  // namespace draftbench
