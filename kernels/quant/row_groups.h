// The row-interleaved layouts (Q8_0r16, Q4_Kr16, Q6_Kr16, Q5_0r16): weight rows stored in groups, a row's bytes
// spread over its group, so no single-row kernel or dequantisation applies to them. Each has
// its own products, which the dispatchers (vec_dot_dispatch.cpp, vec_dot_ref.cpp) find here
// by type rather than each spelling out every layout.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace draftbench {

struct RowGroupLayout {
  using Rows = void (*)(const uint8_t* w, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t nb, float* y, size_t y_stride);
  using Indexed = void (*)(const uint8_t* w, const int32_t* ids, int64_t n_ids, const void* xq, int64_t nb, float* y);
  using Interleave = void (*)(const uint8_t* rows, size_t row_bytes, int64_t n_rows, int64_t nb, uint8_t* dst);
  enum class Use { kHead, kLayers };  // made by head_layout or by repack (matmul/weight_repack.h)
  GgmlType type;
  GgmlType file_type;  // the type whose rows it holds, and whose activations it takes
  int rows;            // rows per group
  int64_t max_blocks;  // the longest rows (in blocks) its fast kernel takes
  int64_t block_run;   // rows hold whole runs of this many blocks (Q8_0r16 keeps blocks in pairs)
  Use use;
  Interleave interleave;  // the file's rows (whole groups) into this layout
  Rows rows_fastest;      // the fastest build this CPU runs
  Rows rows_ref;
  Indexed indexed;
};

// The layout of `type`, or nullptr when its rows are contiguous.
const RowGroupLayout* row_group_layout(GgmlType type);

// The layout `use` makes of a file_type matrix, or nullptr.
const RowGroupLayout* row_group_layout_of(GgmlType file_type, RowGroupLayout::Use use);

}  // namespace draftbench
