// Q4_K weights against several Q8_K activation rows with AMX tiles (AMX-INT8: Intel Xeon
// from Sapphire Rapids on), the batched product of prefill and tree verification.
//
// One tile product multiplies 16 activation rows by 16 weight rows over one 32-value
// sub-block (tdpbsud: signed activation codes against unsigned 4-bit weight codes, exact
// int32 sums). The sub-block sums then take their 6-bit scales, and the mins' term its
// activation sums, in AVX-512 integer code, and the float steps are the reference's
// (vec_dot_ref.cpp's dot_q4_k) per block in block order: sum += isum x (d x y.d), then
// sum -= imin x (dmin x y.d). Results are therefore bit-identical to dot_rows_ref,
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

namespace draftbench {

// y[x * y_stride + r] = dot(weight row r, activation row x), as dot_rows_batch. `n` is a
// multiple of 256.
void q4_k_rows_batch_amx(const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y,
                         size_t y_stride);

}  // namespace draftbench
