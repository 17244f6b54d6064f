#include "kernels/matmul/weight_repack.h"

#include <cstring>

#include "kernels/quant/q5_0_repack.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

// The batch kernels of both layouts prepare activation rows of up to 128 blocks.
constexpr int64_t kMaxRepackedValues = 4096;

// The repacked Q5_0 layout for this CPU's kernels, or Q5_0 for none.
GgmlType q5_0_layout() {
  if (std::strcmp(dot_rows_backend(), "avx512vnni") == 0) return GgmlType::Q5_0x2;
  if (std::strcmp(dot_rows_backend(), "avx2") == 0) return GgmlType::Q5_0x4;
  return GgmlType::Q5_0;
}

bool repack_is_faster(const WeightMatrix& w) {
  if (w.type != GgmlType::Q5_0 || w.n_in > kMaxRepackedValues) return false;
  const GgmlType to = q5_0_layout();
  return to != GgmlType::Q5_0 && w.n_in % ggml_type_info(to).block_size == 0;
}

}  // namespace

GgmlType repacked_type(const WeightMatrix& w) { return repack_is_faster(w) ? q5_0_layout() : w.type; }

size_t repacked_bytes(const WeightMatrix& w) { return repacked_type(w) != w.type ? w.row_bytes() * static_cast<size_t>(w.n_out) : 0; }

WeightMatrix repack(const WeightMatrix& w, uint8_t* dst) {
  DB_CHECK(repack_is_faster(w));
  // Rows are whole groups, so the matrix repacks as one run of blocks.
  const GgmlType to = repacked_type(w);
  repack_q5_0(to, reinterpret_cast<const BlockQ5_0*>(w.data), w.n_in / 32 * w.n_out, dst);
  return WeightMatrix{to, w.n_in, w.n_out, dst};
}

}  // namespace draftbench
