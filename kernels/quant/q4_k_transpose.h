// Q4_K weights with each block's codes transposed (Q4_Kt), for the AVX2 products
// (q4_k_x86.h), the way q5_0_repack.h repacks Q5_0.
//
// A Q4_K block's 128 code bytes are eight nibble planes of 32 codes: plane R is the low
// (R even) or high (R odd) nibbles of bytes 32 (R / 2) .. + 31, and holds sub-block R, so
// an AVX2 kernel multiplies each plane by one 6-bit scale: a broadcast and a vpmaddwd per 32
// values, 16 multiplies per block. Cut each plane into eight groups of four codes: in the
// file's layout group g of plane R is values 4g .. 4g + 3 of sub-block R; in Q4_Kt it is
// values 4R .. 4R + 3 of sub-block g. The 8 x 8 matrix of groups is transposed, so every
// plane holds four values of each sub-block, in the same 4-byte lanes: vpmaddubsw's word
// sums of all eight planes add up in 16 bits (at most 8 x 2 x 15 x 128 = 30720) and one
// vpmaddwd by [sc_0, sc_0, sc_1, sc_1, ...] applies all eight scales, nine multiplies per
// block. The activation's codes take the same transposition (four-byte groups), once per
// activation row.
//
// The scales, mins and codes are the block's own, so products keep the Q4_K reference's
// operations bit for bit. Blocks are BlockQ4_K with qs in this order; rows are Q4_K's.
#pragma once

#include <cstdint>

#include "kernels/quant/block_layout.h"

namespace draftbench {

// n_blocks blocks with their code groups transposed, from Q4_K to Q4_Kt or back (the
// transposition is its own inverse); src and dst must not overlap.
void transpose_q4_k_codes(const BlockQ4_K* src, int64_t n_blocks, BlockQ4_K* dst);

}  // namespace draftbench
