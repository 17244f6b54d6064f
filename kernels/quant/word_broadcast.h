// Broadcasts of 16-bit words within 256-bit registers, for the x86 K-quant kernels' scales
// (include only from files built with AVX2).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace draftbench {
namespace {

// Shuffle masks: row j (0..7) selects 16-bit word j into all eight words of a 128-bit half.
// Rows j and j + 1 read as one 256-bit mask put word j in the low half and word j + 1 in the
// high half; read from memory, so the loop does not rebuild them in registers.
struct WordMasks {
  alignas(32) uint8_t m[9][16];
};
constexpr WordMasks make_word_masks() {
  WordMasks t{};
  for (int j = 0; j < 9; ++j)
    for (int b = 0; b < 16; ++b) t.m[j][b] = static_cast<uint8_t>(2 * (j % 8) + b % 2);
  return t;
}
inline constexpr WordMasks kWordMasks = make_word_masks();

// `words`: eight 16-bit words repeated in both halves. Word j in all sixteen words.
inline __m256i broadcast_word(__m256i words, int j) {
  return _mm256_shuffle_epi8(words, _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(kWordMasks.m[j]))));
}
// Word j in the low half, word j + 1 in the high half.
inline __m256i broadcast_word_pair(__m256i words, int j) {
  return _mm256_shuffle_epi8(words, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kWordMasks.m[j])));
}

}  // namespace
}  // namespace draftbench
