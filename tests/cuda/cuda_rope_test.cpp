// CUDA rotary embedding against the CPU reference; skipped (exit 77) without a GPU.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/rope_cuda.h"
#include "kernels/fixtures/random_blocks.h"
#include "kernels/ops/rope.h"
#include "tests/cuda/gpu_test_support.h"

using namespace draftbench;

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  std::mt19937 rng(5);
  const std::vector<int64_t> positions = {0, 1, 17, 4095, 100000};
  const int64_t n_tokens = static_cast<int64_t>(positions.size());
  gpu_test::DeviceBuffer<int64_t> dpos(positions);
  for (const bool neox : {true, false}) {
    for (const int n_heads : {1, 8}) {
      for (const int head_dim : {2, 7, 64, 256}) {
        const int64_t stride = static_cast<int64_t>(n_heads) * head_dim + 5;
        const auto x = random_activations(n_tokens * stride, rng);
        std::vector<float> ref = x;
        for (int64_t t = 0; t < n_tokens; ++t) {
          if (neox) rope_neox(ref.data() + t * stride, n_heads, head_dim, positions[t], 10000.0f);
          else rope_norm(ref.data() + t * stride, n_heads, head_dim, positions[t], 10000.0f);
        }
        gpu_test::DeviceBuffer<float> dx(x);
        const int err = neox ? cuda::rope_neox(dx.data(), n_tokens, stride, dpos.data(), n_heads, head_dim, 10000.0f)
                             : cuda::rope_norm(dx.data(), n_tokens, stride, dpos.data(), n_heads, head_dim, 10000.0f);
        gpu_test::check_cuda(err, "rope launch");
        const auto got = dx.download();
        // Angles are bit-identical (same running product, scale computed on the host);
        // CUDA's cosf/sinf are within 2 ulps of the true value, as glibc's within 1, so each
        // rotated value a*c - b*s is off by at most ~3 ulps of 1 times |a| + |b|: bounded
        // by 8 * FLT_EPSILON * max|x|. Untouched values (padding, odd head_dim) are exact.
        float max_x = 0.0f;
        for (const float v : x) max_x = std::max(max_x, std::fabs(v));
        for (size_t i = 0; i < got.size(); ++i)
          mismatches.check(std::fabs(got[i] - ref[i]) <= 8.0f * FLT_EPSILON * max_x, neox ? "rope_neox" : "rope_norm", i, got[i], ref[i]);
      }
    }
  }
  return mismatches.finish("rope");
}
