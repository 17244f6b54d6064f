#include "kernels/ops/rms_norm.h"

#include <cmath>

namespace draftbench {
namespace {

// The CMake option DRAFTBENCH_INJECT_SLOWDOWN (off by default) makes this kernel take the
// sum of squares twice: the kernel-benchmark gate's self-test needs one kernel that is
// measurably slower, and only that one (tests/kernels/bench_gate_test.sh).
#ifdef DRAFTBENCH_INJECT_SLOWDOWN
constexpr int kSumPasses = 2;
#else
constexpr int kSumPasses = 1;
#endif

double sum_of_squares(const float* x, int64_t n) {
  double sum = 0.0;
  for (int pass = 0; pass < kSumPasses; ++pass) {
    sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
    if constexpr (kSumPasses > 1) asm volatile("" : "+m"(sum));  // keep the repeated pass
  }
  return sum;
}

}  // namespace

void rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps) {
  for (int64_t r = 0; r < n_rows; ++r, x += n, out += n) {
    const double sum = sum_of_squares(x, n);
    const float scale = 1.0f / std::sqrt(static_cast<float>(sum / static_cast<double>(n)) + eps);
    if (weight)
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] * scale * weight[i];
    else
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] * scale;
  }
}

}  // namespace draftbench
