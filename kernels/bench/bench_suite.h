// What every kernel benchmark gets: which suite is being registered (the short CI pass or
// the full one), the measured rooflines, and the thread pool; and how a benchmark reports
// the work it did, so that every one of them carries the same counters:
//   bytes_per_second, flops_per_second   achieved rates
//   roofline_fraction                    roofline time of the work / measured time
// and a label "bound=memory" or "bound=compute": memory when the kernel reads its inputs
// from DRAM (cycled through an arena larger than the caches), the work sits left of the
// ridge AND the kernel actually streams at half the measured bandwidth or more; otherwise
// its speed follows the core, not DRAM. The label picks the calibration kernel that
// scripts/bench_compare.py normalises it by, so it must name what really limits it: a
// kernel whose few KiB stay in L1 can outrun half the DRAM bandwidth, yet normalising it by
// the memory probe would make a faster DRAM look like a slower kernel.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kernels/bench/roofline.h"
#include "kernels/runtime/huge_page_buffer.h"
#include "kernels/runtime/thread_pool.h"

namespace draftbench {

enum class Suite { ci, full };

struct BenchSuite {
  Suite suite = Suite::ci;
  Roofline one_thread, all_threads;
  ThreadPool* pool = nullptr;
  bool full() const { return suite == Suite::full; }
  // The bytes of weights cycled through so that products read them from DRAM, as a model
  // too large for the caches does every token.
  size_t cold_bytes() const { return full() ? size_t{512} << 20 : size_t{96} << 20; }
};

// Floats in huge pages, zero or copied from `values`: benchmark inputs of more than a few
// hundred KiB live here, so that their speed does not depend on where one process's 4 KiB
// pages happened to land (huge_page_buffer.h).
class HugeFloats {
 public:
  explicit HugeFloats(size_t n) : buf_(n * sizeof(float)), n_(n) {}
  explicit HugeFloats(const std::vector<float>& values) : HugeFloats(values.size()) { std::memcpy(buf_.data(), values.data(), values.size() * sizeof(float)); }
  float* data() { return reinterpret_cast<float*>(buf_.data()); }
  const float* data() const { return reinterpret_cast<const float*>(buf_.data()); }
  size_t size() const { return n_; }
  std::span<float> span() { return {data(), n_}; }

 private:
  HugePageBuffer buf_;
  size_t n_;
};

// Work done per benchmark iteration.
struct Work {
  double bytes = 0, flops = 0;
  bool from_dram = false;  // inputs cycled through an arena larger than the caches
};

// Started right before a benchmark's timed loop: report_work needs the loop's time for
// the label, which Google Benchmark does not hand to the benchmark.
class LoopClock {
 public:
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// `seconds`: how long the timed loop took, for the label's streaming test: by the wall
// clock, or under UseManualTime the sum of the iteration times the benchmark reported (the
// CUDA suite's event timings, which Google Benchmark then divides the rates by too).
inline void report_work(benchmark::State& state, double seconds, Work per_iteration, const Roofline& roofline, std::string extra_label = {}) {
  const double n = static_cast<double>(state.iterations());
  using C = benchmark::Counter;
  state.counters["bytes_per_second"] = C(per_iteration.bytes * n, C::kIsRate);
  state.counters["flops_per_second"] = C(per_iteration.flops * n, C::kIsRate);
  state.counters["roofline_fraction"] = C(roofline.min_seconds(per_iteration.bytes, per_iteration.flops) * n, C::kIsRate);
  const bool streams = seconds > 0 && per_iteration.bytes * n / seconds >= 0.5 * roofline.bytes_per_s;
  const bool memory = per_iteration.from_dram && roofline.memory_bound(per_iteration.bytes, per_iteration.flops) && streams;
  std::string label = memory ? "bound=memory" : "bound=compute";
  if (!extra_label.empty()) label += "," + extra_label;
  state.SetLabel(label);
}

inline void report_work(benchmark::State& state, const LoopClock& clock, Work per_iteration, const Roofline& roofline, std::string extra_label = {}) {
  report_work(state, clock.seconds(), per_iteration, roofline, std::move(extra_label));
}

// Registration, one function per kernel family (each in its own *_bench.cpp).
void register_calibration_benchmarks(const BenchSuite& s);
void register_quant_benchmarks(const BenchSuite& s);
void register_attention_benchmarks(const BenchSuite& s);
void register_ops_benchmarks(const BenchSuite& s);
void register_beam_packing_benchmarks(const BenchSuite& s);
void register_sampling_benchmarks(const BenchSuite& s);
void register_drafter_step_benchmarks(const BenchSuite& s);
void register_lm_head_benchmarks(const BenchSuite& s);

}  // namespace draftbench
