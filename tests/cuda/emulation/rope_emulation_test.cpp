// The CUDA rotary-embedding body, run by the grid emulator (make_emulated_kernels), against
// the CPU reference.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/device_kernels.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/ops/rope.h"

using namespace draftbench;

TEST_CASE("emulated CUDA rope is bit-identical to the reference", "[cuda-emulation]") {
  std::mt19937 rng(21);
  const std::vector<int64_t> positions = {0, 1, 17, 4095, 100000};
  const int64_t n_tokens = static_cast<int64_t>(positions.size());
  for (const auto pairing : {cuda::RopePairing::kNeox, cuda::RopePairing::kNorm}) {
    for (const int n_heads : {1, 3, 8}) {
      // Odd head_dim leaves its last value alone in both; 256 spans two thread blocks at 8 heads.
      for (const int head_dim : {2, 7, 64, 128, 256}) {
        for (const float base : {10000.0f, 1000000.0f}) {
          const int64_t row = static_cast<int64_t>(n_heads) * head_dim, stride = row + 5;  // padded rows must stay untouched
          const auto x = random_activations(n_tokens * stride, rng);
          std::vector<float> ref = x, got = x;
          for (int64_t t = 0; t < n_tokens; ++t) {
            float* xt = ref.data() + t * stride;
            if (pairing == cuda::RopePairing::kNeox) rope_neox(xt, n_heads, head_dim, positions[t], base);
            else rope_norm(xt, n_heads, head_dim, positions[t], base);
          }
          cuda::make_emulated_kernels()->rope(pairing, got.data(), n_tokens, stride, positions.data(), n_heads, head_dim, base);
          // Same angles (same running product), same cosf/sinf, same four products: exact.
          INFO("neox = " << (pairing == cuda::RopePairing::kNeox) << ", heads = " << n_heads << ", head_dim = " << head_dim);
          REQUIRE(got == ref);
        }
      }
    }
  }
}
