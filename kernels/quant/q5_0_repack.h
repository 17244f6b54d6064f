// Q5_0 weights repacked for the x86 mat-vec, the way llama.cpp repacks weights for its CPU
// kernels: from the file's layout a kernel assembles each block's nibbles, high bits and
// scale from three places and expands 32 high bits to 32 bytes per block, which left the
// products compute-bound at half of the memory bandwidth. Two layouts, one per ISA:
//
// Q5_0x2 (BlockQ5_0x2, AVX-512 VNNI: q5_0x2_avx512.h), blocks in pairs:
//   qs  block 0's 16 nibble bytes, then block 1's; one 256-bit broadcast puts them in both
//       halves of a register, and one shift by 0 or 4 per quarter gives the codes as
//       [block 0 values 0-15, block 1 values 0-15, block 0 values 16-31, block 1 values 16-31];
//   qh  the high bits in that byte order: bits 0-15 of block 0's, bits 0-15 of block 1's,
//       bits 16-31 of block 0's, bits 16-31 of block 1's: one mask-register load;
//   d   the two fp16 scales.
//
// Q5_0x4 (BlockQ5_0x4, AVX2: q5_0x4_x86.h), blocks in fours, every field one load:
//   d   the four fp16 scales: one conversion, and the scale products with the activation's
//       made four at a time;
//   qs  per block pair p (blocks A = 2p, B = 2p + 1), 32 bytes: byte v holds A's 5-bit code
//       of value v in bits 0-4 and B's low three code bits in bits 5-7. A's codes in value
//       order are then one mask of a 32-byte load, B's a shift and a mask;
//   qh  B's top two code bits as a plane: value k (k < 16) of block 1 in bits 0-1 of byte
//       k, of block 3 in bits 2-3; value k + 16 in bits 4-5 and 6-7. Spread over 32 bytes
//       once per group (bytes 16..31 shifted down by 4), they are one shift and one mask per
//       B block from bits 3-4 of its codes.
//   Per group of four blocks that is 13 integer instructions for the codes; the file layout
//   took about 24 (the nibbles, and 32 high bits spread to bytes for each block).
//
// The values and scales are the blocks' own, so every dot product keeps the Q5_0
// reference's operations (dot_rows of repacked rows equals dot_rows of the Q5_0 rows bit
// for bit). A row holds whole groups: n a multiple of 64 (Q5_0x2) or 128 (Q5_0x4).
#pragma once

#include <cstdint>

#include "kernels/quant/block_layout.h"
#include "kernels/quant/ggml_type.h"

namespace draftbench {

// Q5_0 blocks per group of a repacked type (2 for Q5_0x2, 4 for Q5_0x4), 0 for any other.
int q5_0_group_blocks(GgmlType type);

// n_blocks Q5_0 blocks (whole groups) into `to`'s layout at dst, and back.
void repack_q5_0(GgmlType to, const BlockQ5_0* blocks, int64_t n_blocks, void* dst);
void unpack_q5_0(GgmlType from, const void* src, int64_t n_blocks, BlockQ5_0* blocks);

}  // namespace draftbench
