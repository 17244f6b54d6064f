// Float-format weight matrices (F32, F16, BF16) requantised to Q8_0 once, at load: for a
// drafter's layers, whose few MB are read on every draft pass. Q8_0 halves F16's bytes and
// its products run on the integer dot-product kernels (VNNI, AMX where the rows allow)
// rather than the float ones. A drafter's own products never decide which tokens are
// emitted (verification reads only the target), so the rounding changes what is drafted,
// never what is generated. The target's weights are never requantised.
//
// Each row of 32-value blocks: dequantize_row to f32, then quantize_q8_0_codes per block
// (quantize_block.h), the same rounding as an activation row for Q8_0 weights.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/matmul/matmul.h"

namespace draftbench {

// Whether w can be requantised: a float type and rows of whole 32-value blocks.
bool can_requantize_q8_0(const WeightMatrix& w);

// Bytes requantize_q8_0(w) writes (can_requantize_q8_0(w) must hold).
size_t requantized_q8_0_bytes(const WeightMatrix& w);

// w as Q8_0, its rows written to dst (requantized_q8_0_bytes(w) bytes), which the result
// points into.
WeightMatrix requantize_q8_0(const WeightMatrix& w, uint8_t* dst);

}  // namespace draftbench
