// The LM head as speculative verification runs it (full suite only: Gemma's head is 178 MB
// of Q8_0, read from DRAM on every pass):
//   lm_head/<model>/logits/rows:<n>   matmul, n full logit rows (logits_from_hidden)
//   lm_head/<model>/argmax/rows:<n>   matmul_argmax, n ids and no logit rows (greedy)
//   lm_head/<model>/<output>/Q8_0r16/rows:<n>  the same over the head layout the engine uses
//                                     where the VNNI kernels run (matmul/weight_repack.h)
// n = 1, 2, 3, 4, 8, ..., 64: how the cost of one pass grows with the rows it serves is what
// decides how many tree nodes the decoder asks for at once (engine/decoding/node_logits.h).
// Weights come from DRAM (WeightArena), on the pool.
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "kernels/bench/bench_suite.h"
#include "kernels/bench/kernel_work.h"
#include "kernels/bench/model_shapes.h"
#include "kernels/bench/weight_arena.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_argmax.h"
#include "kernels/matmul/weight_repack.h"

namespace draftbench {
namespace {

enum class HeadOutput { logits, argmax };

// The head in the engine's head layout, made from the arena's first window on first use and
// shared: 178 MB is far beyond the caches, so one copy reads from DRAM every pass.
struct InterleavedHead {
  HugePageBuffer bytes;
  WeightMatrix matrix;
};

void register_lm_head(const BenchSuite& s, std::shared_ptr<WeightArena> arena, std::shared_ptr<InterleavedHead> interleaved, const ModelShape& model,
                      const MatrixShape& m, HeadOutput output, int64_t n_x) {
  const std::string layout = interleaved ? "/Q8_0r16" : "";
  const std::string name = fmt::format("lm_head/{}/{}{}/rows:{}", model.name, output == HeadOutput::logits ? "logits" : "argmax", layout, n_x);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [s, arena, interleaved, m, output, n_x](benchmark::State& state) {
        WeightMatrix w{m.type, m.n_in, m.n_out, nullptr};
        auto weights = arena->cursor(m.type, w.row_bytes() * static_cast<size_t>(m.n_out));
        if (interleaved && interleaved->matrix.data == nullptr) {
          interleaved->bytes = HugePageBuffer(head_layout_bytes(w));
          w.data = weights.next();
          interleaved->matrix = to_head_layout(w, interleaved->bytes.data());
        }
        if (interleaved) w = interleaved->matrix;
        std::mt19937 rng(7);
        const std::vector<float> x = random_activations(m.n_in * n_x, rng);
        const bool logits = output == HeadOutput::logits;
        std::vector<uint8_t> scratch(logits ? matmul_scratch_bytes(w, n_x, s.pool->size()) : matmul_argmax_scratch_bytes(w, n_x, s.pool->size()));
        std::vector<float> y(logits ? static_cast<size_t>(m.n_out * n_x) : 0);
        std::vector<int32_t> ids(static_cast<size_t>(n_x));
        const LoopClock clock;
        for (auto _ : state) {
          w = interleaved ? interleaved->matrix : WeightMatrix{m.type, m.n_in, m.n_out, weights.next()};
          if (logits) matmul(w, x.data(), n_x, y.data(), *s.pool, scratch);
          else matmul_argmax(w, x.data(), n_x, 0.0f, ids.data(), *s.pool, scratch);
          benchmark::ClobberMemory();
        }
        Work work = product_work(m, n_x);
        if (!logits) work.bytes -= 4.0 * static_cast<double>(m.n_out * n_x);  // no logit rows written
        report_work(state, clock, work, s.all_threads);
      })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace

void register_lm_head_benchmarks(const BenchSuite& s) {
  if (!s.full()) return;
  auto arena = std::make_shared<WeightArena>(s.cold_bytes());
  const ModelShape& model = kGemma3_270M;
  const MatrixShape& head = model.matrices.back();
  const bool has_head_layout = head_layout_type(WeightMatrix{head.type, head.n_in, head.n_out, nullptr}) != head.type;
  auto interleaved = std::make_shared<InterleavedHead>();
  for (const int64_t n_x : {1, 2, 3, 4, 8, 16, 32, 64})
    for (const HeadOutput output : {HeadOutput::logits, HeadOutput::argmax}) {
      register_lm_head(s, arena, nullptr, model, head, output, n_x);
      if (has_head_layout) register_lm_head(s, arena, interleaved, model, head, output, n_x);
    }
}

}  // namespace draftbench
