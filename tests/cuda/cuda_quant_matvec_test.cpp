// CUDA quantised products against dot_rows_ref; skipped (exit 77) without a GPU.
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
      for (const int64_t rows : {1, 5, 259}) {
        const int64_t n = blocks * bs;
        const size_t row_bytes = ggml_row_bytes(type, n);
        const auto w = random_rows(type, n, rows, rng);
        const auto x = random_activations(n, rng);
        std::vector<uint8_t> xq(activation_row_bytes(type, n));
        quantize_activation_row(type, x.data(), xq.data(), n);
        std::vector<float> ref(rows);
        dot_rows_ref(type, w.data(), row_bytes, rows, xq.data(), n, ref.data());
        gpu_test::DeviceBuffer<uint8_t> dw(w), dxq(xq);
        gpu_test::DeviceBuffer<float> dy{std::vector<float>(rows)};
        gpu_test::check_cuda(cuda::quant_matvec(type, dw.data(), row_bytes, rows, dxq.data(), n, dy.data()), "quant_matvec launch");
        const auto got = dy.download();
        // Exact integer sums and the reference's float operations in its order, with FMA
        // contraction off (--fmad=false): bit-identical, as in the emulation.
        for (int64_t r = 0; r < rows; ++r)
          mismatches.check(std::memcmp(&got[r], &ref[r], sizeof(float)) == 0, ggml_type_name(type).data(), static_cast<size_t>(r), got[r], ref[r]);
      }
    }
  }
  return mismatches.finish("quant_matvec");
}
