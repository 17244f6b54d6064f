// RMSNorm: out = x / sqrt(mean(x^2) + eps) * weight. The sum of squares is taken in double
// in kernels/ops/double_lanes.h's eight lanes, so the result is the same for a row alone or
// in a batch, and the AVX2 build, which keeps the lanes in two registers, gives the same bits.
// x and out are [n_rows][n]; weight is [n] (nullptr for no weight). In-place allowed.
//   rms_norm_ref   plain loops (the contract)
//   rms_norm_avx2  the same operations, eight values at a time
//   rms_norm       runtime dispatch
#pragma once

#include <cstdint>

namespace draftbench {

void rms_norm_ref(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps);
void rms_norm_avx2(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps);
void rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps);

// The scale 1 / sqrt(float(sum / n) + eps) both builds apply, from the folded sum.
float rms_norm_scale(double sum_of_squares, int64_t n, float eps);

}  // namespace draftbench
