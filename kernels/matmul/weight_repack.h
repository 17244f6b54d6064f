// Weight matrices in the layout this CPU's products run fastest on, made once when a forward
// pass is built (the file's bytes stay as they are for everything else; the layouts are
// quant/block_repack.h's and quant/row_groups.h's). Three cases, with the same results bit for bit:
//   - Q5_0 becomes Q5_0r16 where the AVX-512 VNNI kernels run (quant/q5_0_rows16.h), for
//     whole groups of sixteen rows of up to 16384 values, and elsewhere
//     Q5_0x4 where the x86 kernels run (quant/q5_0_repack.h), when the rows
//     fit its kernels' prepared activations (whole groups, at most kQ5_0x4MaxValues =
//     16384 values: every Q5_0 matrix of Gemma 3 270M, and the Llama FFN inputs up to 13B):
//     each register a quarter of four blocks, so their products add before they widen
//     (block_lanes.h's group lanes);
//   - Q4_K becomes Q4_Kt where the AVX2 kernels run (quant/q4_k_transpose.h), any length:
//     each block's codes transposed so every register holds values of every sub-block;
//     and Q4_Kr16 where the AVX-512 VNNI kernels run without AMX (quant/q4_k_rows16.h);
//   - Q6_K becomes Q6_Kr16 there (quant/q6_k_rows16.h). Both for whole groups of sixteen
//     rows of up to 16384 values: each register four codes of sixteen rows, so a block's
//     scales and float steps are shared by sixteen rows. With AMX, the K-quants stay as
//     they are for the AMX kernels' batches (Q5_0, which AMX does not take, still becomes
//     Q5_0r16).
// kernels/bench/README.md records what each layout gained.
// Elsewhere a matrix stays as it is (the repacked type would take the reference kernel).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/matmul/matmul.h"

namespace draftbench {

// The type repack(w) gives, or w.type when w is best used as it is.
GgmlType repacked_type(const WeightMatrix& w);

// Bytes repack(w) writes, or 0 when w is best used as it is.
size_t repacked_bytes(const WeightMatrix& w);

// w in the faster layout, its rows written to dst (repacked_bytes(w) bytes, which the
// result points into).
WeightMatrix repack(const WeightMatrix& w, uint8_t* dst);

// The LM head's layout. Q8_0 becomes Q8_0r16 (quant/q8_0_rows16.h) where the AVX-512 VNNI
// kernels run and the rows come in whole groups of sixteen: verification multiplies several
// rows by the whole head, and there Q8_0r16 takes one conversion and one multiply-add per
// block for sixteen rows. Unlike repack's layouts it has a float contract of its own, so a
// head in it gives logits that differ from the file layout's in the last bits (the same
// whatever the batch: every decoding path of one forward pass uses the same head). A Q4_K or
// Q6_K head takes the layers' row-interleaved layout where repack would make it (Q6_K:
// Qwen2.5-Coder-1.5B's), with the file layout's bits.
GgmlType head_layout_type(const WeightMatrix& w);
size_t head_layout_bytes(const WeightMatrix& w);  // 0 when w stays as it is
WeightMatrix to_head_layout(const WeightMatrix& w, uint8_t* dst);

}  // namespace draftbench
