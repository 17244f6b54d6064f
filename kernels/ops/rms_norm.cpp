#include "kernels/ops/rms_norm.h"

#include <cmath>

namespace draftbench {

void rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps) {
  for (int64_t r = 0; r < n_rows; ++r, x += n, out += n) {
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
    const float scale = 1.0f / std::sqrt(static_cast<float>(sum / static_cast<double>(n)) + eps);
    if (weight)
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] * scale * weight[i];
    else
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] * scale;
  }
}

}  // namespace draftbench
