#include "kernels/ops/rope.h"

#include <cmath>

#include "kernels/runtime/check.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench {
namespace {

template <bool kNeox>
void rotate(float* x, int n_heads, int head_dim, const float* cos, const float* sin) {
  const int half = head_dim / 2;
  for (int h = 0; h < n_heads; ++h) {
    float* v = x + static_cast<int64_t>(h) * head_dim;
    for (int j = 0; j < half; ++j) {
      const int i0 = kNeox ? j : 2 * j, i1 = kNeox ? j + half : 2 * j + 1;
      const float a = v[i0], b = v[i1];
      v[i0] = a * cos[j] - b * sin[j];
      v[i1] = a * sin[j] + b * cos[j];
    }
  }
}

constexpr int kMaxHeadDim = 1024;

}  // namespace

void rope_angles(int64_t pos, int head_dim, float base, float* cos, float* sin) {
  const float theta_scale = std::pow(base, -2.0f / static_cast<float>(head_dim));
  float theta = static_cast<float>(pos);
  for (int j = 0; j < head_dim / 2; ++j) {
    cos[j] = std::cos(theta);
    sin[j] = std::sin(theta);
    theta *= theta_scale;
  }
}

void rope_neox_apply_ref(float* x, int n_heads, int head_dim, const float* cos, const float* sin) { rotate<true>(x, n_heads, head_dim, cos, sin); }
void rope_norm_apply_ref(float* x, int n_heads, int head_dim, const float* cos, const float* sin) { rotate<false>(x, n_heads, head_dim, cos, sin); }

void rope_neox_apply(float* x, int n_heads, int head_dim, const float* cos, const float* sin) {
  if (cpu_features().avx2) rope_neox_apply_avx2(x, n_heads, head_dim, cos, sin);
  else rope_neox_apply_ref(x, n_heads, head_dim, cos, sin);
}

void rope_norm_apply(float* x, int n_heads, int head_dim, const float* cos, const float* sin) {
  if (cpu_features().avx2) rope_norm_apply_avx2(x, n_heads, head_dim, cos, sin);
  else rope_norm_apply_ref(x, n_heads, head_dim, cos, sin);
}

void rope_neox(float* x, int n_heads, int head_dim, int64_t pos, float base) {
  DB_CHECK(head_dim <= kMaxHeadDim);
  float cos[kMaxHeadDim / 2], sin[kMaxHeadDim / 2];
  rope_angles(pos, head_dim, base, cos, sin);
  rope_neox_apply(x, n_heads, head_dim, cos, sin);
}

void rope_norm(float* x, int n_heads, int head_dim, int64_t pos, float base) {
  DB_CHECK(head_dim <= kMaxHeadDim);
  float cos[kMaxHeadDim / 2], sin[kMaxHeadDim / 2];
  rope_angles(pos, head_dim, base, cos, sin);
  rope_norm_apply(x, n_heads, head_dim, cos, sin);
}

}  // namespace draftbench
