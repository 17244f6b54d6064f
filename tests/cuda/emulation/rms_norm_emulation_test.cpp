// The CUDA RMSNorm block program, run by the grid emulator (make_emulated_kernels), against
// the CPU reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cuda/device_kernels.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/ops/rms_norm.h"

using namespace draftbench;

namespace {

std::vector<float> emulate_rms_norm(const std::vector<float>& x, const float* weight, int64_t rows, int64_t n, float eps, cuda::ThreadOrder order) {
  std::vector<float> out(x.size());
  cuda::make_emulated_kernels(order)->rms_norm(x.data(), weight, out.data(), rows, n, eps);
  return out;
}

}  // namespace

TEST_CASE("emulated CUDA rms_norm matches the reference", "[cuda-emulation]") {
  std::mt19937 rng(11);
  // Tiny, odd, below/above/at the thread count, and a model width.
  for (const int64_t n : {1, 3, 17, 255, 256, 257, 640, 1153, 2048}) {
    for (const bool with_weight : {true, false}) {
      const int64_t rows = 3;
      const auto x = random_activations(rows * n, rng);
      const auto w = random_activations(n, rng, 1.0f);
      const float* weight = with_weight ? w.data() : nullptr;
      std::vector<float> ref(x.size());
      rms_norm(x.data(), weight, ref.data(), rows, n, 1e-6f);
      const auto got = emulate_rms_norm(x, weight, rows, n, 1e-6f, cuda::ThreadOrder::kForward);
      // The only difference is the order of the double additions; after rounding the mean
      // to float that changes the scale by at most one float ulp, so each output is within
      // two ulps of the reference (one for the scale, one for the products' rounding).
      for (size_t i = 0; i < x.size(); ++i) {
        INFO("n = " << n << ", i = " << i);
        REQUIRE(std::fabs(got[i] - ref[i]) <= 2.0f * std::numeric_limits<float>::epsilon() * std::fabs(ref[i]));
      }
      // The thread order inside a phase must not matter (no intra-phase races).
      REQUIRE(emulate_rms_norm(x, weight, rows, n, 1e-6f, cuda::ThreadOrder::kReverse) == got);
    }
  }
}

TEST_CASE("emulated CUDA rms_norm works in place", "[cuda-emulation]") {
  std::mt19937 rng(12);
  const int64_t rows = 2, n = 300;
  auto x = random_activations(rows * n, rng);
  std::vector<float> ref(x.size());
  rms_norm(x.data(), nullptr, ref.data(), rows, n, 1e-5f);
  cuda::make_emulated_kernels()->rms_norm(x.data(), nullptr, x.data(), rows, n, 1e-5f);
  for (size_t i = 0; i < x.size(); ++i) REQUIRE(std::fabs(x[i] - ref[i]) <= 2.0f * std::numeric_limits<float>::epsilon() * std::fabs(ref[i]));
}
