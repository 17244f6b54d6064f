// Q8_0r16: a Q8_0 matrix with its rows interleaved in groups of sixteen, the layout of the
// LM head on CPUs with AVX-512 VNNI (draftbench's own type, never in a file).
//
// Why: verifying a draft of n tokens multiplies n activation rows by the whole head (262,144
// rows on Gemma 3), and there the file layout's kernels are compute-bound on their float
// steps: block_lanes.h's contract converts, scales and adds eight partial sums per block,
// weight row and activation row. Here a 512-bit register holds four codes of each of sixteen
// rows, so one vpdpbusd with four broadcast activation codes advances sixteen rows, and each
// block ends in one integer sum per row: one conversion and one fused multiply-add per block
// for sixteen rows.
//
// Layout: group g (rows 16g .. 16g + 15) takes 16 row_bytes, so a run of whole groups sits
// where the same rows' Q8_0 bytes would. Rows have an even number of blocks, and a group is
// its blocks in pairs: the codes of block 2u, those of block 2u + 1, then the two blocks'
// sixteen fp16 scales each. A block's codes are eight 64-byte chunks: chunk k is values
// 4k .. 4k + 3 of the block in each row, rows in order, each code stored as code + 128
// (unsigned, as vpdpbusd takes its first operand). So one activation row reads each group
// as one forward stream, and in a 64-byte aligned matrix every chunk is one cache line.
//
// The float contract (not block_lanes.h's): with x a Q8_0 activation row,
//   y = 0; for b = 0 .. nb - 1 in order:  y = fma(float(s_b), d_w(b) * d_x(b), y)
// where s_b is the exact integer sum of the 32 code products and the scale product is
// rounded to float before the fused multiply-add. Every implementation below computes
// exactly this, so results do not depend on the kernel, the number of activation rows, or
// which rows are asked for (batch invariance).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/block_layout.h"

namespace draftbench {

inline constexpr int kQ8_0r16Rows = 16;
// The prepared activations of the VNNI kernel are sized for rows up to this many blocks
// (8192 values: every LM head of the models we run); longer rows keep the file's Q8_0.
inline constexpr int64_t kQ8_0r16MaxBlocks = 256;

inline constexpr size_t kQ8_0r16ChunkBytes = 4 * kQ8_0r16Rows;
inline constexpr size_t kQ8_0r16BlockCodeBytes = 8 * kQ8_0r16ChunkBytes;

inline constexpr size_t kQ8_0r16ScaleBytes = kQ8_0r16Rows * sizeof(uint16_t);
inline constexpr size_t kQ8_0r16PairBytes = 2 * (kQ8_0r16BlockCodeBytes + kQ8_0r16ScaleBytes);
static_assert(kQ8_0r16PairBytes == 2 * kQ8_0r16Rows * sizeof(BlockQ8_0));

inline size_t q8_0r16_group_bytes(int64_t nb) { return static_cast<size_t>(nb) * kQ8_0r16Rows * sizeof(BlockQ8_0); }
// Block b of a group: its codes, and its sixteen scales (row order).
inline const uint8_t* q8_0r16_codes(const uint8_t* group, int64_t b) {
  return group + static_cast<size_t>(b / 2) * kQ8_0r16PairBytes + static_cast<size_t>(b % 2) * kQ8_0r16BlockCodeBytes;
}
inline const uint16_t* q8_0r16_scales(const uint8_t* group, int64_t b) {
  return reinterpret_cast<const uint16_t*>(group + static_cast<size_t>(b / 2) * kQ8_0r16PairBytes + 2 * kQ8_0r16BlockCodeBytes +
                                           static_cast<size_t>(b % 2) * kQ8_0r16ScaleBytes);
}

// n_rows Q8_0 rows of nb blocks (row_bytes apart; n_rows a multiple of 16, nb even) into
// Q8_0r16 at dst.
void interleave_q8_0_rows16(const uint8_t* rows, size_t row_bytes, int64_t n_rows, int64_t nb, uint8_t* dst);

// y[x * y_stride + r] = row r . activation row x for the n_rows rows (a multiple of 16) of
// whole groups starting at w; activation row x is the Q8_0 blocks at xq + x * xq_stride.
void q8_0r16_rows_ref(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);
void q8_0r16_rows_avx512vnni(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);
// The VNNI kernel where the CPU has it and nb fits, else the reference.
void q8_0r16_rows(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);

// y[k] = row ids[k] . xq, rows anywhere in the matrix starting at w (draft vocabularies).
void q8_0r16_indexed(const uint8_t* w, const int32_t* ids, int64_t n_ids, const void* xq, int64_t nb, float* y);

}  // namespace draftbench
