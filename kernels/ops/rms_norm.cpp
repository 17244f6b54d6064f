#include "kernels/ops/rms_norm.h"

#include <cmath>

#include "kernels/runtime/cpu_features.h"
#include "kernels/ops/double_lanes.h"

namespace draftbench {
float rms_norm_scale(double sum_of_squares, int64_t n, float eps) {
  return 1.0f / std::sqrt(static_cast<float>(sum_of_squares / static_cast<double>(n)) + eps);
}

void rms_norm_ref(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps) {
  for (int64_t r = 0; r < n_rows; ++r, x += n, out += n) {
    double lane[kDoubleLanes] = {};
    for (int64_t i = 0; i < n; ++i) lane[i % kDoubleLanes] += static_cast<double>(x[i]) * x[i];
    const float scale = rms_norm_scale(fold_double_lanes(lane), n, eps);
    if (weight)
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] * scale * weight[i];
    else
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] * scale;
  }
}

void rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps) {
  if (cpu_features().avx2) rms_norm_avx2(x, weight, out, n_rows, n, eps);
  else rms_norm_ref(x, weight, out, n_rows, n, eps);
}

}  // namespace draftbench
