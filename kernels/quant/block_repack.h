// The weight layouts draftbench makes from a file's blocks for its own x86 kernels, never
// found in a file: Q5_0x2 and Q5_0x4 (q5_0_repack.h) and Q4_Kt (q4_k_transpose.h). Each
// holds its file type's blocks (values, scales and mins unchanged) in another byte order,
// and a row takes the same bytes in both, so anything without a kernel for the repacked
// layout (the reference, dequantisation) unpacks it and runs the file type's code.
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/quant/ggml_type.h"

namespace draftbench {

// The file type whose blocks `type` holds, or nothing when `type` is not a repacked layout.
std::optional<GgmlType> repacked_from(GgmlType type);

// n values of repacked_from(to)'s blocks at src into `to`'s layout at dst, and back (n a
// multiple of ggml_type_info(to).block_size; src and dst do not overlap).
void repack_values(GgmlType to, const void* src, int64_t n, void* dst);
void unpack_values(GgmlType from, const void* src, int64_t n, void* dst);

}  // namespace draftbench
