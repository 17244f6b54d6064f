// The CUDA fused SiLU layer's block program (kernels/cuda/linear_silu_block.h), run by the
// grid emulator in both thread orders, against linear_silu_ref: bit-identical for every
// weight type the kernel takes, one and two terms of different widths, with and without
// bias and residual (also the residual in y), and shapes below, at and past one CUDA
// block's four weight rows by four activation rows and one warp's 32 blocks.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "kernels/cuda/grid_emulator.h"
#include "kernels/cuda/linear_silu_block.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/matmul/linear_silu.h"
#include "kernels/quant/quantize_activation.h"

using namespace draftbench;

namespace {

struct Case {
  GgmlType type;
  std::vector<int64_t> n_in;
  int64_t n_out, n;
  bool bias, residual, residual_in_y;
};

// The layer on the emulated device: activations prepared as the host would copy them over.
std::vector<float> emulate(const Case& c, const std::vector<LinearTerm>& terms, const float* bias, std::vector<float> y, const float* residual,
                           cuda::ThreadOrder order) {
  std::vector<std::vector<uint8_t>> xq(terms.size());
  cuda::LinearSiluBlockArgs args{};
  for (size_t k = 0; k < terms.size(); ++k) {
    const WeightMatrix& w = terms[k].w;
    const size_t bytes = activation_row_bytes(c.type, w.n_in);
    xq[k].resize(bytes * static_cast<size_t>(c.n));
    for (int64_t r = 0; r < c.n; ++r) quantize_activation_row(c.type, terms[k].x + r * w.n_in, xq[k].data() + r * bytes, w.n_in);
    args.terms[k] = cuda::QuantMatvecArgs{w.data, w.row_bytes(), c.n_out, xq[k].data(), bytes, c.n, 0, nullptr};
  }
  args.n_terms = static_cast<int>(terms.size());
  args.bias = bias;
  args.residual = c.residual_in_y ? y.data() : residual;
  args.y = y.data();
  const bool supported = cuda::visit_row_dot(c.type, [&](auto dot) {
    using Dot = decltype(dot);
    for (size_t k = 0; k < terms.size(); ++k) args.terms[k].n_blocks = terms[k].w.n_in / Dot::kValues;
    const cuda::Launch shape = cuda::linear_silu_launch(c.n_out, c.n);
    cuda::emulate_blocks(
        shape.grid(), shape.block,
        [&](const cuda::EmulatedBlock& block) {
          auto shared = std::make_unique<cuda::LinearSiluShared<Dot>>();  // ~36 KiB: not on the stack
          cuda::linear_silu_block<Dot>(block, args, *shared);
        },
        order);
  });
  REQUIRE(supported);
  return y;
}

}  // namespace

TEST_CASE("emulated CUDA linear_silu is bit-identical to linear_silu_ref", "[cuda-emulation][linear_silu]") {
  std::mt19937 rng(61);
  const GgmlType types[] = {GgmlType::F32, GgmlType::F16, GgmlType::Q8_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K};
  for (const GgmlType type : types) {
    const int64_t bs = std::max<int64_t>(16, ggml_type_info(type).block_size);
    const std::vector<Case> cases = {
        {type, {bs}, 1, 1, false, false, false},             // one of everything
        {type, {bs * 3, bs * 2}, 5, 6, true, false, false},  // a recurrent step: two terms, bias
        {type, {bs * 33}, 9, 4, true, true, false},          // a residual block past one warp's 32 blocks
        {type, {bs * 2, bs * 34}, 4, 9, true, true, true},   // residual in y, two chunks in the second term
    };
    for (const Case& c : cases) {
      std::vector<std::vector<uint8_t>> weights;
      std::vector<std::vector<float>> inputs;
      std::vector<LinearTerm> terms;
      for (const int64_t n_in : c.n_in) {
        weights.push_back(random_rows(type, n_in, c.n_out, rng));
        inputs.push_back(random_activations(c.n * n_in, rng, 1.0f));
      }
      for (size_t k = 0; k < weights.size(); ++k) terms.push_back({WeightMatrix{type, c.n_in[k], c.n_out, weights[k].data()}, inputs[k].data()});
      const std::vector<float> bias = random_activations(c.n_out, rng, 0.5f), residual = random_activations(c.n * c.n_out, rng);
      std::vector<float> ref = residual;  // the residual-in-y case starts y as the residual
      linear_silu_ref({terms, c.bias ? bias.data() : nullptr, c.residual ? (c.residual_in_y ? ref.data() : residual.data()) : nullptr, c.n, ref.data()});
      for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
        const std::vector<float> got = emulate(c, terms, c.bias ? bias.data() : nullptr, residual, c.residual ? residual.data() : nullptr, order);
        INFO(ggml_type_name(type) << ", terms " << terms.size() << ", n_out " << c.n_out << ", rows " << c.n);
        REQUIRE(std::memcmp(got.data(), ref.data(), ref.size() * sizeof(float)) == 0);
      }
    }
  }
}
