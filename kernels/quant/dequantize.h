// Reference dequantisation of one row: `n` values (a multiple of the type's block size)
// from `src` in the file's layout to f32. Plain scalar code; it is the oracle the tests
// check against the `gguf` package, and it serves embedding lookups.
#pragma once

#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace draftbench {

void dequantize_row(GgmlType type, const void* src, float* dst, int64_t n);

}  // namespace draftbench
