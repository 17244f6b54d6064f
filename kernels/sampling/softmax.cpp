// Reference argmax and softmax weights (softmax.h), and the runtime dispatch.
#include "kernels/sampling/softmax.h"

#include "kernels/runtime/cpu_features.h"
#include "kernels/sampling/softmax_math.h"

namespace draftbench {

int64_t argmax_ref(const float* x, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

double softmax_exp_ref(const float* logits, int64_t n, float max_logit, float inv_t, float* w) {
  double lane[kDoubleLanes] = {};
  for (int64_t i = 0; i < n; ++i) {
    w[i] = softmax_weight(logits[i], max_logit, inv_t);
    lane[i % kDoubleLanes] += w[i];
  }
  return fold_double_lanes(lane);
}

int64_t argmax(const float* x, int64_t n) { return cpu_features().avx2 ? argmax_avx2(x, n) : argmax_ref(x, n); }

double softmax_exp(const float* logits, int64_t n, float max_logit, float inv_t, float* w) {
  return cpu_features().avx2 ? softmax_exp_avx2(logits, n, max_logit, inv_t, w) : softmax_exp_ref(logits, n, max_logit, inv_t, w);
}

}  // namespace draftbench
