// The vocabulary-wide sampling kernels, one thread, over one row of logits:
//   argmax/<model>, softmax_exp/<model>/T:<t>, top_k/<model>/k:<k>, top_mass/<model>/p:<p>,
//   beam_top_k/bw:<W>/vocab:<V> (the best W of W x V beam extensions)
// and, in the full suite, the references beside them (argmax_ref/..., softmax_exp_ref/...,
// top_k_ref/..., top_mass_ref/...). Bytes count the logits read and the weights written;
// softmax FLOPs count the exp polynomial (about 20 per value).
#include <fmt/format.h>

#include <random>
#include <vector>

#include "kernels/bench/bench_suite.h"
#include "kernels/bench/model_shapes.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/sampling/softmax.h"
#include "kernels/sampling/top_k.h"

namespace draftbench {
namespace {

// Logits shaped like a language model's: mostly a broad mass, a few tokens far above it.
std::vector<float> model_like_logits(int64_t vocab) {
  std::mt19937 rng(9);
  std::vector<float> x = random_activations(vocab, rng, 3.0f);
  std::uniform_int_distribution<int64_t> at(0, vocab - 1);
  for (int k = 0; k < 20; ++k) x[at(rng)] += 15.0f;
  return x;
}

void register_argmax(const BenchSuite& s, const ModelShape& m, bool reference) {
  const auto kernel = reference ? argmax_ref : argmax;
  benchmark::RegisterBenchmark(fmt::format("argmax{}/{}", reference ? "_ref" : "", m.name).c_str(), [s, m, kernel](benchmark::State& state) {
    const std::vector<float> x = model_like_logits(m.vocab);
    const LoopClock clock;
    for (auto _ : state) benchmark::DoNotOptimize(kernel(x.data(), m.vocab));
    report_work(state, clock, {4.0 * m.vocab, 1.0 * m.vocab}, s.one_thread);
  })->Unit(benchmark::kMicrosecond);
}

void register_softmax(const BenchSuite& s, const ModelShape& m, bool reference) {
  const auto kernel = reference ? softmax_exp_ref : softmax_exp;
  benchmark::RegisterBenchmark(fmt::format("softmax_exp{}/{}/T:1", reference ? "_ref" : "", m.name).c_str(), [s, m, kernel](benchmark::State& state) {
    const std::vector<float> x = model_like_logits(m.vocab);
    const float max = x[argmax(x.data(), m.vocab)];
    std::vector<float> w(x.size());
    const LoopClock clock;
    for (auto _ : state) {
      benchmark::DoNotOptimize(kernel(x.data(), m.vocab, max, 1.0f, w.data()));
      benchmark::ClobberMemory();
    }
    report_work(state, clock, {8.0 * m.vocab, 20.0 * m.vocab}, s.one_thread);
  })->Unit(benchmark::kMicrosecond);
}

// top_k at k or (k < 0) top_mass at p = 0.9, over the softmax weights at T = 1.
void register_selection(const BenchSuite& s, const ModelShape& m, int64_t k, bool reference) {
  const std::string name =
      k > 0 ? fmt::format("top_k{}/{}/k:{}", reference ? "_ref" : "", m.name, k) : fmt::format("top_mass{}/{}/p:0.9", reference ? "_ref" : "", m.name);
  benchmark::RegisterBenchmark(name.c_str(), [s, m, k, reference](benchmark::State& state) {
    const std::vector<float> x = model_like_logits(m.vocab);
    std::vector<float> w(x.size());
    const double sum = softmax_exp(x.data(), m.vocab, x[argmax(x.data(), m.vocab)], 1.0f, w.data());
    std::vector<int32_t> ids;
    const LoopClock clock;
    for (auto _ : state) {
      if (k > 0) (reference ? top_k_ref : top_k)(w.data(), m.vocab, k, ids);
      else (reference ? top_mass_ref : top_mass)(w.data(), m.vocab, 0.9 * sum, ids);
      benchmark::DoNotOptimize(ids.data());
    }
    report_work(state, clock, {4.0 * m.vocab, 1.0 * m.vocab}, s.one_thread);
  })->Unit(benchmark::kMicrosecond);
}

// Beam search's step: the best W of W beams x V draft tokens (summed log-probabilities).
void register_beam_top_k(const BenchSuite& s, int64_t width, int64_t vocab) {
  benchmark::RegisterBenchmark(fmt::format("beam_top_k/bw:{}/vocab:{}", width, vocab).c_str(), [s, width, vocab](benchmark::State& state) {
    std::mt19937 rng(10);
    const std::vector<float> scores = random_activations(width * vocab, rng, 3.0f);
    std::vector<int32_t> ids;
    const LoopClock clock;
    for (auto _ : state) {
      top_k(scores.data(), width * vocab, width, ids);
      benchmark::DoNotOptimize(ids.data());
    }
    report_work(state, clock, {4.0 * width * vocab, 1.0 * width * vocab}, s.one_thread);
  })->Unit(benchmark::kMicrosecond);
}

}  // namespace

void register_sampling_benchmarks(const BenchSuite& s) {
  for (const ModelShape* model : kModelShapes) {
    if (model != &kGemma3_270M && !s.full()) continue;
    for (bool reference : {false, true}) {
      if (reference && !s.full()) continue;
      register_argmax(s, *model, reference);
      register_softmax(s, *model, reference);
      register_selection(s, *model, 50, reference);
      if (s.full()) register_selection(s, *model, -1, reference);
    }
  }
  for (int64_t width : {1, 4, 16, 64})
    if (s.full() || width == 16) register_beam_top_k(s, width, kVicuna7B.vocab);
}

}  // namespace draftbench
