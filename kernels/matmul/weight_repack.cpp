#include "kernels/matmul/weight_repack.h"

#include <cstring>

#include "kernels/quant/q5_0_pairs.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

// The AVX-512 batch kernel prepares activation rows of up to 128 blocks.
constexpr int64_t kMaxPairedValues = 4096;

bool pairs_are_faster(const WeightMatrix& w) {
  return w.type == GgmlType::Q5_0 && w.n_in % 64 == 0 && w.n_in <= kMaxPairedValues && std::strcmp(dot_rows_backend(), "avx512vnni") == 0;
}

}  // namespace

GgmlType repacked_type(const WeightMatrix& w) { return pairs_are_faster(w) ? GgmlType::Q5_0x2 : w.type; }

size_t repacked_bytes(const WeightMatrix& w) { return repacked_type(w) != w.type ? w.row_bytes() * static_cast<size_t>(w.n_out) : 0; }

WeightMatrix repack(const WeightMatrix& w, uint8_t* dst) {
  DB_CHECK(pairs_are_faster(w));
  // Rows are whole pairs, so the matrix repacks as one run of blocks.
  repack_q5_0_pairs(reinterpret_cast<const BlockQ5_0*>(w.data), w.n_in / 64 * w.n_out, reinterpret_cast<BlockQ5_0x2*>(dst));
  return WeightMatrix{repacked_type(w), w.n_in, w.n_out, dst};
}

}  // namespace draftbench
