// Software prefetch of a weight row's stream for the product kernels: each block asks for
// the line kPrefetchDistance bytes ahead, because the hardware prefetcher alone leaves a
// one-thread mat-vec well short of the read bandwidth. Used for the quantised and BF16
// rows; F32/F16 rows gain nothing from it. Both x86 builds prefetch: on Zen 3 (AVX2) it made
// the mat-vec 1.25-1.4x faster, on an AVX-512 Xeon 1.26-1.33x (Q4_K, one thread) and
// Qwen2.5-Coder-1.5B's decode 1.44x; the AVX-512 build on Zen 4 has not been measured with
// it. The figures behind the distance and the choice of types: kernels/bench/README.md,
// "Why the kernels look as they do".
#pragma once

#include <immintrin.h>

#include <cstddef>

namespace draftbench {
namespace {

inline constexpr size_t kPrefetchDistance = 2048;

// The lines kPrefetchDistance bytes past [p, p + bytes), one per 64 bytes: a block of up
// to 64 bytes asks for one line, and consecutive blocks cover every line of the stream.
inline void prefetch_weights(const void* p, size_t bytes) {
  const char* ahead = static_cast<const char*>(p) + kPrefetchDistance;
  for (size_t off = 0; off < bytes; off += 64) _mm_prefetch(ahead + off, _MM_HINT_T0);
}

}  // namespace
}  // namespace draftbench
