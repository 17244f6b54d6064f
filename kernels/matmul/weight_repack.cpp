#include "kernels/matmul/weight_repack.h"

#include <cstring>

#include "kernels/quant/block_repack.h"
#include "kernels/quant/q5_0_repack.h"
#include "kernels/quant/row_groups.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/check.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench {
namespace {

bool backend_is(const char* name) { return std::strcmp(dot_rows_backend(), name) == 0; }

// The row-interleaved layout for the layers' w (quant/row_groups.h: Q4_Kr16, Q6_Kr16) where
// the AVX-512 VNNI kernels run, the matrix is whole groups of rows and they are short enough
// for the kernel, except where AMX runs the K-quants' batches (k_quant_amx.h, which takes
// the file layout); else nullptr.
const RowGroupLayout* layers_row_group(const WeightMatrix& w) {
  const RowGroupLayout* l = row_group_layout_of(w.type, RowGroupLayout::Use::kLayers);
  if (l == nullptr || !backend_is("avx512vnni") || cpu_features().amx_int8) return nullptr;
  const bool fits = w.n_out % l->rows == 0 && w.n_in / ggml_type_info(w.type).block_size <= l->max_blocks;
  return fits ? l : nullptr;
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

namespace {

// The head's row-interleaved layout: Q8_0r16 for a Q8_0 head where the VNNI kernels run (AMX
// too) and its rows are whole groups of an even number of blocks; for the K-quants, the
// layers' layout; else nullptr.
const RowGroupLayout* head_row_group(const WeightMatrix& w) {
  const RowGroupLayout* l = row_group_layout_of(w.type, RowGroupLayout::Use::kHead);
  if (l == nullptr) return layers_row_group(w);
  const bool fits = w.n_out % l->rows == 0 && w.n_in % 64 == 0 && w.n_in / ggml_type_info(w.type).block_size <= l->max_blocks;
  return fits && backend_is("avx512vnni") ? l : nullptr;
}

}  // namespace

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
