// Software prefetch of a weight row's stream for the AVX2 product kernels (a no-op in the
// AVX-512 build: not measured there, and its kernels were within 0.7-0.8 of the bandwidth
// for every type but Q5_0 and Q4_K without it). On Zen 3 the hardware prefetcher alone left
// the one-thread mat-vec at 0.40-0.66 of the read bandwidth, and taking work out of the
// kernel moved it little; asking for the line kPrefetchDistance bytes ahead of each block
// took Q8_0 1.3-1.4x faster (0.87-0.92 of the bandwidth), Q4_K and Q6_K 1.25-1.35x (0.75,
// 0.86) and Q5_0 1.05-1.15x (compute-bound there). 1024 and 2048 bytes did alike, 512 no
// better than none (kernel_bench --suite=full, Gemma 3 270M's shapes, interleaved runs);
// for the faster Q5_0x4 kernel 1024 was slower and 4096 within the noise of 2048. BF16
// rows (the mat-vec 1.15-1.2x, three alternating rounds) take it too; F32/F16 rows, tried,
// did not gain.
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
