// AVX2 rotations of rope.h, bit-identical to the reference: per pair the same two products
// and one subtraction or addition (a * sin + b * cos and b * cos + a * sin are the same
// float, addition being commutative; a * cos - b * sin is a * cos + (-(b * sin))).
#include <immintrin.h>

#include "kernels/ops/rope.h"

namespace draftbench {

void rope_neox_apply_avx2(float* x, int n_heads, int head_dim, const float* cos, const float* sin) {
  const int half = head_dim / 2;
  if (half % 8 != 0) return rope_neox_apply_ref(x, n_heads, head_dim, cos, sin);
  for (int h = 0; h < n_heads; ++h) {
    float* v = x + static_cast<int64_t>(h) * head_dim;
    for (int j = 0; j < half; j += 8) {
      const __m256 a = _mm256_loadu_ps(v + j), b = _mm256_loadu_ps(v + j + half);
      const __m256 c = _mm256_loadu_ps(cos + j), s = _mm256_loadu_ps(sin + j);
      _mm256_storeu_ps(v + j, _mm256_sub_ps(_mm256_mul_ps(a, c), _mm256_mul_ps(b, s)));
      _mm256_storeu_ps(v + j + half, _mm256_add_ps(_mm256_mul_ps(a, s), _mm256_mul_ps(b, c)));
    }
  }
}

// Pairs (2j, 2j + 1): four pairs per register, each angle duplicated into its pair's two
// slots; the partner values come from swapping neighbours, and the even slots' products
// change sign.
void rope_norm_apply_avx2(float* x, int n_heads, int head_dim, const float* cos, const float* sin) {
  const int half = head_dim / 2;
  if (half % 4 != 0) return rope_norm_apply_ref(x, n_heads, head_dim, cos, sin);
  const __m256 even_sign = _mm256_setr_ps(-0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f);
  const __m256i dup = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
  for (int h = 0; h < n_heads; ++h) {
    float* v = x + static_cast<int64_t>(h) * head_dim;
    for (int j = 0; j < half; j += 4) {
      const __m256 ab = _mm256_loadu_ps(v + 2 * j);
      const __m256 ba = _mm256_permute_ps(ab, 0xB1);
      const __m256 c = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(_mm_loadu_ps(cos + j)), dup);
      const __m256 s = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(_mm_loadu_ps(sin + j)), dup);
      _mm256_storeu_ps(v + 2 * j, _mm256_add_ps(_mm256_mul_ps(ab, c), _mm256_xor_ps(_mm256_mul_ps(ba, s), even_sign)));
    }
  }
}

}  // namespace draftbench
