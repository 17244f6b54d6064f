// The worker pool (kernels/runtime/thread_pool.h): every index of a loop runs exactly once,
// in ranges of whole grains, with a thread index in range and never two ranges of one thread
// index at a time; loops run back to back reuse the pool; and a thread that is held up does
// not hold up the loop: the others take its remaining chunks.
#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "kernels/runtime/thread_pool.h"

using namespace draftbench;

TEST_CASE("thread pool: every index once, whole grains, thread indices in range", "[thread_pool]") {
  for (const int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    for (const int64_t grain : {int64_t{1}, int64_t{3}, int64_t{64}}) {
      for (const int64_t n : {int64_t{1}, grain - 1, grain, grain + 1, int64_t{17}, int64_t{1000}, int64_t{100003}}) {
        if (n <= 0) continue;
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        std::vector<std::atomic<int>> running(static_cast<size_t>(threads));
        std::atomic<bool> bad_range{false}, bad_thread{false}, overlap{false};
        for (int repeat = 0; repeat < 20; ++repeat) {
          pool.parallel_for(n, grain, [&](int64_t b, int64_t e, int thread) {
            if (thread < 0 || thread >= threads) {
              bad_thread = true;
              return;
            }
            if (running[static_cast<size_t>(thread)].fetch_add(1) != 0) overlap = true;
            if (b >= e || b % grain != 0 || (e % grain != 0 && e != n)) bad_range = true;
            for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
            running[static_cast<size_t>(thread)].fetch_sub(1);
          });
        }
        INFO("threads " << threads << ", n " << n << ", grain " << grain);
        CHECK_FALSE(bad_thread);
        CHECK_FALSE(bad_range);
        CHECK_FALSE(overlap);
        int64_t wrong = 0;
        for (const auto& h : hits) wrong += h.load() != 20;
        CHECK(wrong == 0);
      }
    }
  }
}

TEST_CASE("thread pool: a held-up thread's share is taken by the others", "[thread_pool]") {
  // The first chunk a worker takes waits (up to 20 s) until the caller has run every other
  // chunk. With a fixed share per thread that never happens and the wait runs out.
  ThreadPool pool(2);
  const int64_t n = 1 << 12, grain = 16;
  const int64_t n_chunks = ThreadPool::chunk_count(n / grain, 2);
  REQUIRE(n_chunks >= 4);
  std::atomic<int64_t> caller_chunks{0};
  std::atomic<bool> worker_waited{false};
  pool.parallel_for(n, grain, [&](int64_t, int64_t, int thread) {
    if (thread == 0) {
      caller_chunks.fetch_add(1);
      return;
    }
    if (worker_waited.exchange(true)) return;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (caller_chunks.load() < n_chunks - 1 && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  CHECK(caller_chunks.load() >= n_chunks - 1);
}
