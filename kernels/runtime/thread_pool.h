// One pool of worker threads, created once and reused for every parallel loop.
// parallel_for splits [0, n) into contiguous chunks of `grain`-multiples, one per thread:
// the split depends only on n, grain and the thread count, never on timing, so the work
// each thread does (and any order inside it) is reproducible.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace draftbench {

class ThreadPool {
 public:
  explicit ThreadPool(int n_threads);  // n_threads >= 1; the caller is thread 0
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return n_threads_; }

  // fn(begin, end, thread) over disjoint ranges covering [0, n); blocks until all are
  // done. `thread` in [0, size()) lets callers index per-thread scratch.
  using Task = std::function<void(int64_t, int64_t, int)>;
  void parallel_for(int64_t n, int64_t grain, const Task& fn);

  static int default_threads();

 private:
  void worker(int index);
  void run_chunk(int index);

  int n_threads_;
  std::vector<std::thread> workers_;
  // The current job: published by bumping generation_.
  const Task* job_ = nullptr;
  int64_t job_n_ = 0, job_grain_ = 1;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace draftbench
