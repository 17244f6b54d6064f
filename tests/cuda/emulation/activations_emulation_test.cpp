// The CUDA gated-activation body, run by the grid emulator (make_emulated_kernels), against
// the CPU kernel's scalar build.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/device_kernels.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/ops/activations.h"

using namespace draftbench;

TEST_CASE("emulated CUDA geglu_tanh and swiglu are bit-identical to the CPU kernels", "[cuda-emulation]") {
  std::mt19937 rng(31);
  for (const auto function : {cuda::GateFunction::kGeluTanh, cuda::GateFunction::kSilu}) {
    for (const int64_t n : {1, 5, 255, 256, 257, 1000, 4099}) {
      // Wide gate values reach tanh/exp saturation and the negative tail.
      const auto gate = random_activations(n, rng, 6.0f);
      const auto up = random_activations(n, rng);
      std::vector<float> ref(n), got(n + 1, -7.0f);  // one sentinel past the end
      if (function == cuda::GateFunction::kGeluTanh) geglu_tanh_scalar(gate.data(), up.data(), ref.data(), n);
      else swiglu_scalar(gate.data(), up.data(), ref.data(), n);
      cuda::make_emulated_kernels()->gated_activation(function, gate.data(), up.data(), got.data(), n);
      // The same float operations in the same order (activation_math.h): exact.
      INFO("gelu = " << (function == cuda::GateFunction::kGeluTanh) << ", n = " << n);
      REQUIRE(got[n] == -7.0f);
      got.pop_back();
      REQUIRE(got == ref);
    }
  }
}
