// Q5_0r16: a Q5_0 matrix with its rows interleaved in groups of sixteen, the layout of the
// transformer's Q5_0 matrices where the AVX-512 VNNI kernels run (draftbench's own type,
// never in a file). Gemma 3 270M's layer weights are mostly Q5_0.
//
// Why: verifying a draft of n tokens multiplies n activation rows by every matrix, and there
// the kernels of the repacked file layout (Q5_0x4, q5_0x4_x86.h) work one weight row at a
// time: they unpack each weight row's 5-bit codes once per pass of activation rows, run the
// eight group lanes' float steps per weight row and activation row, and fold the lanes into
// one sum per weight row and activation row. Here a 512-bit register holds four codes of each
// of sixteen rows, so the unpacking is done once per block for sixteen rows and every
// activation row, one vpdpbusd against four broadcast activation codes advances sixteen rows,
// and the float steps and the fold run on sixteen rows at once.
//
// The float contract is Q5_0's own, block_lanes.h's group lanes (vec_dot_ref.cpp's
// dot_q5_0): each row keeps sixteen float lane sums; block i of the row is in unit u = i / 4,
// which feeds set u mod 2, and its values 0..15 go to lane i mod 4 of that set and values
// 16..31 to lane 4 + i mod 4, each as lane += float(isum) x (d_w x d_x) with isum the exact
// integer sum; fold_block_lanes combines the lanes. Each row is one 32-bit lane of those
// steps, so results are bit-identical to the file layout's, whatever the batch or which rows
// are asked for.
//
// Layout: group g (rows 16g .. 16g + 15) takes 16 row_bytes, so a run of whole groups sits
// where the same rows' Q5_0 bytes would. A group is its blocks in order, each block b 352
// bytes (16 x sizeof(BlockQ5_0)) holding all sixteen rows' block b, codes and scales in one
// piece, so that one activation row reads a group as a single forward stream:
//   [0, 256)    qs: chunk k (64 bytes, k = 0..3) holds at 4r row r's qs[4k .. 4k + 3],
//               whose low nibbles are values 4k .. 4k + 3 and high nibbles 16 + 4k .. 19 + 4k
//   [256, 320)  qh: row r's four bytes at 4r (bit v: the fifth bit of value v)
//   [320, 352)  d: row r's fp16 scale at 2r
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/block_layout.h"

namespace draftbench {

inline constexpr int kQ5_0r16Rows = 16;
// The prepared activations of the VNNI kernel are sized for rows up to this many blocks
// (16384 values, as Q5_0x4's); longer rows keep the file's Q5_0.
inline constexpr int64_t kQ5_0r16MaxBlocks = 512;

inline constexpr size_t kQ5_0r16BlockBytes = kQ5_0r16Rows * sizeof(BlockQ5_0);
inline constexpr size_t kQ5_0r16ChunkBytes = 4 * kQ5_0r16Rows;
inline constexpr size_t kQ5_0r16Qh = 4 * kQ5_0r16ChunkBytes, kQ5_0r16D = kQ5_0r16Qh + 4 * kQ5_0r16Rows;
static_assert(kQ5_0r16D + 2 * kQ5_0r16Rows == kQ5_0r16BlockBytes);

inline size_t q5_0r16_group_bytes(int64_t nb) { return static_cast<size_t>(nb) * kQ5_0r16BlockBytes; }

// n_rows Q5_0 rows of nb blocks (row_bytes apart; n_rows a multiple of 16) into Q5_0r16 at
// dst, and back: row `lane` of the group at `group` as the file's nb blocks.
void interleave_q5_0_rows16(const uint8_t* rows, size_t row_bytes, int64_t n_rows, int64_t nb, uint8_t* dst);
void q5_0r16_unpack_row(const uint8_t* group, int lane, int64_t nb, BlockQ5_0* out);

// y[x * y_stride + r] = row r . activation row x for the n_rows rows (a multiple of 16) of
// whole groups starting at w; activation row x is the Q8_0 blocks at xq + x * xq_stride.
void q5_0r16_rows_ref(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);
void q5_0r16_rows_avx512vnni(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);
// The VNNI kernel where the CPU has it and nb fits, else the reference.
void q5_0r16_rows(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);

// y[k] = row ids[k] . xq, rows anywhere in the matrix starting at w.
void q5_0r16_indexed(const uint8_t* w, const int32_t* ids, int64_t n_ids, const void* xq, int64_t nb, float* y);

}  // namespace draftbench
