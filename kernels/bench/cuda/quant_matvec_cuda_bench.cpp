// cuda::quant_matvec (kernels/cuda/quant_matvec_cuda.h) at the models' matrix shapes:
//   cuda_quant_matvec/<model>/<matrix>/<type>/rows:<n>
// every weight type the kernel has a product for (Q8_0, Q5_0, Q4_K, Q6_K) that divides the
// matrix's input length into whole blocks (Gemma's 640-long inputs take no K-quant), against
// n quantised activation rows: 1 (decode) and 4, 16, 64 (verification of n tree tokens).
// A shape that an earlier matrix of the same model already has is not repeated: Vicuna's
// attn_q stands for attn_k, attn_v and attn_output too, Gemma's attn_k for attn_v, each
// model's ffn_gate for ffn_up.
// Full suite: both models, every shape, n = 1, 4, 16, 64. CI suite: Gemma's ffn_gate and
// ffn_down (every type), n = 1, 16, 64.
// Weights cycle through a device arena larger than the L2 (device_weight_arena.h), so they
// come from device memory; activations are quantised on the host as the header says and
// copied once, before the timed loop. Work as the CPU suite counts it (kernel_work.h).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <random>
#include <string_view>
#include <vector>

#include "kernels/bench/cuda/cuda_bench_suite.h"
#include "kernels/bench/cuda/device_weight_arena.h"
#include "kernels/bench/kernel_work.h"
#include "kernels/bench/model_shapes.h"
#include "kernels/cuda/quant_matvec_cuda.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/quant/quantize_activation.h"

namespace draftbench::cuda_bench {
namespace {

constexpr std::array kKernelTypes{GgmlType::Q8_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K};
constexpr std::array<std::string_view, 2> kCiMatrices{"ffn_gate", "ffn_down"};

void register_quant_matvec(const CudaBenchSuite& s, const ModelShape& model, const MatrixShape& m, int64_t n_x) {
  const auto name = fmt::format("cuda_quant_matvec/{}/{}/{}/rows:{}", model.name, m.name, ggml_type_name(m.type), n_x);
  register_cuda_benchmark(name, [s, m, n_x](benchmark::State& state) {
    const size_t row_bytes = ggml_row_bytes(m.type, m.n_in), xq_bytes = activation_row_bytes(m.type, m.n_in);
    auto weights = s.weights->cursor(m.type, row_bytes * static_cast<size_t>(m.n_out));
    std::mt19937 rng(7);
    const std::vector<float> x = random_activations(m.n_in * n_x, rng);
    std::vector<uint8_t> xq(xq_bytes * static_cast<size_t>(n_x));
    for (int64_t i = 0; i < n_x; ++i) quantize_activation_row(m.type, x.data() + i * m.n_in, xq.data() + i * xq_bytes, m.n_in);
    const DeviceMemory device_xq(xq), device_y(sizeof(float) * static_cast<size_t>(m.n_out * n_x));
    const double seconds = run_timed_loop(
        state, [&] { return cuda::quant_matvec(m.type, weights.next(), row_bytes, m.n_out, device_xq.as<const void>(), n_x, m.n_in, device_y.as<float>()); });
    report_device_work(state, seconds, product_work(m, n_x), s.device);
  });
}

// Whether an earlier matrix of `model` than `m` has its shape.
bool repeats_a_shape(const ModelShape& model, const MatrixShape& m) {
  return std::any_of(model.matrices.begin(), model.matrices.end(),
                     [&](const MatrixShape& other) { return &other < &m && other.n_in == m.n_in && other.n_out == m.n_out; });
}

}  // namespace

void register_cuda_quant_matvec_benchmarks(const CudaBenchSuite& s) {
  const std::vector<int64_t> batches = s.full() ? std::vector<int64_t>{1, 4, 16, 64} : std::vector<int64_t>{1, 16, 64};
  for (const ModelShape* model : kModelShapes) {
    if (model != &kGemma3_270M && !s.full()) continue;
    for (const MatrixShape& m : model->matrices) {
      if (repeats_a_shape(*model, m)) continue;
      if (!s.full() && std::ranges::find(kCiMatrices, m.name) == kCiMatrices.end()) continue;
      for (const GgmlType type : kKernelTypes) {
        if (m.n_in % ggml_type_info(type).block_size != 0) continue;
        for (const int64_t n_x : batches) register_quant_matvec(s, *model, MatrixShape{m.name, m.n_in, m.n_out, type}, n_x);
      }
    }
  }
}

}  // namespace draftbench::cuda_bench
