// The tiled tree attention compiled for AVX2 (without FMA: -ffp-contract=off and no -mfma,
// so every product and sum rounds as in the generic build and results stay bit-identical;
// the gain is 8-wide vectors for dot16's lanes and the p * v accumulation).
#include "kernels/attention/tree_attention_tiled_body.h"

namespace draftbench {

void tree_attention_tiled_avx2(const TreeAttentionJob& job, int64_t q_begin, int64_t q_end, float* scratch) {
  tree_attention_tiled_body(job, q_begin, q_end, scratch);
}

}  // namespace draftbench
