// Tree attention over a committed context, as a verification step runs it: every head of
// every tree node attends to the context and to its ancestors (DFS-interval test).
//   tree_attention/<model>/ctx:<C>/nodes:<N>/threads:<T>   the tiled kernel the engine runs
//   tree_attention_ref/<model>/ctx:<C>/nodes:<N>           tree_attention_head per (node, head)
// And the memory study (full suite; one head of 64 dimensions so that N = 4096 stays
// affordable): the DFS-interval kernel, the dense-mask kernel (mask built every step, as
// a framework would) and an unmasked attention over the same slots, each with its extra
// memory in the counter extra_bytes (per sequence) and extra_bytes_batch64.
//   attention_memory/{dfs,dense_mask,unmasked}/ctx:<C>/nodes:<N>
// Trees are random with depth at most 5 (beam length 5), parents first. Bytes count the
// K/V rows read once (context + tree); FLOPs count q.k and p.v over the visible keys.
#include <fmt/format.h>

#include <random>
#include <vector>

#include "kernels/attention/dense_mask_attention.h"
#include "kernels/attention/token_tree.h"
#include "kernels/attention/tree_attention.h"
#include "kernels/attention/tree_attention_tiled.h"
#include "kernels/bench/bench_suite.h"
#include "kernels/bench/kernel_work.h"
#include "kernels/bench/model_shapes.h"
#include "kernels/bench/random_tree.h"
#include "kernels/fixtures/random_blocks.h"

namespace draftbench {
namespace {

// threads == 0: the per-(node, head) reference on one thread; else the tiled kernel.
void register_tree_attention(const BenchSuite& s, const ModelShape& m, int64_t context, int32_t nodes, int threads) {
  const std::string name = threads == 0 ? fmt::format("tree_attention_ref/{}/ctx:{}/nodes:{}", m.name, context, nodes)
                                        : fmt::format("tree_attention/{}/ctx:{}/nodes:{}/threads:{}", m.name, context, nodes, threads);
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [s, m, context, nodes, threads](benchmark::State& state) {
    std::mt19937 rng(11);
    const TokenTree tree = random_tree(nodes, rng);
    const int64_t kv_stride = static_cast<int64_t>(m.n_kv_heads) * m.head_dim;
    const int64_t slots = context + nodes;
    const HugeFloats k(random_activations(slots * kv_stride, rng, 1.0f));
    const HugeFloats v(random_activations(slots * kv_stride, rng, 1.0f));
    const std::vector<float> q = random_activations(static_cast<int64_t>(nodes) * m.n_heads * m.head_dim, rng, 1.0f);
    std::vector<float> out(q.size());
    const AttentionShape shape{m.n_heads, m.n_kv_heads, m.head_dim, 1.0f / 16.0f, 0};
    ThreadPool one(1);
    ThreadPool& pool = threads == 1 ? one : *s.pool;
    HugeFloats scores(std::max(static_cast<size_t>(slots), tree_attention_scratch_floats(shape, context, nodes, 0, pool.size())));
    const TreeAttentionJob job{shape, tree.view(), 0, q.data(), k.data(), v.data(), kv_stride, context, out.data()};
    const LoopClock clock;
    for (auto _ : state) {
      if (threads > 0) tree_attention(job, scores.span(), pool);
      else
        for (int32_t node = 0; node < nodes; ++node)
          for (int h = 0; h < m.n_heads; ++h) {
            const size_t off = (static_cast<size_t>(node) * m.n_heads + h) * m.head_dim;
            tree_attention_head(shape, h, q.data() + off, k.data(), v.data(), kv_stride, context, tree.view(), node, scores.data(), out.data() + off);
          }
      benchmark::ClobberMemory();
    }
    report_work(state, clock, tree_attention_work(m, context, tree), threads > 1 ? s.all_threads : s.one_thread);
  });
  b->Unit(benchmark::kMicrosecond);
  if (threads > 1) b->UseRealTime();
}

enum class Masking { dfs, dense_mask, unmasked };

void register_attention_memory(const BenchSuite& s, Masking masking, int64_t context, int32_t nodes) {
  const char* kind = masking == Masking::dfs ? "dfs" : masking == Masking::dense_mask ? "dense_mask" : "unmasked";
  const std::string name = fmt::format("attention_memory/{}/ctx:{}/nodes:{}", kind, context, nodes);
  benchmark::RegisterBenchmark(name.c_str(), [s, masking, context, nodes](benchmark::State& state) {
    constexpr int kDim = 64;
    std::mt19937 rng(17);
    const TokenTree tree = random_tree(nodes, rng);
    const int64_t slots = context + nodes;
    const HugeFloats k(random_activations(slots * kDim, rng, 1.0f)), v(random_activations(slots * kDim, rng, 1.0f));
    const std::vector<float> q = random_activations(int64_t{nodes} * kDim, rng, 1.0f);
    std::vector<float> out(q.size()), scores(static_cast<size_t>(slots));
    const AttentionShape shape{1, 1, kDim, 0.125f, 0};
    // Unmasked: the same slots, every one visible (the mask is all zeros and built once).
    DenseTreeMask open;
    if (masking == Masking::unmasked) open = {context, nodes, std::vector<float>(static_cast<size_t>(nodes * slots), 0.0f)};
    size_t extra = 0;
    const LoopClock clock;
    for (auto _ : state) {
      if (masking == Masking::dfs) {
        for (int32_t node = 0; node < nodes; ++node)
          tree_attention_head(shape, 0, q.data() + node * kDim, k.data(), v.data(), kDim, context, tree.view(), node, scores.data(), out.data() + node * kDim);
        extra = 3 * sizeof(int32_t) * static_cast<size_t>(nodes);
      } else {
        const DenseTreeMask mask = masking == Masking::dense_mask ? build_dense_tree_mask(tree.view(), context, 0) : DenseTreeMask{};
        const DenseTreeMask& used = masking == Masking::dense_mask ? mask : open;
        for (int32_t node = 0; node < nodes; ++node)
          dense_mask_attention_head(shape, 0, q.data() + node * kDim, k.data(), v.data(), kDim, used, node, scores.data(), out.data() + node * kDim);
        extra = masking == Masking::dense_mask ? mask.bytes() : 0;
      }
      benchmark::ClobberMemory();
    }
    double visible = 0;
    for (int32_t node = 0; node < nodes; ++node)
      visible += masking == Masking::dfs ? static_cast<double>(context + tree.depth[node] + 1) : static_cast<double>(slots);
    report_work(state, clock, {8.0 * slots * kDim, 4.0 * kDim * visible}, s.one_thread);
    state.counters["extra_bytes"] = static_cast<double>(extra);
    state.counters["extra_bytes_batch64"] = 64.0 * static_cast<double>(extra);
  })->Unit(benchmark::kMillisecond);
}

}  // namespace

void register_attention_benchmarks(const BenchSuite& s) {
  const std::vector<int32_t> sizes = s.full() ? std::vector<int32_t>{8, 16, 32, 64, 128, 256, 512} : std::vector<int32_t>{64};
  for (const ModelShape* model : kModelShapes) {
    if (model != &kGemma3_270M && !s.full()) continue;
    for (int32_t n : sizes) {
      register_tree_attention(s, *model, 2048, n, 1);
      register_tree_attention(s, *model, 2048, n, s.pool->size());
      if (s.full() || n == 64) register_tree_attention(s, *model, 2048, n, 0);
    }
  }
  if (!s.full()) return;
  for (int32_t n : {8, 32, 128, 512, 1024, 2048, 4096})
    for (Masking m : {Masking::dfs, Masking::dense_mask, Masking::unmasked}) register_attention_memory(s, m, 2048, n);
}

}  // namespace draftbench
