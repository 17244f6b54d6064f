// Q5_0 weights repacked in block pairs (BlockQ5_0x2, GgmlType::Q5_0x2) for the AVX-512
// mat-vec, the way llama.cpp repacks weights for its CPU kernels. From the file's layout the
// kernel had to assemble each pair's nibbles, high bits and scales from six places (two
// 16-byte loads and a shuffle, two 32-bit loads shifted together and moved into a mask
// register, two 16-bit scales inserted into a vector); from a pair it loads each once:
//   qs  block 0's 16 nibble bytes, then block 1's; one 256-bit broadcast puts them in both
//       halves of a register, and one shift by 0 or 4 per quarter gives the codes as
//       [block 0 values 0-15, block 1 values 0-15, block 0 values 16-31, block 1 values 16-31];
//   qh  the high bits in that byte order: bits 0-15 of block 0's, bits 0-15 of block 1's,
//       bits 16-31 of block 0's, bits 16-31 of block 1's: one mask-register load;
//   d   the two fp16 scales.
// The values and scales are the blocks' own, so every dot product keeps the Q5_0 reference's
// operations (dot_rows of Q5_0x2 rows equals dot_rows of the Q5_0 rows bit for bit). A row
// of Q5_0x2 has an even number of Q5_0 blocks (n a multiple of 64).
#pragma once

#include <cstdint>

#include "kernels/quant/block_layout.h"

namespace draftbench {

// n_pairs pairs from 2 n_pairs Q5_0 blocks, and back.
void repack_q5_0_pairs(const BlockQ5_0* blocks, int64_t n_pairs, BlockQ5_0x2* pairs);
void unpack_q5_0_pairs(const BlockQ5_0x2* pairs, int64_t n_pairs, BlockQ5_0* blocks);

}  // namespace draftbench
