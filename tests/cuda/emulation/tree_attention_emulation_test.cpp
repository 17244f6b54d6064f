// The CUDA tree-attention block program, run by the grid emulator (make_emulated_kernels), against
// tree_attention_head on random trees (forests included), GQA and sliding windows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/attention/tree_attention.h"
#include "kernels/cuda/device_kernels.h"
#include "kernels/fixtures/random_blocks.h"
#include "tests/cuda/tree_attention_case.h"

using namespace draftbench;

namespace {

std::vector<float> emulate(const cuda_test::AttentionCase& c, cuda::ThreadOrder order) {
  const int64_t row = static_cast<int64_t>(c.shape.n_heads) * c.shape.head_dim;
  const int32_t n = c.tree.size();
  std::vector<float> out(n * row, NAN);
  cuda::make_emulated_kernels(order)->tree_attention(c.shape, c.q.data(), row, c.k.data(), c.v.data(), c.kv_stride, c.n_committed, c.tree.view(), out.data(),
                                                     row);
  return out;
}

}  // namespace

TEST_CASE("emulated CUDA tree attention matches tree_attention_head", "[cuda-emulation]") {
  std::mt19937 rng(51);
  struct Shape {
    int n_heads, n_kv, head_dim;
  };
  // MHA with a tiny odd head, GQA 4:1 with Gemma's 256 (two dims per thread), MQA at 64.
  const Shape shapes[] = {{2, 2, 3}, {8, 2, 256}, {4, 1, 64}, {3, 3, 17}};
  for (const Shape& s : shapes) {
    // No context, a short one, and one that with the tree spans three tiles of 128 keys.
    for (const int64_t committed : {0, 5, 300}) {
      for (const int n_nodes : {1, 9, 40}) {
        for (const int64_t window : {0, 1, 4, 64}) {
          for (const bool forest : {false, true}) {
            const auto c = cuda_test::random_attention_case(rng, s.n_heads, s.n_kv, s.head_dim, committed, n_nodes, window, forest);
            const auto ref = cuda_test::reference_outputs(c);
            const auto got = emulate(c, cuda::ThreadOrder::kForward);
            // Bound derivation in tree_attention_case.h; glibc's expf is within 1 ulp on both sides.
            const float tol = cuda_test::output_tolerance(c, 2);
            float worst = 0.0f;
            for (size_t i = 0; i < ref.size(); ++i) {
              const float d = std::fabs(got[i] - ref[i]);
              if (!(d <= worst)) worst = d;  // a NaN (say, an output never written) sticks
            }
            INFO("heads " << s.n_heads << "/" << s.n_kv << ", head_dim " << s.head_dim << ", committed " << committed << ", nodes " << n_nodes << ", window "
                          << window << ", forest " << forest << ", tolerance " << tol);
            REQUIRE(worst <= tol);
            REQUIRE(emulate(c, cuda::ThreadOrder::kReverse) == got);
          }
        }
      }
    }
  }
}
