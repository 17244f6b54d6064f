// The CUDA fused SiLU layer against linear_silu_ref on a GPU; skipped (exit 77) without
// one. As in the emulation test: bit-identical (the device runs the reference's float
// operations in its order with --fmad=false), at a drafter's shapes (hidden 640 and 4096,
// F16 as the shipped drafters store them, and a quantised type), one and two terms.
#include <bit>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "kernels/cuda/linear_silu_cuda.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/matmul/linear_silu.h"
#include "kernels/quant/quantize_activation.h"
#include "tests/cuda/gpu_test_support.h"

using namespace draftbench;

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  std::mt19937 rng(62);
  for (const GgmlType type : {GgmlType::F16, GgmlType::Q8_0}) {
    for (const int64_t hidden : {640, 4096}) {
      for (const int n_terms : {1, 2}) {
        const int64_t n = 8;  // beams
        std::vector<std::vector<uint8_t>> weights, xq;
        std::vector<std::vector<float>> inputs;
        std::vector<LinearTerm> terms;
        for (int k = 0; k < n_terms; ++k) {
          weights.push_back(random_rows(type, hidden, hidden, rng));
          inputs.push_back(random_activations(n * hidden, rng, 1.0f));
          const size_t bytes = activation_row_bytes(type, hidden);
          xq.emplace_back(bytes * n);
          for (int64_t r = 0; r < n; ++r) quantize_activation_row(type, inputs[k].data() + r * hidden, xq[k].data() + r * bytes, hidden);
        }
        for (int k = 0; k < n_terms; ++k) terms.push_back({WeightMatrix{type, hidden, hidden, weights[k].data()}, inputs[k].data()});
        const std::vector<float> bias = random_activations(hidden, rng, 0.5f);
        const float* residual = n_terms == 1 ? inputs[0].data() : nullptr;
        std::vector<float> ref(static_cast<size_t>(n * hidden));
        linear_silu_ref({terms, bias.data(), residual, n, ref.data()});

        std::vector<std::unique_ptr<gpu_test::DeviceBuffer<uint8_t>>> dw, dx;
        std::vector<cuda::DeviceLinearTerm> dterms;
        for (int k = 0; k < n_terms; ++k) {
          dw.push_back(std::make_unique<gpu_test::DeviceBuffer<uint8_t>>(weights[k]));
          dx.push_back(std::make_unique<gpu_test::DeviceBuffer<uint8_t>>(xq[k]));
          dterms.push_back({dw.back()->data(), ggml_row_bytes(type, hidden), dx.back()->data(), hidden});
        }
        const gpu_test::DeviceBuffer<float> dbias(bias), dres(residual ? inputs[0] : std::vector<float>(1)), dy(std::vector<float>(ref.size()));
        gpu_test::check_cuda(cuda::linear_silu(type, dterms.data(), n_terms, hidden, n, dbias.data(), residual ? dres.data() : nullptr, dy.data()),
                             "linear_silu launch");
        const std::vector<float> got = dy.download();
        for (size_t i = 0; i < ref.size(); ++i)
          mismatches.check(std::bit_cast<uint32_t>(got[i]) == std::bit_cast<uint32_t>(ref[i]), "linear_silu", i, got[i], ref[i]);
      }
    }
  }
  return mismatches.finish("linear_silu");
}
