#include "kernels/bench/roofline.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "kernels/runtime/cpu_features.h"
#include "kernels/runtime/huge_page_buffer.h"

namespace draftbench {
namespace {

// Four accumulators hide the add latency; loads are the bottleneck, which is the point.
__attribute__((target("avx2"))) float stream_read_avx2(const float* p, int64_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  const int64_t body = n / 32 * 32;
  for (const float* q = p; q < p + body; q += 32) {
    a0 = _mm256_add_ps(a0, _mm256_load_ps(q));
    a1 = _mm256_add_ps(a1, _mm256_load_ps(q + 8));
    a2 = _mm256_add_ps(a2, _mm256_load_ps(q + 16));
    a3 = _mm256_add_ps(a3, _mm256_load_ps(q + 24));
  }
  float lanes[8];
  _mm256_storeu_ps(lanes, _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  float s = 0;
  for (float l : lanes) s += l;
  for (const float* q = p + body; q < p + n; ++q) s += *q;
  return s;
}

float stream_read_scalar(const float* p, int64_t n) {
  float s[4] = {};
  const int64_t body = n / 4 * 4;
  for (const float* q = p; q < p + body; q += 4)
    for (int l = 0; l < 4; ++l) s[l] += q[l];
  for (const float* q = p + body; q < p + n; ++q) s[0] += *q;
  return s[0] + s[1] + s[2] + s[3];
}

// Twelve chains: enough to cover FMA latency (4-5 cycles) times two FMA ports.
constexpr int kChains = 12;

__attribute__((target("avx512f"))) FmaResult fma_avx512(int64_t rounds) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(1.0f + 0.001f * c);
  const __m512 m = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t r = 0; r < rounds; ++r)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], m, b);
  __m512 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm512_add_ps(s, acc[c]);
  float lanes[16];
  _mm512_storeu_ps(lanes, s);
  return {2.0 * 16 * kChains * static_cast<double>(rounds), lanes[0] + lanes[15]};
}

__attribute__((target("avx2,fma"))) FmaResult fma_avx2(int64_t rounds) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(1.0f + 0.001f * c);
  const __m256 m = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t r = 0; r < rounds; ++r)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], m, b);
  __m256 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm256_add_ps(s, acc[c]);
  float lanes[8];
  _mm256_storeu_ps(lanes, s);
  return {2.0 * 8 * kChains * static_cast<double>(rounds), lanes[0] + lanes[7]};
}

FmaResult fma_scalar(int64_t rounds) {
  float acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = 1.0f + 0.001f * c;
  for (int64_t r = 0; r < rounds; ++r)
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * 0.999999f + 1e-7f;
  return {2.0 * kChains * static_cast<double>(rounds), acc[0] + acc[kChains - 1]};
}

double seconds_since(std::chrono::steady_clock::time_point t0) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

// Runs fn(thread) on every thread of the pool at once (or once inline) and returns the
// wall time of the slowest.
template <class Fn>
double timed_on_all_threads(ThreadPool* pool, Fn fn) {
  const auto t0 = std::chrono::steady_clock::now();
  if (pool == nullptr) fn(0);
  else pool->parallel_for(pool->size(), 1, [&](int64_t, int64_t, int thread) { fn(thread); });
  return seconds_since(t0);
}

}  // namespace

float stream_read(const float* data, int64_t n) { return cpu_features().avx2 ? stream_read_avx2(data, n) : stream_read_scalar(data, n); }

FmaResult fma_chains(int64_t rounds) {
  if (cpu_features().avx512f) return fma_avx512(rounds);
  if (cpu_features().avx2) return fma_avx2(rounds);
  return fma_scalar(rounds);
}

Roofline measure_roofline(ThreadPool* pool) {
  const int threads = pool == nullptr ? 1 : pool->size();
  // 256 MiB per thread is far beyond any last-level cache we will meet; each thread reads
  // its own buffer so the probe sees the DRAM bandwidth the threads share.
  constexpr int64_t kFloatsPerThread = int64_t{64} << 20;
  std::vector<HugePageBuffer> buffers;
  for (int t = 0; t < threads; ++t) buffers.emplace_back(kFloatsPerThread * sizeof(float));
  std::vector<float> sinks(static_cast<size_t>(threads));
  double best_read = 1e30, best_fma = 1e30;
  constexpr int64_t kRounds = 2'000'000;
  const double flops_per_thread = fma_chains(kRounds).flops;  // also warms the vector units up
  for (int pass = 0; pass < 4; ++pass) {
    best_read = std::min(
        best_read, timed_on_all_threads(pool, [&](int t) { sinks[t] += stream_read(reinterpret_cast<const float*>(buffers[t].data()), kFloatsPerThread); }));
    best_fma = std::min(best_fma, timed_on_all_threads(pool, [&](int t) { sinks[t] += fma_chains(kRounds).sink; }));
  }
  volatile float keep = sinks[0];
  (void)keep;
  Roofline r;
  r.threads = threads;
  r.bytes_per_s = static_cast<double>(threads) * kFloatsPerThread * sizeof(float) / best_read;
  r.flops_per_s = threads * flops_per_thread / best_fma;
  return r;
}

}  // namespace draftbench
