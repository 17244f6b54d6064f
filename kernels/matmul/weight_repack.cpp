#include "kernels/matmul/weight_repack.h"

#include <cstring>

#include "kernels/quant/block_repack.h"
#include "kernels/quant/q5_0_repack.h"
#include "kernels/quant/row_groups.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

bool backend_is(const char* name) { return std::strcmp(dot_rows_backend(), name) == 0; }

// Layout l (quant/row_groups.h) for w where the AVX-512 VNNI kernels run and w fits it: whole
// groups of rows, whole runs of blocks, rows short enough for its kernel; else nullptr.
const RowGroupLayout* fitting(const RowGroupLayout* l, const WeightMatrix& w) {
  if (l == nullptr || !backend_is("avx512vnni")) return nullptr;
  const int64_t nb = w.n_in / ggml_type_info(w.type).block_size;
  return w.n_out % l->rows == 0 && nb % l->block_run == 0 && nb <= l->max_blocks ? l : nullptr;
}

// The layers' row-interleaved layout for w (Q4_Kr16, Q6_Kr16, Q5_0r16), except where AMX runs
// w's type's batches (the K-quants: k_quant_amx.h, which takes the file layout).
const RowGroupLayout* layers_row_group(const WeightMatrix& w) {
  return dot_rows_batch_has_amx(w.type) ? nullptr : fitting(row_group_layout_of(w.type, RowGroupLayout::Use::kLayers), w);
}

// The head's row-interleaved layout: Q8_0r16 for a Q8_0 head (AMX too); for the K-quants,
// the layers' layout.
const RowGroupLayout* head_row_group(const WeightMatrix& w) {
  const RowGroupLayout* l = row_group_layout_of(w.type, RowGroupLayout::Use::kHead);
  return l != nullptr ? fitting(l, w) : layers_row_group(w);
}

}  // namespace

GgmlType repacked_type(const WeightMatrix& w) {
  if (const RowGroupLayout* l = layers_row_group(w)) return l->type;
  switch (w.type) {
    case GgmlType::Q5_0: {
      const GgmlType to = backend_is("avx512vnni") || backend_is("avx2") ? GgmlType::Q5_0x4 : GgmlType::Q5_0;
      const bool fits = w.n_in <= kQ5_0x4MaxValues && w.n_in % ggml_type_info(to).block_size == 0;
      return fits ? to : w.type;
    }
    case GgmlType::Q4_K: return backend_is("avx2") ? GgmlType::Q4_Kt : w.type;
    default: return w.type;
  }
}

size_t repacked_bytes(const WeightMatrix& w) { return repacked_type(w) != w.type ? w.row_bytes() * static_cast<size_t>(w.n_out) : 0; }

WeightMatrix repack(const WeightMatrix& w, uint8_t* dst) {
  const GgmlType to = repacked_type(w);
  DB_CHECK(to != w.type);
  if (const RowGroupLayout* l = layers_row_group(w)) {
    l->interleave(w.data, w.row_bytes(), w.n_out, w.n_in / ggml_type_info(w.type).block_size, dst);
    return WeightMatrix{to, w.n_in, w.n_out, dst};
  }
  // Rows are whole groups, so the matrix repacks as one run of blocks.
  repack_values(to, w.data, w.n_in * w.n_out, dst);
  return WeightMatrix{to, w.n_in, w.n_out, dst};
}

GgmlType head_layout_type(const WeightMatrix& w) {
  const RowGroupLayout* l = head_row_group(w);
  return l != nullptr ? l->type : w.type;
}

size_t head_layout_bytes(const WeightMatrix& w) { return head_layout_type(w) != w.type ? w.row_bytes() * static_cast<size_t>(w.n_out) : 0; }

WeightMatrix to_head_layout(const WeightMatrix& w, uint8_t* dst) {
  const RowGroupLayout* l = head_row_group(w);
  DB_CHECK(l != nullptr);
  l->interleave(w.data, w.row_bytes(), w.n_out, w.n_in / ggml_type_info(w.type).block_size, dst);
  return WeightMatrix{l->type, w.n_in, w.n_out, dst};
}

}  // namespace draftbench
