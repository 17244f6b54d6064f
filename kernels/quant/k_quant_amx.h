// K-quant weights (Q4_K, Q6_K) against several Q8_K activation rows with AMX tiles (AMX-INT8: Intel Xeon
// from Sapphire Rapids on), the batched product of prefill and tree verification.
//
// One tile product multiplies 16 activation rows by 16 weight rows over one sub-block
// (tdpbsud: signed activation codes against unsigned weight codes, exact int32 sums): 32
// values for Q4_K, 16 for Q6_K, whose scales differ per sub-block. The sub-block sums then
// take their scales, and the mins' (Q4_K) or the code offset's (Q6_K) term the activation
// sums, in AVX-512 integer code, and the float steps are the reference's (vec_dot_ref.cpp's
// dot_q4_k, dot_q6_k) per block in block order. Results are therefore bit-identical to
// dot_rows_ref,
// activation row by activation row, whatever the batch: the batch invariance that lossless
// decoding rests on.
//
// Layout: the activation tiles load straight from the Q8_K rows (a short last tile from a
// copy beside zero rows); each block of 16 weight rows is rearranged once (the B tiles'
// layout: four consecutive codes of a row beside the next row's, a 16 x 8 transposition of
// 32-bit words) and serves every activation tile of the call, in groups of 64 x 64 outputs.
// The epilogue runs per activation row, vectorised over the 16 weight rows, so a tile of a
// few activation rows costs little more than its weight preparation.
//
// Requires cpu_features().amx_int8 (which includes the kernel's permission to use the
// tiles) with AVX-512 BW/VL. The tile configuration is set at entry and released at exit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace draftbench {

// y[x * y_stride + r] = dot(weight row r, activation row x), as dot_rows_batch, for Q4_K
// and Q6_K weights (`n` a multiple of 256); false, with nothing written, for other types.
bool k_quant_rows_batch_amx(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n,
                            float* y, size_t y_stride);

}  // namespace draftbench
