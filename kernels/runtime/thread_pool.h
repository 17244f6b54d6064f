// One pool of worker threads, created once and reused for every parallel loop.
//
// parallel_for splits [0, n) into contiguous chunks of whole grains; the chunk boundaries
// depend only on n, grain and the thread count. Threads (the caller included) claim chunks
// one at a time from a shared counter, so a thread the OS has not scheduled — another
// process sharing the cores — delays the loop by at most the chunk it holds, not by a
// fixed share of the work. Which thread runs a chunk therefore depends on timing: callers
// must make each output independent of it (write disjoint outputs, or merge per-thread
// partial results with a total order, as matmul_argmax does), and use `thread` only to
// index per-thread scratch. Every current caller does; the kernels' tests compare 1, 2 and
// more threads bit for bit.
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

  // fn(begin, end, thread) over disjoint ranges covering [0, n), possibly several per
  // thread; blocks until all are done. `thread` in [0, size()) is the thread running the
  // range: at most one range per `thread` value runs at a time.
  using Task = std::function<void(int64_t, int64_t, int)>;
  void parallel_for(int64_t n, int64_t grain, const Task& fn);

  static int default_threads();

  // Chunks a loop of `n_grains` grains is split into with `n_threads` threads.
  static int64_t chunk_count(int64_t n_grains, int n_threads);

 private:
  void worker(int index);
  // Claims and runs chunks of job `generation` until none is left.
  void run_chunks(uint32_t generation, int thread);

  int n_threads_;
  std::vector<std::thread> workers_;
  // The current job, written before its generation is published and unchanged until all
  // its chunks are done.
  const Task* job_ = nullptr;
  int64_t job_n_ = 0, job_grain_ = 1, job_grains_per_chunk_ = 1, job_extra_grains_ = 0;
  // Claim word: generation (high 32 bits) | chunk count (16) | chunks claimed (16). A claim
  // succeeds only while the word carries the claimer's generation and chunks remain, so a
  // late worker can never take a chunk of a job it did not see published.
  std::atomic<uint64_t> claims_{0};
  std::atomic<int64_t> chunks_done_{0};
  std::atomic<uint32_t> generation_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace draftbench
