#include "kernels/runtime/thread_pool.h"

#include <immintrin.h>

#include <algorithm>

namespace draftbench {
namespace {
// Workers spin this many pause instructions before sleeping: a decode step issues a few
// hundred short parallel loops, and a futex wake-up per loop would cost more than the work.
constexpr int kSpinIterations = 200000;
constexpr int kSpinBeforeYield = 2000;
// Chunks per thread: enough that a descheduled thread holds up little of a loop, few
// enough that a chunk stays a long contiguous run of rows.
constexpr int64_t kChunksPerThread = 4;
constexpr uint64_t kFieldMask = 0xffff;  // chunk count and chunks claimed: 16 bits each

uint64_t claim_word(uint32_t generation, int64_t n_chunks, int64_t claimed) {
  return (static_cast<uint64_t>(generation) << 32) | (static_cast<uint64_t>(n_chunks) << 16) | static_cast<uint64_t>(claimed);
}

void pause_or_yield(int spin) {
  if (spin < kSpinBeforeYield) _mm_pause();
  else std::this_thread::yield();
}
}  // namespace

ThreadPool::ThreadPool(int n_threads) : n_threads_(std::max(1, n_threads)) {
  for (int i = 1; i < n_threads_; ++i) workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  generation_.fetch_add(1);
  generation_.notify_all();
  for (auto& t : workers_) t.join();
}

int ThreadPool::default_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

int64_t ThreadPool::chunk_count(int64_t n_grains, int n_threads) {
  return std::clamp<int64_t>(std::min(n_grains, kChunksPerThread * n_threads), 1, static_cast<int64_t>(kFieldMask));
}

void ThreadPool::run_chunks(uint32_t generation, int thread) {
  for (;;) {
    uint64_t word = claims_.load(std::memory_order_acquire);
    int64_t chunk = -1;
    while (static_cast<uint32_t>(word >> 32) == generation && (word & kFieldMask) < ((word >> 16) & kFieldMask)) {
      if (claims_.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel)) {
        chunk = static_cast<int64_t>(word & kFieldMask);
        break;
      }
    }
    if (chunk < 0) return;
    // Chunk c holds job_grains_per_chunk_ grains, one more for the first job_extra_grains_.
    const int64_t g0 = chunk * job_grains_per_chunk_ + std::min(chunk, job_extra_grains_);
    const int64_t g1 = g0 + job_grains_per_chunk_ + (chunk < job_extra_grains_ ? 1 : 0);
    const int64_t b = std::min(job_n_, g0 * job_grain_), e = std::min(job_n_, g1 * job_grain_);
    if (b < e) (*job_)(b, e, thread);
    chunks_done_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::worker(int index) {
  uint32_t seen = 0;
  for (;;) {
    uint32_t g = generation_.load(std::memory_order_acquire);
    for (int spin = 0; g == seen && spin < kSpinIterations; ++spin) {
      pause_or_yield(spin);
      g = generation_.load(std::memory_order_acquire);
    }
    if (g == seen) {
      // Announce the sleep before the final check (seq_cst on both sides): either the
      // publisher sees a sleeper and notifies, or we see its new generation.
      sleepers_.fetch_add(1);
      if (generation_.load() == seen) generation_.wait(seen);
      sleepers_.fetch_sub(1);
      continue;
    }
    seen = g;
    if (stop_.load()) return;
    run_chunks(g, index);
  }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain, const Task& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  if (n_threads_ == 1 || n <= grain) {
    fn(0, n, 0);
    return;
  }
  const int64_t n_grains = (n + grain - 1) / grain;
  const int64_t n_chunks = chunk_count(n_grains, n_threads_);
  job_ = &fn;
  job_n_ = n;
  job_grain_ = grain;
  job_grains_per_chunk_ = n_grains / n_chunks;
  job_extra_grains_ = n_grains % n_chunks;
  chunks_done_.store(0, std::memory_order_relaxed);
  const uint32_t generation = generation_.load(std::memory_order_relaxed) + 1;
  claims_.store(claim_word(generation, n_chunks, 0), std::memory_order_release);
  generation_.store(generation);
  // A notify costs a system call (hundreds of microseconds here): only when someone sleeps.
  if (sleepers_.load() > 0) generation_.notify_all();
  run_chunks(generation, 0);
  // Every chunk is claimed; wait for those other threads still run. Yield after a short
  // spin: on an oversubscribed machine the holder may not be running.
  for (int spin = 0; chunks_done_.load(std::memory_order_acquire) != n_chunks; ++spin) pause_or_yield(spin);
  job_ = nullptr;
}

}  // namespace draftbench
