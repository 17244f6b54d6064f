// CUDA argmax and softmax weights against the CPU references; skipped (exit 77) without a
// GPU. As in the emulation test: the index and the weights exactly (the device runs
// softmax_math.h's operations with --fmad=false), the sum within 1e-12 relative.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/sampling_cuda.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/sampling/softmax.h"
#include "tests/cuda/gpu_test_support.h"

using namespace draftbench;

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  std::mt19937 rng(5);
  for (const int64_t n : {1, 257, 32000, 262144}) {
    const int64_t rows = 2;
    const auto x = random_activations(rows * n, rng, 6.0f);
    gpu_test::DeviceBuffer<float> dx(x), dw{std::vector<float>(x.size())};
    gpu_test::DeviceBuffer<int64_t> didx{std::vector<int64_t>(rows)};
    gpu_test::DeviceBuffer<double> dsum{std::vector<double>(rows)};
    gpu_test::check_cuda(cuda::argmax(dx.data(), rows, n, didx.data()), "argmax launch");
    const auto index = didx.download();
    std::vector<float> max(rows);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t ref = argmax_ref(x.data() + r * n, n);
      mismatches.check(index[r] == ref, "argmax", r, static_cast<double>(index[r]), static_cast<double>(ref));
      max[r] = x[r * n + ref];
    }
    const gpu_test::DeviceBuffer<float> dmax(max);
    gpu_test::check_cuda(cuda::softmax_exp(dx.data(), dmax.data(), rows, n, 1.25f, dw.data(), dsum.data()), "softmax_exp launch");
    const auto w = dw.download();
    const auto sum = dsum.download();
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<float> ref(n);
      const double ref_sum = softmax_exp_ref(x.data() + r * n, n, max[r], 1.25f, ref.data());
      for (int64_t i = 0; i < n; ++i) mismatches.check(w[r * n + i] == ref[i], "softmax_exp weight", i, w[r * n + i], ref[i]);
      mismatches.check(std::fabs(sum[r] - ref_sum) <= 1e-12 * ref_sum, "softmax_exp sum", r, sum[r], ref_sum);
    }
  }
  return mismatches.finish("sampling");
}
