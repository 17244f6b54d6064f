// CUDA RMSNorm against the CPU reference; skipped (exit 77) without a GPU.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/rms_norm_cuda.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/ops/rms_norm.h"
#include "tests/cuda/gpu_test_support.h"

using namespace draftbench;

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  std::mt19937 rng(3);
  for (const int64_t n : {1, 17, 256, 640, 1153, 2048}) {
    for (const bool with_weight : {true, false}) {
      const int64_t rows = 7;
      const auto x = random_activations(rows * n, rng);
      const auto w = random_activations(n, rng, 1.0f);
      std::vector<float> ref(x.size());
      rms_norm(x.data(), with_weight ? w.data() : nullptr, ref.data(), rows, n, 1e-6f);
      gpu_test::DeviceBuffer<float> dx(x), dw(w), dy{std::vector<float>(x.size())};
      gpu_test::check_cuda(cuda::rms_norm(dx.data(), with_weight ? dw.data() : nullptr, dy.data(), rows, n, 1e-6f), "rms_norm launch");
      const auto got = dy.download();
      // As in the emulation test: the double sum's order differs, which after rounding the
      // mean to float moves the scale by at most one ulp (IEEE sqrtf and division, no FMA
      // contraction on either side), so two ulps per output.
      for (size_t i = 0; i < got.size(); ++i)
        mismatches.check(std::fabs(got[i] - ref[i]) <= 2.0f * FLT_EPSILON * std::fabs(ref[i]), "rms_norm", i, got[i], ref[i]);
    }
  }
  return mismatches.finish("rms_norm");
}
