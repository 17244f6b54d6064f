// quantize_activation_row_ref's Q8_0 and Q8_K blocks with AVX2 and F16C, value for value the
// same operations: max|x| (fmaxf's and max_ps's results agree on finite inputs), correctly
// rounded divisions and multiplies, round-half-even (cvtps_epi32 in the default rounding
// mode, as rintf), the same fp16 conversion (which -mf16c makes one instruction here). The
// scalar build spends most of a row in libm's fmaxf and the soft fp16 conversion.
#include <immintrin.h>

#include "kernels/quant/blocks.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/quantize_block.h"

namespace draftbench {
namespace {

inline __m256 abs_ps(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }

inline float max_lane(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
}

// 32 int32 codes (four registers) to 32 int8 in order. The packs saturate, but every code
// here is within [-128, 127] already.
inline void store_codes_32(const __m256i v[4], int8_t* qs) {
  const __m256i packed = _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(qs), _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}

void quantize_q8_0_avx2(const float* x, BlockQ8_0* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += 32) {
    __m256 v[4], amax = _mm256_setzero_ps();
    for (int k = 0; k < 4; ++k) {
      v[k] = _mm256_loadu_ps(x + 8 * k);
      amax = _mm256_max_ps(abs_ps(v[k]), amax);  // a NaN value loses, as in fmaxf(amax, NaN)
    }
    const float m = max_lane(amax);
    const __m256 id = _mm256_set1_ps(q8_0_code_scale(m));
    __m256i codes[4];
    for (int k = 0; k < 4; ++k) codes[k] = _mm256_cvtps_epi32(_mm256_mul_ps(v[k], id));
    store_codes_32(codes, y[i].qs);
    y[i].d = fp32_to_fp16(m / 127.0f);
  }
}

void quantize_q8_k_avx2(const float* x, BlockQ8_K* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += QK_K) {
    __m256 amax = _mm256_setzero_ps();
    for (int k = 0; k < QK_K; k += 8) amax = _mm256_max_ps(abs_ps(_mm256_loadu_ps(x + k)), amax);
    const float m = max_lane(amax);
    BlockQ8_K& b = y[i];
    if (!(m >= kQuantMinMagnitude)) {  // the reference's zero block
      quantize_q8_k_block(x, b);
      continue;
    }
    int first = 0;  // the reference keeps the first value of the largest magnitude, with its sign
    while (!(__builtin_fabsf(x[first]) == m)) ++first;
    const float iscale = -128.0f / x[first];
    const __m256 s = _mm256_set1_ps(iscale);
    for (int g = 0; g < QK_K / 32; ++g) {
      __m256i codes[4];
      for (int k = 0; k < 4; ++k)
        codes[k] = _mm256_min_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(s, _mm256_loadu_ps(x + 32 * g + 8 * k))), _mm256_set1_epi32(127));
      store_codes_32(codes, b.qs + 32 * g);
      for (int h = 0; h < 2; ++h) {  // two 16-value sums
        const __m256i sum = _mm256_add_epi32(codes[2 * h], codes[2 * h + 1]);
        __m128i t = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
        t = _mm_add_epi32(t, _mm_unpackhi_epi64(t, t));
        b.bsums[2 * g + h] = static_cast<int16_t>(_mm_cvtsi128_si32(_mm_add_epi32(t, _mm_shuffle_epi32(t, 1))));
      }
    }
    b.d = 1.0f / iscale;
  }
}

// fp32_to_bf16_rne on eight values: the same integer steps, with the zero/denormal and NaN
// cases selected by masks.
inline __m128i round_8_to_bf16(__m256 v) {
  const __m256i u = _mm256_castps_si256(v);
  const __m256i magnitude = _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF));
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  __m256i h = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF))), 16);
  const __m256i nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7F800000));
  h = _mm256_blendv_epi8(h, _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40)), nan);
  const __m256i tiny = _mm256_cmpeq_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7F800000)), _mm256_setzero_si256());
  h = _mm256_blendv_epi8(h, _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x8000)), tiny);
  // Eight 32-bit lanes holding 16-bit values: pack (no saturation reached: all below 0x10000).
  h = _mm256_and_si256(h, _mm256_set1_epi32(0xFFFF));
  return _mm_packus_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

void round_to_bf16_avx2(const float* x, uint16_t* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), round_8_to_bf16(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = fp32_to_bf16_rne(x[i]);
}

}  // namespace

void quantize_activation_row_avx2(GgmlType weight_type, const float* x, void* dst, int64_t n) {
  switch (activation_type_for(weight_type)) {
    case GgmlType::Q8_0: quantize_q8_0_avx2(x, static_cast<BlockQ8_0*>(dst), n / 32); break;
    case GgmlType::Q8_K: quantize_q8_k_avx2(x, static_cast<BlockQ8_K*>(dst), n / QK_K); break;
    case GgmlType::BF16: round_to_bf16_avx2(x, static_cast<uint16_t*>(dst), n); break;
    default: quantize_activation_row_ref(weight_type, x, dst, n);
  }
}

}  // namespace draftbench
