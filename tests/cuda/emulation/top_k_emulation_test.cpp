// The CUDA top-k block program, run by the grid emulator through both passes, against
// top_k_ref: the same ids in the same order, ties included (values drawn from few levels),
// for rows inside one slice, just past it, and split over the most slices.
#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <vector>

#include "kernels/cuda/grid_emulator.h"
#include "kernels/cuda/top_k_block.h"
#include "kernels/sampling/top_k.h"

using namespace draftbench;

namespace {

// Values from `levels` distinct numbers, so most rows hold many equal values.
std::vector<float> tied_values(int64_t n, int levels, std::mt19937& rng) {
  std::uniform_int_distribution<int> level(0, levels - 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = 0.25f * static_cast<float>(level(rng)) - 3.0f;
  return v;
}

}  // namespace

TEST_CASE("emulated CUDA top-k gives top_k_ref's ids in its order", "[cuda-emulation]") {
  std::mt19937 rng(23);
  // One slice (up to 4096), one value past it, many slices, the most slices (64) with longer
  // ones, and beam search's W x V as one row.
  for (const int64_t n : {1, 5, 63, 64, 65, 4096, 4097, 32000, 8 * 32000, 300000}) {
    for (const int k : {1, 8, 50, 64}) {
      const int64_t rows = n > 100000 ? 1 : 3;
      const auto w = tied_values(rows * n, n > 1000 ? 200 : 7, rng);
      const int64_t ws = cuda::top_k_workspace(rows, n, k);
      for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
        std::vector<float> ws_values(static_cast<size_t>(ws)), values(static_cast<size_t>(rows * k), -9.0f);
        std::vector<int32_t> ws_ids(static_cast<size_t>(ws)), ids(static_cast<size_t>(rows * k), -7);
        REQUIRE(cuda::top_k_supports(n, k));
        cuda::top_k_passes(w.data(), rows, n, k, ws_values.data(), ws_ids.data(), values.data(), ids.data(),
                           [&](const cuda::Launch& shape, const cuda::TopKArgs& args) {
                             REQUIRE(shape.fits());
                             cuda::emulate_blocks(
                                 shape.grid(), shape.block,
                                 [&](const cuda::EmulatedBlock& block) {
                                   auto shared = std::make_unique<cuda::TopKShared>();
                                   cuda::top_k_block(block, args, *shared);
                                 },
                                 order);
                           });
        for (int64_t r = 0; r < rows; ++r) {
          std::vector<int32_t> want;
          top_k_ref(w.data() + r * n, n, k, want);
          want.resize(static_cast<size_t>(k), -1);
          const std::vector<int32_t> got(ids.begin() + r * k, ids.begin() + (r + 1) * k);
          INFO("n = " << n << ", k = " << k << ", row " << r);
          REQUIRE(got == want);
          for (int i = 0; i < k && want[static_cast<size_t>(i)] >= 0; ++i)
            REQUIRE(values[static_cast<size_t>(r * k + i)] == w[static_cast<size_t>(r * n + want[static_cast<size_t>(i)])]);
        }
      }
    }
  }
  REQUIRE_FALSE(cuda::top_k_supports(0, 4));
  REQUIRE_FALSE(cuda::top_k_supports(10, 0));
  REQUIRE_FALSE(cuda::top_k_supports(10, cuda::kTopKMax + 1));
}
