// CUDA quantised products against dot_rows_ref, each activation row on its own; skipped
// (exit 77) without a GPU.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cuda/quant_matvec_cuda.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"
#include "tests/cuda/gpu_test_support.h"

using namespace draftbench;

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  std::mt19937 rng(9);
  for (const GgmlType type : {GgmlType::Q8_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K}) {
    const int64_t bs = ggml_type_info(type).block_size;
    for (const int64_t blocks : {1, 33, 70}) {
      for (const auto& [rows, n_x] : {std::pair{1, 1}, std::pair{5, 3}, std::pair{259, 1}, std::pair{259, 66}}) {
        const int64_t n = blocks * bs;
        const size_t row_bytes = ggml_row_bytes(type, n), x_bytes = activation_row_bytes(type, n);
        const auto w = random_rows(type, n, rows, rng);
        std::vector<uint8_t> xq(x_bytes * n_x);
        std::vector<float> ref(static_cast<size_t>(rows * n_x));
        for (int64_t i = 0; i < n_x; ++i) {
          const auto x = random_activations(n, rng);
          quantize_activation_row(type, x.data(), &xq[i * x_bytes], n);
          dot_rows_ref(type, w.data(), row_bytes, rows, &xq[i * x_bytes], n, &ref[i * rows]);
        }
        gpu_test::DeviceBuffer<uint8_t> dw(w), dxq(xq);
        gpu_test::DeviceBuffer<float> dy{std::vector<float>(ref.size())};
        gpu_test::check_cuda(cuda::quant_matvec(type, dw.data(), row_bytes, rows, dxq.data(), n_x, n, dy.data()), "quant_matvec launch");
        const auto got = dy.download();
        // Exact integer sums and the reference's float operations in its order, with FMA
        // contraction off (--fmad=false): bit-identical, as in the emulation.
        for (size_t i = 0; i < ref.size(); ++i)
          mismatches.check(std::memcmp(&got[i], &ref[i], sizeof(float)) == 0, ggml_type_name(type).data(), i, got[i], ref[i]);
      }
    }
  }
  return mismatches.finish("quant_matvec");
}
