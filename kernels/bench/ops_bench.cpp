// Element-wise and per-row kernels at the models' shapes, for one token (decode) and for
// 64 tokens (a verification step's tree):
//   rms_norm/<model>/rows:<n>, rope_neox/<model>/tokens:<n> (angles and rotation),
//   rope_neox_apply/<model>/tokens:<n> (rotation by precomputed angles), geglu/<model>/tokens:<n>,
//   swiglu/<model>/tokens:<n>; in the full suite rms_norm_ref/... and rope_neox_apply_ref/...
#include <fmt/format.h>

#include <random>
#include <vector>

#include "kernels/bench/bench_suite.h"
#include "kernels/bench/model_shapes.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/ops/activations.h"
#include "kernels/ops/rms_norm.h"
#include "kernels/ops/rope.h"

namespace draftbench {
namespace {

void register_rms_norm(const BenchSuite& s, const ModelShape& m, int64_t rows, bool reference = false) {
  const auto kernel = reference ? rms_norm_ref : rms_norm;
  benchmark::RegisterBenchmark(fmt::format("rms_norm{}/{}/rows:{}", reference ? "_ref" : "", m.name, rows).c_str(), [s, m, rows,
                                                                                                                     kernel](benchmark::State& state) {
    std::mt19937 rng(3);
    const std::vector<float> x = random_activations(rows * m.hidden, rng), w = random_activations(m.hidden, rng);
    std::vector<float> out(x.size());
    const LoopClock clock;
    for (auto _ : state) {
      kernel(x.data(), w.data(), out.data(), rows, m.hidden, 1e-6f);
      benchmark::ClobberMemory();
    }
    const double n = static_cast<double>(rows * m.hidden);
    report_work(state, clock, {4.0 * (2 * n + m.hidden), 4.0 * n}, s.one_thread);
  })->Unit(benchmark::kNanosecond);
}

// rope_neox: angles and rotation per token, as one call; rope_neox_apply: the rotation with
// the angles computed beforehand, which is what each layer of a forward pass does.
void register_rope(const BenchSuite& s, const ModelShape& m, int64_t tokens, bool apply_only, bool reference = false) {
  const std::string name = fmt::format("rope_neox{}{}/{}/tokens:{}", apply_only ? "_apply" : "", reference ? "_ref" : "", m.name, tokens);
  benchmark::RegisterBenchmark(name.c_str(), [s, m, tokens, apply_only, reference](benchmark::State& state) {
    std::mt19937 rng(4);
    std::vector<float> x = random_activations(tokens * m.n_heads * m.head_dim, rng);
    const int64_t half = m.head_dim / 2;
    std::vector<float> cos(tokens * half), sin(tokens * half);
    for (int64_t t = 0; t < tokens; ++t) rope_angles(1000 + t, m.head_dim, 10000.0f, cos.data() + t * half, sin.data() + t * half);
    const auto apply = reference ? rope_neox_apply_ref : rope_neox_apply;
    const LoopClock clock;
    for (auto _ : state) {
      for (int64_t t = 0; t < tokens; ++t) {
        float* xt = x.data() + t * m.n_heads * m.head_dim;
        if (apply_only) apply(xt, m.n_heads, m.head_dim, cos.data() + t * half, sin.data() + t * half);
        else rope_neox(xt, m.n_heads, m.head_dim, 1000 + t, 10000.0f);
      }
      benchmark::ClobberMemory();
    }
    const double n = static_cast<double>(x.size());
    report_work(state, clock, {8.0 * n, 3.0 * n}, s.one_thread);
  })->Unit(benchmark::kNanosecond);
}

// The engine's gated activation, or (reference = true) the textbook libm form beside it.
void register_gated(const BenchSuite& s, const ModelShape& m, int64_t tokens, bool gelu, bool reference = false) {
  const std::string name = fmt::format("{}{}/{}/tokens:{}", gelu ? "geglu" : "swiglu", reference ? "_ref" : "", m.name, tokens);
  const auto kernel = reference ? (gelu ? geglu_tanh_ref : swiglu_ref) : (gelu ? geglu_tanh : swiglu);
  benchmark::RegisterBenchmark(name.c_str(), [s, m, tokens, kernel](benchmark::State& state) {
    std::mt19937 rng(5);
    const std::vector<float> gate = random_activations(tokens * m.ffn, rng), up = random_activations(tokens * m.ffn, rng);
    std::vector<float> out(gate.size());
    const LoopClock clock;
    for (auto _ : state) {
      kernel(gate.data(), up.data(), out.data(), tokens * m.ffn);
      benchmark::ClobberMemory();
    }
    const double n = static_cast<double>(gate.size());
    report_work(state, clock, {12.0 * n, 20.0 * n}, s.one_thread);  // ~20 flops for tanh/exp and the products
  })->Unit(benchmark::kNanosecond);
}

}  // namespace

void register_ops_benchmarks(const BenchSuite& s) {
  for (const ModelShape* model : kModelShapes) {
    const bool gemma = model == &kGemma3_270M;
    if (!gemma && !s.full()) continue;
    for (int64_t n : {1, 64}) {
      register_rms_norm(s, *model, n);
      register_rope(s, *model, n, false);
      register_rope(s, *model, n, true);
      if (s.full()) {
        register_rms_norm(s, *model, n, true);
        register_rope(s, *model, n, true, true);
      }
      register_gated(s, *model, n, gemma);
      if (s.full()) register_gated(s, *model, n, gemma, true);
    }
  }
}

}  // namespace draftbench
