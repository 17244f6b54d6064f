// The CUDA sampling block programs, run by the grid emulator, against the CPU references:
// the argmax index and the softmax weights exactly, the sum within 1e-12 relative (its
// order of additions differs).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cuda/grid_emulator.h"
#include "kernels/cuda/sampling_block.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/sampling/softmax.h"

using namespace draftbench;

TEST_CASE("emulated CUDA argmax and softmax weights match the references", "[cuda-emulation]") {
  std::mt19937 rng(31);
  for (const int64_t n : {1, 2, 255, 256, 257, 1000, 32000}) {
    const int64_t rows = 3;
    auto x = random_activations(rows * n, rng, 6.0f);
    if (n > 300) x[17] = x[n - 3] = 50.0f;  // a tie for the maximum in the first row, far apart
    const cuda::Launch launch = cuda::sampling_launch(rows);
    for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
      std::vector<int64_t> index(rows);
      const cuda::ArgmaxArgs aa{x.data(), n, index.data()};
      cuda::emulate_blocks(
          launch.grid(), launch.block,
          [&](const cuda::EmulatedBlock& block) {
            cuda::ArgmaxShared shared{};
            cuda::argmax_block(block, aa, shared);
          },
          order);
      std::vector<float> max(rows), w(x.size());
      std::vector<double> sum(rows);
      for (int64_t r = 0; r < rows; ++r) {
        INFO("n = " << n << ", row " << r);
        REQUIRE(index[r] == argmax_ref(x.data() + r * n, n));
        max[r] = x[r * n + index[r]];
      }
      const cuda::SoftmaxArgs sa{x.data(), max.data(), 1.0f / 0.8f, n, w.data(), sum.data()};
      cuda::emulate_blocks(
          launch.grid(), launch.block,
          [&](const cuda::EmulatedBlock& block) {
            cuda::SoftmaxShared shared{};
            cuda::softmax_block(block, sa, shared);
          },
          order);
      for (int64_t r = 0; r < rows; ++r) {
        std::vector<float> ref(n);
        const double ref_sum = softmax_exp_ref(x.data() + r * n, n, max[r], 1.0f / 0.8f, ref.data());
        INFO("n = " << n << ", row " << r);
        REQUIRE(std::memcmp(ref.data(), w.data() + r * n, n * sizeof(float)) == 0);
        REQUIRE(std::fabs(sum[r] - ref_sum) <= 1e-12 * ref_sum);
      }
    }
  }
}
