// Q5_0 weights repacked for the x86 kernels, the way llama.cpp repacks weights for its CPU
// kernels. From the file's layout a kernel assembles each block's nibbles, high bits and
// scale from three places and expands 32 high bits to 32 bytes per block, and under
// block_lanes.h's group lanes it would also have to gather each lane's values from four
// blocks. Q5_0x4 (BlockQ5_0x4, q5_0x4_x86.h) holds four blocks, every field one load:
//   d   the four fp16 scales: one conversion, and the scale products with the activation's
//       made four at a time, which are the group lanes' scales in both halves;
//   qs  four code registers, register k byte m holding value 16 (m / 16) + 4k + m % 4 of
//       block (m / 4) % 4: so int32 lane i of every register holds four values of group
//       lane i (block i % 4's values 16 (i / 4) ..), and the registers' products add lane
//       by lane. Registers 2p and 2p + 1 share 32 bytes: byte m holds register 2p's 5-bit
//       code in bits 0-4 and register 2p + 1's low three bits in bits 5-7;
//   qh  registers 1 and 3's top two code bits as a plane: byte m (m < 16) of register 1 in
//       bits 0-1 of qh byte m, of register 3 in bits 2-3; byte m + 16 in bits 4-5 and 6-7.
//       Spread over 32 bytes once per group (bytes 16..31 shifted down by 4), they are one
//       shift and one mask per register from bits 3-4 of its codes.
//   Per group that is 13 integer instructions for the codes; the file layout takes about
//   24 (the nibbles, and 32 high bits spread to bytes for each block).
// The values and scales are the blocks' own, so dot_rows of repacked rows equals dot_rows of
// the Q5_0 rows bit for bit. A row holds whole groups: n a multiple of 128.
#pragma once

#include <cstdint>

#include "kernels/quant/block_layout.h"

namespace draftbench {

// The longest row Q5_0x4's kernels take (their prepared activation's size, q5_0x4_x86.h,
// 22.5 KB a row on the stack): every Q5_0 matrix of Gemma 3 270M, and of the Llama shapes up
// to 13B and Mistral-7B (FFN inputs of 11008, 13824, 14336 values). The engine repacks no
// longer rows (weight_repack.cpp); they take the reference.
inline constexpr int64_t kQ5_0x4MaxValues = 16384;

// n_blocks Q5_0 blocks (whole groups of four) into Q5_0x4 at dst, and back.
void repack_q5_0x4(const BlockQ5_0* blocks, int64_t n_blocks, BlockQ5_0x4* dst);
void unpack_q5_0x4(const BlockQ5_0x4* src, int64_t n_blocks, BlockQ5_0* blocks);

}  // namespace draftbench
