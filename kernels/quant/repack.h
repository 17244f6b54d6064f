// Repacking weight rows into Q8_0 blocks for products with many activation rows.
// Q4_0 and Q5_0 codes fit int8 exactly (q - 8, q - 16) and keep their block scale, so
// the repacked row gives the same integer block sums and the same float steps as the
// original: dot products over repacked rows are bit-identical. Unpacking once per weight
// tile instead of once per (weight row, activation row) pair is what makes it pay.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/blocks.h"

namespace draftbench {

inline bool repacks_to_q8_0(GgmlType type) { return type == GgmlType::Q4_0 || type == GgmlType::Q5_0; }

// n_rows rows of n values (src rows `src_stride` bytes apart) -> dst [n_rows][n / 32].
void repack_rows_to_q8_0(GgmlType type, const uint8_t* src, size_t src_stride, int64_t n_rows, int64_t n, BlockQ8_0* dst);

}  // namespace draftbench
