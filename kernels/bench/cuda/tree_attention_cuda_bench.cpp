// cuda::tree_attention (kernels/cuda/tree_attention_cuda.h) as a verification step runs
// it: every head of every node of a draft tree attends to the committed context and to its
// ancestors-or-self.
//   cuda_tree_attention/<model>/ctx:<C>/nodes:<N>
// C = 2048 committed positions, no sliding window (a global layer), random trees of depth
// at most 4 below the root (random_tree.h, as the CPU suite's). Full suite: both models,
// N = 1, 8, 64, 128, 512; CI suite: Gemma, N = 1, 64, 512. Inputs are copied to the device
// once, before the timed loop; work as the CPU suite counts it (kernel_work.h).
#include <fmt/format.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/bench/cuda/cuda_bench_suite.h"
#include "kernels/bench/kernel_work.h"
#include "kernels/bench/model_shapes.h"
#include "kernels/bench/random_tree.h"
#include "kernels/cuda/tree_attention_cuda.h"
#include "kernels/fixtures/random_blocks.h"

namespace draftbench::cuda_bench {
namespace {

constexpr int64_t kContext = 2048;

void register_tree_attention(const CudaBenchSuite& s, const ModelShape& m, int32_t nodes) {
  const auto name = fmt::format("cuda_tree_attention/{}/ctx:{}/nodes:{}", m.name, kContext, nodes);
  register_cuda_benchmark(name, [s, m, nodes](benchmark::State& state) {
    std::mt19937 rng(11);
    const TokenTree tree = random_tree(nodes, rng);
    // Rows packed: K/V [slot][n_kv_heads * head_dim], q and out [node][n_heads * head_dim].
    const int64_t kv_stride = static_cast<int64_t>(m.n_kv_heads) * m.head_dim, q_stride = static_cast<int64_t>(m.n_heads) * m.head_dim;
    const int64_t slots = kContext + nodes;
    const DeviceMemory k(random_activations(slots * kv_stride, rng, 1.0f)), v(random_activations(slots * kv_stride, rng, 1.0f));
    const DeviceMemory q(random_activations(nodes * q_stride, rng, 1.0f)), out(sizeof(float) * static_cast<size_t>(nodes * q_stride));
    const DeviceMemory dfs_start(tree.dfs_start), dfs_end(tree.dfs_end), depth(tree.depth);
    const TreeView device_tree{tree.size(), dfs_start.as<const int32_t>(), dfs_end.as<const int32_t>(), depth.as<const int32_t>()};
    const AttentionShape shape{m.n_heads, m.n_kv_heads, m.head_dim, 1.0f / std::sqrt(static_cast<float>(m.head_dim)), 0};
    const double seconds = run_timed_loop(state, [&] {
      return cuda::tree_attention(shape, q.as<const float>(), q_stride, k.as<const float>(), v.as<const float>(), kv_stride, kContext, device_tree,
                                  out.as<float>(), q_stride);
    });
    report_device_work(state, seconds, tree_attention_work(m, kContext, tree), s.device);
  });
}

}  // namespace

void register_cuda_tree_attention_benchmarks(const CudaBenchSuite& s) {
  const std::vector<int32_t> sizes = s.full() ? std::vector<int32_t>{1, 8, 64, 128, 512} : std::vector<int32_t>{1, 64, 512};
  for (const ModelShape* model : kModelShapes) {
    if (model != &kGemma3_270M && !s.full()) continue;
    for (const int32_t n : sizes) register_tree_attention(s, *model, n);
  }
}

}  // namespace draftbench::cuda_bench
