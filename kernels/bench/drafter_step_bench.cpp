// The drafters' fused SiLU layer (kernels/matmul/linear_silu.h) at ReDrafter's shapes, F16
// weights as the shipped drafters store them, against the unfused form it replaced:
//   linear_silu/<model>/<shape>/rows:<n>          the fused kernel, the pool
//   linear_silu_unfused/<model>/<shape>/rows:<n>  a matmul per term, then bias and SiLU
// <shape> is rnn_step (s' = SiLU(W e + U s + b), two [hidden][hidden] terms) or
// residual_block (x + SiLU(W x + b)); n is the number of beams advanced at once (the beam
// width). Full suite only. Weights stay warm: a drafter's few MB are read every draft step.
#include <fmt/format.h>

#include <random>
#include <vector>

#include "kernels/bench/bench_suite.h"
#include "kernels/bench/model_shapes.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/matmul/linear_silu.h"
#include "kernels/ops/activation_math.h"
#include "kernels/quant/quantize_activation.h"

namespace draftbench {
namespace {

void register_linear_silu(const BenchSuite& s, const ModelShape& m, int n_terms, int64_t n, bool fused) {
  const std::string name = fmt::format("linear_silu{}/{}/{}/rows:{}", fused ? "" : "_unfused", m.name, n_terms == 2 ? "rnn_step" : "residual_block", n);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [s, m, n_terms, n, fused](benchmark::State& state) {
        std::mt19937 rng(11);
        const int64_t h = m.hidden;
        std::vector<std::vector<uint8_t>> weights;
        std::vector<std::vector<float>> inputs;
        std::vector<LinearTerm> terms;
        for (int k = 0; k < n_terms; ++k) {
          weights.push_back(random_rows(GgmlType::F16, h, h, rng));
          inputs.push_back(random_activations(n * h, rng, 1.0f));
        }
        for (int k = 0; k < n_terms; ++k) terms.push_back({WeightMatrix{GgmlType::F16, h, h, weights[k].data()}, inputs[k].data()});
        const std::vector<float> bias = random_activations(h, rng, 0.1f);
        const float* residual = n_terms == 1 ? inputs[0].data() : nullptr;
        std::vector<float> y(static_cast<size_t>(n * h)), tmp(y.size());
        std::vector<uint8_t> scratch(std::max(linear_silu_scratch_bytes(terms, n, s.pool->size()), matmul_scratch_bytes(terms[0].w, n, s.pool->size())));
        const LoopClock clock;
        for (auto _ : state) {
          if (fused) {
            linear_silu({terms, bias.data(), residual, n, y.data()}, *s.pool, scratch);
          } else {
            for (int k = 0; k < n_terms; ++k) {
              matmul(terms[k].w, terms[k].x, n, k == 0 ? y.data() : tmp.data(), *s.pool, scratch);
              if (k > 0)
                for (size_t i = 0; i < y.size(); ++i) y[i] += tmp[i];
            }
            for (int64_t r = 0; r < n; ++r)
              for (int64_t i = 0; i < h; ++i) {
                float& v = y[static_cast<size_t>(r * h + i)];
                v = activation_math::silu_value(v + bias[static_cast<size_t>(i)]);
                if (residual) v += residual[r * h + i];
              }
          }
          benchmark::ClobberMemory();
        }
        const double weight_bytes = 2.0 * static_cast<double>(h * h) * n_terms;
        const double act_bytes = static_cast<double>(activation_row_bytes(GgmlType::F16, h)) * n * n_terms;
        report_work(state, clock, {weight_bytes + act_bytes + 4.0 * n * h, 2.0 * h * h * n * n_terms}, s.all_threads);
      })
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
}

}  // namespace

void register_drafter_step_benchmarks(const BenchSuite& s) {
  if (!s.full()) return;
  for (const ModelShape* model : kModelShapes)
    for (const int n_terms : {2, 1})
      for (const int64_t n : {1, 8, 64})
        for (const bool fused : {true, false}) register_linear_silu(s, *model, n_terms, n, fused);
}

}  // namespace draftbench
