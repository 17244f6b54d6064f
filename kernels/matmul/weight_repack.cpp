#include "kernels/matmul/weight_repack.h"

#include <cstring>

#include "kernels/quant/block_repack.h"
#include "kernels/quant/q4_k_rows16.h"
#include "kernels/quant/q5_0_repack.h"
#include "kernels/quant/q8_0_rows16.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/check.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench {
namespace {

bool backend_is(const char* name) { return std::strcmp(dot_rows_backend(), name) == 0; }

// Q4_K's layout for this CPU: Q4_Kt for the AVX2 kernels; Q4_Kr16 for the AVX-512 VNNI ones
// when the matrix is whole groups of rows short enough for its kernel, except where AMX
// runs Q4_K batches (k_quant_amx.h, which takes the file layout); else the file's.
GgmlType q4_k_layout(const WeightMatrix& w) {
  if (backend_is("avx2")) return GgmlType::Q4_Kt;
  const bool fits = w.n_out % kQ4_Kr16Rows == 0 && w.n_in / QK_K <= kQ4_Kr16MaxBlocks;
  return backend_is("avx512vnni") && fits && !cpu_features().amx_int8 ? GgmlType::Q4_Kr16 : w.type;
}

}  // namespace

GgmlType repacked_type(const WeightMatrix& w) {
  switch (w.type) {
    case GgmlType::Q5_0: {
      const GgmlType to = backend_is("avx512vnni") || backend_is("avx2") ? GgmlType::Q5_0x4 : GgmlType::Q5_0;
      const bool fits = w.n_in <= kQ5_0x4MaxValues && w.n_in % ggml_type_info(to).block_size == 0;
      return fits ? to : w.type;
    }
    case GgmlType::Q4_K: return q4_k_layout(w);
    default: return w.type;
  }
}

size_t repacked_bytes(const WeightMatrix& w) { return repacked_type(w) != w.type ? w.row_bytes() * static_cast<size_t>(w.n_out) : 0; }

WeightMatrix repack(const WeightMatrix& w, uint8_t* dst) {
  const GgmlType to = repacked_type(w);
  DB_CHECK(to != w.type);
  if (to == GgmlType::Q4_Kr16) {
    interleave_q4_k_rows16(w.data, w.row_bytes(), w.n_out, w.n_in / QK_K, dst);
    return WeightMatrix{to, w.n_in, w.n_out, dst};
  }
  // Rows are whole groups, so the matrix repacks as one run of blocks.
  repack_values(to, w.data, w.n_in * w.n_out, dst);
  return WeightMatrix{to, w.n_in, w.n_out, dst};
}

GgmlType head_layout_type(const WeightMatrix& w) {
  const bool fits = w.type == GgmlType::Q8_0 && w.n_out % kQ8_0r16Rows == 0 && w.n_in % 64 == 0 && w.n_in / 32 <= kQ8_0r16MaxBlocks;
  return fits && backend_is("avx512vnni") ? GgmlType::Q8_0r16 : w.type;
}

size_t head_layout_bytes(const WeightMatrix& w) { return head_layout_type(w) != w.type ? w.row_bytes() * static_cast<size_t>(w.n_out) : 0; }

WeightMatrix to_head_layout(const WeightMatrix& w, uint8_t* dst) {
  DB_CHECK(head_layout_type(w) == GgmlType::Q8_0r16);
  interleave_q8_0_rows16(w.data, w.row_bytes(), w.n_out, w.n_in / 32, dst);
  return WeightMatrix{GgmlType::Q8_0r16, w.n_in, w.n_out, dst};
}

}  // namespace draftbench
