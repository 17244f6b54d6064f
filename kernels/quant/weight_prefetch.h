// Software prefetch of a weight row's stream for the AVX2 product kernels: each block asks
// for the line kPrefetchDistance bytes ahead, because the hardware prefetcher alone leaves
// a one-thread mat-vec well short of the read bandwidth. Used for the quantised and BF16
// rows; F32/F16 rows gain nothing from it. A no-op in the AVX-512 build, whose kernels
// stream close to the bandwidth without it. The figures behind the distance and the
// choice of types: kernels/bench/README.md, "Why the kernels look as they do".
#pragma once

#include <immintrin.h>

#include <cstddef>

namespace draftbench {
namespace {

inline constexpr size_t kPrefetchDistance = 2048;

// The lines kPrefetchDistance bytes past [p, p + bytes), one per 64 bytes: a block of up
// to 64 bytes asks for one line, and consecutive blocks cover every line of the stream.
inline void prefetch_weights(const void* p, size_t bytes) {
#if !defined(__AVX512F__)
  const char* ahead = static_cast<const char*>(p) + kPrefetchDistance;
  for (size_t off = 0; off < bytes; off += 64) _mm_prefetch(ahead + off, _MM_HINT_T0);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace
}  // namespace draftbench
