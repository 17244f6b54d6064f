#include "kernels/ops/rope.h"

#include <cmath>

namespace draftbench {
namespace {

template <bool kNeox>
void rope(float* x, int n_heads, int head_dim, int64_t pos, float base) {
  const float theta_scale = std::pow(base, -2.0f / static_cast<float>(head_dim));
  const int half = head_dim / 2;
  float theta = static_cast<float>(pos);
  for (int j = 0; j < half; ++j) {
    const float c = std::cos(theta), s = std::sin(theta);
    for (int h = 0; h < n_heads; ++h) {
      float* v = x + static_cast<int64_t>(h) * head_dim;
      const int i0 = kNeox ? j : 2 * j, i1 = kNeox ? j + half : 2 * j + 1;
      const float a = v[i0], b = v[i1];
      v[i0] = a * c - b * s;
      v[i1] = a * s + b * c;
    }
    theta *= theta_scale;
  }
}

}  // namespace

void rope_neox(float* x, int n_heads, int head_dim, int64_t pos, float base) { rope<true>(x, n_heads, head_dim, pos, base); }
void rope_norm(float* x, int n_heads, int head_dim, int64_t pos, float base) { rope<false>(x, n_heads, head_dim, pos, base); }

}  // namespace draftbench
