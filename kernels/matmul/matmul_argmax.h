// The LM head's argmax, fused: for each activation row x_i, the index of the largest value
// of y_i = x_i W^T (soft-capped when cap > 0, ops/soft_cap.h), the first index on
// ties, exactly as kernels/sampling/softmax.h's argmax over the whole row y_i, without ever
// writing y_i: greedy decoding needs one id per row, and a full row of a 262,144-token
// vocabulary is 1 MiB of stores and a second pass to scan them.
//
//   matmul_argmax_ref  per row: the whole y_i through dot_row_ref (activations quantised by
//                      quantize_activation_row_ref), soft-capped, then argmax_ref;
//   matmul_argmax      matmul's products (activation rows quantised once, output rows split
//                      in matmul_row_tile's tiles over the pool, dot_rows_batch per tile) into a tile
//                      that stays in L1; each tile row is soft-capped and scanned while
//                      there, and each thread keeps a running best per activation row.
//
// Identity: the products are dot_rows_batch's, bit-identical to dot_row_ref's whatever the
// number of rows (vec_dot.h), so every y_i value equals the reference's; bests are merged
// by (larger value, then smaller index), which picks the first index of the maximum
// whatever the tiles and threads, so the result is the reference's bit for bit and a row's
// id never depends on the other rows (batch invariance). Values must not be NaN (as for
// argmax).
//
// Shapes: W is n_out rows of n_in values (WeightMatrix, matmul.h); x [n_x][n_in] f32;
// ids [n_x].
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/matmul/matmul.h"
#include "kernels/runtime/thread_pool.h"

namespace draftbench {

void matmul_argmax_ref(const WeightMatrix& w, const float* x, int64_t n_x, float cap, int32_t* ids);

// Bytes of scratch matmul_argmax needs for n_x activation rows on a pool of n_threads.
size_t matmul_argmax_scratch_bytes(const WeightMatrix& w, int64_t n_x, int n_threads);

void matmul_argmax(const WeightMatrix& w, const float* x, int64_t n_x, float cap, int32_t* ids, ThreadPool& pool, std::span<uint8_t> scratch);

}  // namespace draftbench
