// CUDA tree attention against tree_attention_head; skipped (exit 77) without a GPU.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/tree_attention_cuda.h"
#include "tests/cuda/gpu_test_support.h"
#include "tests/cuda/tree_attention_case.h"

using namespace draftbench;

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  std::mt19937 rng(13);
  struct Shape {
    int n_heads, n_kv, head_dim;
  };
  const Shape shapes[] = {{2, 2, 3}, {8, 2, 256}, {4, 1, 64}};
  for (const Shape& s : shapes) {
    for (const int64_t committed : {0, 5, 300}) {
      for (const int n_nodes : {1, 40}) {
        for (const int64_t window : {0, 4, 64}) {
          for (const bool forest : {false, true}) {
            const auto c = cuda_test::random_attention_case(rng, s.n_heads, s.n_kv, s.head_dim, committed, n_nodes, window, forest);
            const auto ref = cuda_test::reference_outputs(c);
            const int64_t row = static_cast<int64_t>(s.n_heads) * s.head_dim;
            gpu_test::DeviceBuffer<float> dq(c.q), dk(c.k), dv(c.v), dout{std::vector<float>(ref.size(), NAN)};
            gpu_test::DeviceBuffer<int32_t> dstart(c.tree.dfs_start), dend(c.tree.dfs_end), ddepth(c.tree.depth);
            const TreeView tree{c.tree.size(), dstart.data(), dend.data(), ddepth.data()};
            gpu_test::check_cuda(cuda::tree_attention(c.shape, dq.data(), row, dk.data(), dv.data(), c.kv_stride, committed, tree, dout.data(), row),
                                 "tree_attention launch");
            const auto got = dout.download();
            // Bound derivation in tree_attention_case.h; CUDA's expf is within 2 ulps, glibc's 1.
            const float tol = cuda_test::output_tolerance(c, 3);
            for (size_t i = 0; i < got.size(); ++i) mismatches.check(std::fabs(got[i] - ref[i]) <= tol, "tree_attention", i, got[i], ref[i]);
          }
        }
      }
    }
  }
  return mismatches.finish("tree_attention");
}
