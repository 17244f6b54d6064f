// CUDA top-k against top_k_ref (the same ids in the same order, ties included); skipped
// (exit 77) without a GPU.
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/top_k_block.h"
#include "kernels/cuda/top_k_cuda.h"
#include "kernels/sampling/top_k.h"
#include "tests/cuda/gpu_test_support.h"

using namespace draftbench;

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  std::mt19937 rng(29);
  std::uniform_int_distribution<int> level(0, 199);
  for (const int64_t n : {1, 65, 4097, 32000, 64 * 32000, 262144}) {
    for (const int k : {1, 50, 64}) {
      const int64_t rows = 2;
      std::vector<float> w(static_cast<size_t>(rows * n));
      for (float& x : w) x = 0.25f * static_cast<float>(level(rng)) - 3.0f;
      const int64_t ws = cuda::top_k_workspace(rows, n, k);
      gpu_test::DeviceBuffer<float> dw(w), dws_values{std::vector<float>(static_cast<size_t>(ws + 1))},
          dvalues{std::vector<float>(static_cast<size_t>(rows * k))};
      gpu_test::DeviceBuffer<int32_t> dws_ids{std::vector<int32_t>(static_cast<size_t>(ws + 1))}, dids{std::vector<int32_t>(static_cast<size_t>(rows * k))};
      gpu_test::check_cuda(cuda::top_k(dw.data(), rows, n, k, dws_values.data(), dws_ids.data(), dvalues.data(), dids.data()), "top_k launch");
      const auto ids = dids.download();
      for (int64_t r = 0; r < rows; ++r) {
        std::vector<int32_t> want;
        top_k_ref(w.data() + r * n, n, k, want);
        want.resize(static_cast<size_t>(k), -1);
        for (int i = 0; i < k; ++i)
          mismatches.check(ids[static_cast<size_t>(r * k + i)] == want[static_cast<size_t>(i)], "top_k id", static_cast<size_t>(i),
                           ids[static_cast<size_t>(r * k + i)], want[static_cast<size_t>(i)]);
      }
    }
  }
  return mismatches.finish("top_k");
}
