#include "kernels/quant/block_repack.h"

#include "kernels/quant/q4_k_transpose.h"
#include "kernels/quant/q5_0_repack.h"
#include "kernels/runtime/check.h"

namespace draftbench {

std::optional<GgmlType> repacked_from(GgmlType type) {
  switch (type) {
    case GgmlType::Q5_0x4: return GgmlType::Q5_0;
    case GgmlType::Q4_Kt: return GgmlType::Q4_K;
    default: return std::nullopt;
  }
}

void repack_values(GgmlType to, const void* src, int64_t n, void* dst) {
  DB_CHECK(repacked_from(to) && n % ggml_type_info(to).block_size == 0);
  if (to == GgmlType::Q4_Kt) return transpose_q4_k_codes(static_cast<const BlockQ4_K*>(src), n / QK_K, static_cast<BlockQ4_K*>(dst));
  repack_q5_0x4(static_cast<const BlockQ5_0*>(src), n / 32, static_cast<BlockQ5_0x4*>(dst));
}

void unpack_values(GgmlType from, const void* src, int64_t n, void* dst) {
  DB_CHECK(repacked_from(from) && n % ggml_type_info(from).block_size == 0);
  if (from == GgmlType::Q4_Kt) return transpose_q4_k_codes(static_cast<const BlockQ4_K*>(src), n / QK_K, static_cast<BlockQ4_K*>(dst));
  unpack_q5_0x4(static_cast<const BlockQ5_0x4*>(src), n / 32, static_cast<BlockQ5_0*>(dst));
}

}  // namespace draftbench
