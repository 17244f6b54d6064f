// AVX2 RMSNorm, bit-identical to rms_norm_ref: the eight double lanes of the sum of squares
// are two registers (values i mod 8 = 0..3 and 4..7), the tail continues the lanes in
// scalar code, and the products x * scale * weight are the same two float multiplies.
#include <immintrin.h>

#include "kernels/ops/rms_norm.h"
#include "kernels/ops/double_lanes.h"

namespace draftbench {
namespace {

// DRAFTBENCH_INJECT_SLOWDOWN (defined only for draftbench_kernels_slowed) makes this kernel take the
// sum of squares twelve times: the kernel-benchmark gate's self-test needs one kernel that is
// measurably slower, and only that one (tests/kernels/bench_gate_test.sh). Twelve passes
// put it well past the doubling the gate holds this kernel to at one row
// (scripts/bench_kernels.sh; kernels/bench/README.md, "The regression gate").
#ifdef DRAFTBENCH_INJECT_SLOWDOWN
constexpr int kSumPasses = 12;
#else
constexpr int kSumPasses = 1;
#endif

}  // namespace

void rms_norm_avx2(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps) {
  for (int64_t r = 0; r < n_rows; ++r, x += n, out += n) {
    __m256d lo, hi;
    int64_t i;
    for (int pass = 0; pass < kSumPasses; ++pass) {
      lo = hi = _mm256_setzero_pd();
      for (i = 0; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m256d v_lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v)), v_hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
        lo = _mm256_add_pd(lo, _mm256_mul_pd(v_lo, v_lo));
        hi = _mm256_add_pd(hi, _mm256_mul_pd(v_hi, v_hi));
      }
      if constexpr (kSumPasses > 1) asm volatile("" : "+x"(lo), "+x"(hi));  // keep the repeated pass
    }
    alignas(32) double lane[kDoubleLanes];
    _mm256_store_pd(lane, lo);
    _mm256_store_pd(lane + 4, hi);
    for (int l = 0; i < n; ++i, ++l) lane[l] += static_cast<double>(x[i]) * x[i];
    const float scale = rms_norm_scale(fold_double_lanes(lane), n, eps);
    const __m256 scale8 = _mm256_set1_ps(scale);
    i = 0;
    for (; i + 8 <= n; i += 8) {
      __m256 y = _mm256_mul_ps(_mm256_loadu_ps(x + i), scale8);
      if (weight) y = _mm256_mul_ps(y, _mm256_loadu_ps(weight + i));
      _mm256_storeu_ps(out + i, y);
    }
    for (; i < n; ++i) out[i] = weight ? x[i] * scale * weight[i] : x[i] * scale;
  }
}

}  // namespace draftbench
