// The CUDA rotary-embedding body, run by the grid emulator, against the CPU reference.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/grid_emulator.h"
#include "kernels/cuda/rope_thread.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/ops/rope.h"

using namespace draftbench;
using draftbench::cuda::Dim3;

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
          const cuda::RopeArgs args{got.data(), stride, positions.data(), n_heads, head_dim, cuda::rope_theta_scale(base, head_dim), pairing};
          const int64_t pairs = static_cast<int64_t>(n_heads) * (head_dim / 2);
          const Dim3 grid{static_cast<unsigned>((pairs + cuda::kRopeThreads - 1) / cuda::kRopeThreads), static_cast<unsigned>(n_tokens)};
          cuda::emulate_grid(grid, Dim3{cuda::kRopeThreads}, [&](Dim3 block, Dim3 thread) { cuda::rope_thread(args, block, thread); });
          // Same angles (same running product), same cosf/sinf, same four products: exact.
          INFO("neox = " << (pairing == cuda::RopePairing::kNeox) << ", heads = " << n_heads << ", head_dim = " << head_dim);
          REQUIRE(got == ref);
        }
      }
    }
  }
}
