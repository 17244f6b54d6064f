// CUDA geglu_tanh and swiglu against the CPU reference; skipped (exit 77) without a GPU.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/activations_cuda.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/ops/activations.h"
#include "tests/cuda/gpu_test_support.h"

using namespace draftbench;

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  std::mt19937 rng(7);
  for (const bool gelu : {true, false}) {
    for (const int64_t n : {1, 255, 257, 4099}) {
      const auto gate = random_activations(n, rng, 6.0f);
      const auto up = random_activations(n, rng);
      std::vector<float> ref(n);
      if (gelu) geglu_tanh(gate.data(), up.data(), ref.data(), n);
      else swiglu(gate.data(), up.data(), ref.data(), n);
      gpu_test::DeviceBuffer<float> dg(gate), du(up), dy{std::vector<float>(n)};
      gpu_test::check_cuda(gelu ? cuda::geglu_tanh(dg.data(), du.data(), dy.data(), n) : cuda::swiglu(dg.data(), du.data(), dy.data(), n), "activation launch");
      const auto got = dy.download();
      // Same operations in the same order; only tanhf/expf differ (CUDA within 2 ulps,
      // glibc within 1). For GELU the error of tanh is absolute (|tanh| <= 1) and 1 + tanh
      // may cancel, so the bound is relative to |gate * up| as well as to the result.
      for (int64_t i = 0; i < n; ++i) {
        const float tol = 8.0f * FLT_EPSILON * (std::fabs(ref[i]) + std::fabs(gate[i] * up[i]));
        mismatches.check(std::fabs(got[i] - ref[i]) <= tol, gelu ? "geglu_tanh" : "swiglu", static_cast<size_t>(i), got[i], ref[i]);
      }
    }
  }
  return mismatches.finish("gated activations");
}
