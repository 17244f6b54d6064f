// On-the-fly quantisation of f32 activation rows into the type a weight type's integer
// dot product consumes (ggml's vec_dot_type): Q8_0 for 32-blocks without a min, Q8_1 for
// those with a min, Q8_K for K-quants, BF16 for BF16 weights (rounded to nearest even as
// vcvtneps2bf16 rounds: fp32_to_bf16_rne), and plain f32 for F32 and F16 weights. Per row
// and deterministic, so a row quantises identically whatever else is in the batch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace draftbench {

GgmlType activation_type_for(GgmlType weight_type);

// Bytes of one quantised activation row of n values for `weight_type`.
size_t activation_row_bytes(GgmlType weight_type, int64_t n);

// quantize_activation_row_ref is plain scalar code (quantize_block.h's blocks, which the
// device shares); the AVX2 build (Q8_0, Q8_K, BF16; other types take the reference) is
// bit-identical to it for finite inputs (BF16: for all inputs), and so is the AVX-512 BF16
// build (vcvtneps2bf16 for BF16, the AVX2 build otherwise); quantize_activation_row picks one
// at run time.
void quantize_activation_row_ref(GgmlType weight_type, const float* x, void* dst, int64_t n);
void quantize_activation_row_avx2(GgmlType weight_type, const float* x, void* dst, int64_t n);
void quantize_activation_row_avx512bf16(GgmlType weight_type, const float* x, void* dst, int64_t n);
void quantize_activation_row(GgmlType weight_type, const float* x, void* dst, int64_t n);

}  // namespace draftbench
