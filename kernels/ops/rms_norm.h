// RMSNorm: out = x / sqrt(mean(x^2) + eps) * weight. The sum of squares is taken in
// double, in index order, so the result is the same for a row alone or in a batch.
// x and out are [n_rows][n]; weight is [n] (nullptr for no weight). In-place allowed.
#pragma once

#include <cstdint>

namespace draftbench {

void rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps);

}  // namespace draftbench
