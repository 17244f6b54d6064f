// Q4_Kr16: a Q4_K matrix with its rows interleaved in groups of sixteen, the layout of the
// transformer's Q4_K matrices where the AVX-512 VNNI kernels run without AMX (draftbench's
// own type, never in a file).
//
// Why: verifying a draft of n tokens multiplies n activation rows by every matrix, and there
// the file layout's kernel (q4_k_x86.h) spends per block, weight row and activation row
// horizontal sums, a scale decode shared by only its activation rows, and scalar float
// steps: about 38 instructions a block, which made each verified token cost a third of an
// autoregressive step on Qwen2.5-Coder-1.5B (Zen 4). Here a 512-bit register holds four
// codes of each of sixteen rows, so one vpdpbusd with four broadcast activation codes
// advances sixteen rows, a block's scales are decoded once for all its rows and activation
// rows, and the float steps run on sixteen rows at once. (Eight rows in 256-bit registers
// took twice the instructions: one broadcast per vpdpbusd either way, and it was no faster
// than the file layout for one activation row.)
//
// The float contract is Q4_K's own (vec_dot_ref.cpp's dot_q4_k), per row and block in block
// order: sum += isum x (d x y.d), then sum -= imin x (dmin x y.d), with isum and imin the
// exact integer sums. Each row is one lane of those steps, so results are bit-identical to
// the file layout's, whatever the batch or which rows are asked for.
//
// Layout: group g (rows 16g .. 16g + 15) takes 16 row_bytes, so a run of whole groups sits
// where the same rows' Q4_K bytes would. A group is its blocks in order, each block b 2,304
// bytes (16 x sizeof(BlockQ4_K)) holding all sixteen rows' block b:
//   [0, 2048)     codes: chunk 4t + m (64 bytes, m = 0..3 the sub-block pair, t = 0..7)
//                 holds at 4r row r's qs[32m + 4t .. 32m + 4t + 3]: low nibbles values
//                 4t .. 4t + 3 of sub-block 2m, high nibbles those of sub-block 2m + 1
//   [2048, 2080)  the sixteen rows' d (fp16), row order; [2080, 2112) their dmin
//   [2112, 2176)  the 128 scales' low nibbles, value k at byte k / 2 (low nibble for even k)
//   [2176, 2240)  the 128 mins' low nibbles, likewise
//   [2240, 2272)  the scales' top two bits, value k at byte k / 4, bits 2 (k % 4);
//   [2272, 2304)  the mins' likewise
// Scale k is sub-block j = k / 16 of row r = k % 16 (one sub-block's sixteen rows together,
// as the kernel multiplies them); min k is sub-block 2 (k / 32) + k % 2 of row (k % 32) / 2
// (each row's two mins of a sub-block pair side by side, as vpmaddwd takes them).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/block_layout.h"

namespace draftbench {

inline constexpr int kQ4_Kr16Rows = 16;
// The prepared activations of the VNNI kernel are sized for rows up to this many blocks
// (16384 values: every Q4_K matrix of the models we run); longer rows keep the file's Q4_K.
inline constexpr int64_t kQ4_Kr16MaxBlocks = 64;

inline constexpr size_t kQ4_Kr16BlockBytes = kQ4_Kr16Rows * sizeof(BlockQ4_K);
inline constexpr size_t kQ4_Kr16ChunkBytes = 4 * kQ4_Kr16Rows;
inline constexpr size_t kQ4_Kr16D = 32 * kQ4_Kr16ChunkBytes, kQ4_Kr16Dmin = kQ4_Kr16D + 32;
inline constexpr size_t kQ4_Kr16ScaleNibbles = kQ4_Kr16Dmin + 32, kQ4_Kr16MinNibbles = kQ4_Kr16ScaleNibbles + 64;
inline constexpr size_t kQ4_Kr16ScaleTops = kQ4_Kr16MinNibbles + 64, kQ4_Kr16MinTops = kQ4_Kr16ScaleTops + 32;
static_assert(kQ4_Kr16MinTops + 32 == kQ4_Kr16BlockBytes);

inline size_t q4_kr16_group_bytes(int64_t nb) { return static_cast<size_t>(nb) * kQ4_Kr16BlockBytes; }

// Where scale or min value k of a block is kept: index k of the 6-bit values above.
inline constexpr int q4_kr16_scale_index(int row, int sub_block) { return kQ4_Kr16Rows * sub_block + row; }
inline constexpr int q4_kr16_min_index(int row, int sub_block) { return 2 * kQ4_Kr16Rows * (sub_block / 2) + 2 * row + sub_block % 2; }

// n_rows Q4_K rows of nb blocks (row_bytes apart; n_rows a multiple of 16) into Q4_Kr16 at dst,
// and back: row `lane` of the group at `group` as the file's nb blocks.
void interleave_q4_k_rows16(const uint8_t* rows, size_t row_bytes, int64_t n_rows, int64_t nb, uint8_t* dst);
void q4_kr16_unpack_row(const uint8_t* group, int lane, int64_t nb, BlockQ4_K* out);

// y[x * y_stride + r] = row r . activation row x for the n_rows rows (a multiple of 16) of
// whole groups starting at w; activation row x is the Q8_K blocks at xq + x * xq_stride.
void q4_kr16_rows_ref(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);
void q4_kr16_rows_avx512vnni(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);
// The VNNI kernel where the CPU has it and nb fits, else the reference.
void q4_kr16_rows(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);

// y[k] = row ids[k] . xq, rows anywhere in the matrix starting at w.
void q4_kr16_indexed(const uint8_t* w, const int32_t* ids, int64_t n_ids, const void* xq, int64_t nb, float* y);

}  // namespace draftbench
