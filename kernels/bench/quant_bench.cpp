// Quantised products at the default model's and Vicuna-7B's shapes:
//   dot_rows/<model>/<matrix>/<type>            one thread, one activation row (decode)
//   dot_rows/<model>/ffn_down/<type>            the other weight types at one shape
//   dot_rows_ref/<model>/ffn_down/<type>        the plain reference, for the speed-up
//   dot_rows_{avx2,avx512vnni,avx512bf16}/<model>/ffn_down/<F32|F16|BF16>  each build of the
//                                               float products side by side (full suite)
//   dot_rows_batch{,_ref,_avx2}/<model>/ffn_down/<F32|F16|BF16>/rows:8  eight activation rows,
//                                               one thread (full suite)
//   matmul/<model>/<matrix>/<type>/rows:<n>     the pool, n activation rows (verification)
//   quantize{,_ref}/<activation type>/n:<n>     one activation row quantised (full suite)
// Weights come from DRAM (WeightArena). Bytes count weights, quantised activations and
// outputs; FLOPs count 2 per multiply-add.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "kernels/bench/bench_suite.h"
#include "kernels/bench/kernel_work.h"
#include "kernels/matmul/weight_repack.h"
#include "kernels/bench/model_shapes.h"
#include "kernels/bench/weight_arena.h"
#include "kernels/matmul/matmul.h"
#include "kernels/quant/k_quant_amx.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench {
namespace {

using DotRowsFn = void (*)(GgmlType, const uint8_t*, size_t, int64_t, const void*, int64_t, float*);

// The shape in the layout a CPU forward pass repacks it to (kernels/matmul/weight_repack.h),
// if it does on this CPU: those products are benchmarked beside the file layout's.
std::optional<MatrixShape> as_repacked(const MatrixShape& m) {
  const GgmlType type = repacked_type(WeightMatrix{m.type, m.n_in, m.n_out, nullptr});
  if (type == m.type) return std::nullopt;
  return MatrixShape{m.name, m.n_in, m.n_out, type};
}

// The layouts benchmarked for m: its file type, the one a forward pass repacks it to, and for
// Q5_0 where that is Q5_0r16, Q5_0x4 (what the x86 kernels took before), so the two stand
// side by side.
std::vector<MatrixShape> layouts_of(const MatrixShape& m) {
  std::vector<MatrixShape> layouts{m};
  if (const auto repacked = as_repacked(m)) {
    layouts.push_back(*repacked);
    if (repacked->type == GgmlType::Q5_0r16 && m.n_in % ggml_type_info(GgmlType::Q5_0x4).block_size == 0)
      layouts.push_back(MatrixShape{m.name, m.n_in, m.n_out, GgmlType::Q5_0x4});
  }
  return layouts;
}

void register_dot_rows(const BenchSuite& s, std::shared_ptr<WeightArena> arena, const std::string& name, const MatrixShape& m, DotRowsFn fn) {
  benchmark::RegisterBenchmark(name.c_str(), [s, arena, m, fn](benchmark::State& state) {
    const size_t row_bytes = ggml_row_bytes(m.type, m.n_in);
    auto weights = arena->cursor(m.type, row_bytes * static_cast<size_t>(m.n_out));
    std::mt19937 rng(7);
    const std::vector<float> x = random_activations(m.n_in, rng);
    std::vector<uint8_t> xq(activation_row_bytes(m.type, m.n_in));
    quantize_activation_row(m.type, x.data(), xq.data(), m.n_in);
    std::vector<float> y(static_cast<size_t>(m.n_out));
    const LoopClock clock;
    for (auto _ : state) {
      fn(m.type, weights.next(), row_bytes, m.n_out, xq.data(), m.n_in, y.data());
      benchmark::ClobberMemory();
    }
    report_work(state, clock, product_work(m, 1), s.one_thread);
  })->Unit(benchmark::kMicrosecond);
}

void register_matmul(const BenchSuite& s, std::shared_ptr<WeightArena> arena, const std::string& name, const MatrixShape& m, int64_t n_x) {
  benchmark::RegisterBenchmark(name.c_str(),
                               [s, arena, m, n_x](benchmark::State& state) {
                                 WeightMatrix w{m.type, m.n_in, m.n_out, nullptr};
                                 auto weights = arena->cursor(m.type, w.row_bytes() * static_cast<size_t>(m.n_out));
                                 std::mt19937 rng(7);
                                 const std::vector<float> x = random_activations(m.n_in * n_x, rng);
                                 std::vector<uint8_t> scratch(matmul_scratch_bytes(w, n_x, s.pool->size()));
                                 std::vector<float> y(static_cast<size_t>(m.n_out * n_x));
                                 const LoopClock clock;
                                 for (auto _ : state) {
                                   w.data = weights.next();
                                   matmul(w, x.data(), n_x, y.data(), *s.pool, scratch);
                                   benchmark::ClobberMemory();
                                 }
                                 report_work(state, clock, product_work(m, n_x), s.all_threads);
                               })
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
}

using DotRowsBatchFn = void (*)(GgmlType, const uint8_t*, size_t, int64_t, const uint8_t*, size_t, int64_t, int64_t, float*, size_t);

// n_x activation rows against a whole weight matrix through one build's dot_rows_batch, one thread.
void register_dot_rows_batch(const BenchSuite& s, std::shared_ptr<WeightArena> arena, const std::string& name, const MatrixShape& m, int64_t n_x,
                             DotRowsBatchFn fn) {
  benchmark::RegisterBenchmark(name.c_str(), [s, arena, m, n_x, fn](benchmark::State& state) {
    const size_t row_bytes = ggml_row_bytes(m.type, m.n_in), xq_bytes = activation_row_bytes(m.type, m.n_in);
    auto weights = arena->cursor(m.type, row_bytes * static_cast<size_t>(m.n_out));
    std::mt19937 rng(7);
    const std::vector<float> x = random_activations(m.n_in * n_x, rng);
    std::vector<uint8_t> xq(xq_bytes * static_cast<size_t>(n_x));
    for (int64_t i = 0; i < n_x; ++i) quantize_activation_row(m.type, x.data() + i * m.n_in, xq.data() + i * xq_bytes, m.n_in);
    std::vector<float> y(static_cast<size_t>(m.n_out * n_x));
    const LoopClock clock;
    for (auto _ : state) {
      fn(m.type, weights.next(), row_bytes, m.n_out, xq.data(), xq_bytes, n_x, m.n_in, y.data(), static_cast<size_t>(m.n_out));
      benchmark::ClobberMemory();
    }
    report_work(state, clock, product_work(m, n_x), s.one_thread);
  })->Unit(benchmark::kMicrosecond);
}

using QuantizeFn = void (*)(GgmlType, const float*, void*, int64_t);

// One activation row of n values quantised for `weight_type`'s products, one thread.
void register_quantize(const BenchSuite& s, const std::string& name, GgmlType weight_type, int64_t n, QuantizeFn fn) {
  benchmark::RegisterBenchmark(name.c_str(), [s, weight_type, n, fn](benchmark::State& state) {
    std::mt19937 rng(7);
    const std::vector<float> x = random_activations(n, rng);
    std::vector<uint8_t> xq(activation_row_bytes(weight_type, n));
    const LoopClock clock;
    for (auto _ : state) {
      fn(weight_type, x.data(), xq.data(), n);
      benchmark::ClobberMemory();
    }
    // Per value: |x|, a max, a multiply, a rounding: four operations counted as FLOPs.
    report_work(state, clock, {4.0 * n + static_cast<double>(xq.size()), 4.0 * n}, s.one_thread);
  })->Unit(benchmark::kMicrosecond);
}

}  // namespace

void register_quant_benchmarks(const BenchSuite& s) {
  // Activation quantisation, optimised and reference: every product quantises its input rows.
  // Gemma's input lengths: Q8_0 rows (Q5_0, Q8_0 weights) of 640 and 2048 values, Q8_K rows
  // (Q4_K, Q6_K weights) of 1024 and 2048, whole 256-value blocks.
  struct QuantizeShape {
    GgmlType weight_type;
    int64_t n;
  };
  if (s.full())
    for (const auto [t, n] : {QuantizeShape{GgmlType::Q8_0, 640}, {GgmlType::Q8_0, 2048}, {GgmlType::Q6_K, 1024}, {GgmlType::Q6_K, 2048}}) {
      const auto act = ggml_type_name(activation_type_for(t));
      register_quantize(s, fmt::format("quantize/{}/n:{}", act, n), t, n, &quantize_activation_row);
      register_quantize(s, fmt::format("quantize_ref/{}/n:{}", act, n), t, n, &quantize_activation_row_ref);
    }
  auto arena = std::make_shared<WeightArena>(s.cold_bytes());
  for (const ModelShape* model : kModelShapes) {
    const bool gemma = model == &kGemma3_270M;
    if (!gemma && !s.full()) continue;
    for (const MatrixShape& m : model->matrices) {
      if (m.name == "lm_head" && !s.full()) continue;
      for (const MatrixShape& typed : layouts_of(m))
        register_dot_rows(s, arena, fmt::format("dot_rows/{}/{}/{}", model->name, m.name, ggml_type_name(typed.type)), typed, &dot_rows);
    }
    // The weight types the issue names, at one shape, optimised and reference side by side:
    // ffn_down's, whose input length is a whole number of 256-value K-quant super-blocks in
    // both models (Gemma's 640-long ffn_up rows are not, and a K-quant row would be cut short).
    const MatrixShape& shape = *std::ranges::find(model->matrices, std::string_view("ffn_down"), &MatrixShape::name);
    for (GgmlType t : {GgmlType::Q4_K, GgmlType::Q5_0, GgmlType::Q6_K, GgmlType::Q8_0, GgmlType::F16, GgmlType::BF16}) {
      if (!s.full() && t != GgmlType::Q4_K && t != GgmlType::Q8_0) continue;
      const MatrixShape typed{shape.name, shape.n_in, shape.n_out, t};
      if (t != shape.type) {
        register_dot_rows(s, arena, fmt::format("dot_rows/{}/{}/{}", model->name, shape.name, ggml_type_name(t)), typed, &dot_rows);
        if (const auto repacked = as_repacked(typed); repacked && s.full())
          register_dot_rows(s, arena, fmt::format("dot_rows/{}/{}/{}", model->name, shape.name, ggml_type_name(repacked->type)), *repacked, &dot_rows);
      }
      if (s.full()) register_dot_rows(s, arena, fmt::format("dot_rows_ref/{}/{}/{}", model->name, shape.name, ggml_type_name(t)), typed, &dot_rows_ref);
    }
    // The float products' builds side by side (the dispatching dot_rows above is the fastest
    // this CPU runs), one activation row and eight.
    if (s.full()) {
      const CpuFeatures& f = cpu_features();
      const bool avx512 = f.avx512vnni && f.avx512bw && f.avx512vl && f.avx2;
      for (GgmlType t : {GgmlType::F32, GgmlType::F16, GgmlType::BF16}) {
        const MatrixShape typed{shape.name, shape.n_in, shape.n_out, t};
        const auto name = [&](std::string_view family) { return fmt::format("{}/{}/{}/{}", family, model->name, shape.name, ggml_type_name(t)); };
        if (t == GgmlType::F32) register_dot_rows(s, arena, name("dot_rows_ref"), typed, &dot_rows_ref);
        if (f.avx2) register_dot_rows(s, arena, name("dot_rows_avx2"), typed, &dot_rows_avx2);
        if (avx512) register_dot_rows(s, arena, name("dot_rows_avx512vnni"), typed, &dot_rows_avx512vnni);
        if (avx512 && f.avx512bf16 && t == GgmlType::BF16) register_dot_rows(s, arena, name("dot_rows_avx512bf16"), typed, &dot_rows_avx512bf16);
        register_dot_rows_batch(s, arena, name("dot_rows_batch_ref") + "/rows:8", typed, 8, &dot_rows_batch_ref);
        if (f.avx2) register_dot_rows_batch(s, arena, name("dot_rows_batch_avx2") + "/rows:8", typed, 8, &dot_rows_batch_avx2);
        register_dot_rows_batch(s, arena, name("dot_rows_batch") + "/rows:8", typed, 8, &dot_rows_batch);
      }
    }
    // K-quant batches through the AVX-512 kernels and the AMX tiles (k_quant_amx.h), side by side.
    if (s.full() && cpu_features().amx_int8) {
      const DotRowsBatchFn amx = [](GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x,
                                    int64_t n, float* y,
                                    size_t y_stride) { k_quant_rows_batch_amx(type, w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride); };
      for (const GgmlType t : {GgmlType::Q4_K, GgmlType::Q6_K}) {
        const MatrixShape typed{shape.name, shape.n_in, shape.n_out, t};
        for (const int64_t n_x : {4, 8, 16, 64}) {
          const auto name = [&](std::string_view family) {
            return fmt::format("{}/{}/{}/{}/rows:{}", family, model->name, shape.name, ggml_type_name(t), n_x);
          };
          register_dot_rows_batch(s, arena, name("dot_rows_batch_avx512vnni"), typed, n_x, &dot_rows_batch_avx512vnni);
          register_dot_rows_batch(s, arena, name("dot_rows_batch_amx"), typed, n_x, amx);
        }
      }
    }
    // Batched products as verification runs them: every weight row meets n activation rows.
    const std::vector<int64_t> batches = s.full() ? std::vector<int64_t>{1, 2, 4, 8, 16, 64, 256} : std::vector<int64_t>{1, 16};
    for (const MatrixShape& m : model->matrices) {
      if (!s.full() && m.name != "ffn_up" && m.name != "ffn_down") continue;
      for (const MatrixShape& typed : layouts_of(m))
        for (int64_t n_x : batches)
          // Gemma's 262144-row head at 64+ rows would take seconds an iteration.
          if (m.name != "lm_head" || (s.full() && n_x <= 16))
            register_matmul(s, arena, fmt::format("matmul/{}/{}/{}/rows:{}", model->name, m.name, ggml_type_name(typed.type), n_x), typed, n_x);
    }
  }
}

}  // namespace draftbench
