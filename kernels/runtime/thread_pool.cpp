#include "kernels/runtime/thread_pool.h"

#include <immintrin.h>

#include <algorithm>

namespace draftbench {
namespace {
// Workers spin this many pause instructions before sleeping: a decode step issues a few
// hundred short parallel loops, and a futex wake-up per loop would cost more than the work.
constexpr int kSpinIterations = 200000;
constexpr int kSpinBeforeYield = 2000;
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

void ThreadPool::run_chunk(int index) {
  const int64_t n_grains = (job_n_ + job_grain_ - 1) / job_grain_;
  const int64_t per = n_grains / n_threads_, extra = n_grains % n_threads_;
  const int64_t g0 = index * per + std::min<int64_t>(index, extra);
  const int64_t g1 = g0 + per + (index < extra ? 1 : 0);
  const int64_t b = std::min(job_n_, g0 * job_grain_), e = std::min(job_n_, g1 * job_grain_);
  if (b < e) (*job_)(b, e, index);
}

void ThreadPool::worker(int index) {
  uint64_t seen = 0;
  for (;;) {
    uint64_t g = generation_.load(std::memory_order_acquire);
    for (int spin = 0; g == seen && spin < kSpinIterations; ++spin) {
      if (spin < kSpinBeforeYield) _mm_pause();
      else std::this_thread::yield();
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
    run_chunk(index);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain, const Task& fn) {
  if (n <= 0) return;
  if (n_threads_ == 1 || n <= grain) {
    fn(0, n, 0);
    return;
  }
  job_ = &fn;
  job_n_ = n;
  job_grain_ = std::max<int64_t>(1, grain);
  pending_.store(n_threads_ - 1, std::memory_order_release);
  generation_.fetch_add(1);
  // A notify costs a system call (hundreds of microseconds here): only when someone sleeps.
  if (sleepers_.load() > 0) generation_.notify_all();
  run_chunk(0);
  // Yield after a short spin: when the machine is oversubscribed the worker may not be
  // running, and spinning would only delay it.
  for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
    if (spin < kSpinBeforeYield) _mm_pause();
    else std::this_thread::yield();
  }
  job_ = nullptr;
}

}  // namespace draftbench
