// What every kernel benchmark gets: which suite is being registered (the short CI pass or
// the full one), the measured rooflines, and the thread pool; and how a benchmark reports
// the work it did, so that every one of them carries the same counters:
//   bytes_per_second, flops_per_second   achieved rates
//   roofline_fraction                    roofline time of the work / measured time
// and a label "bound=memory" or "bound=compute" (which side of the ridge the work sits on,
// which is also which calibration kernel scripts/bench_compare.py normalises it by).
#pragma once

#include <benchmark/benchmark.h>

#include <string>

#include "kernels/bench/roofline.h"
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

// Work done per benchmark iteration.
struct Work {
  double bytes = 0, flops = 0;
};

inline void report_work(benchmark::State& state, Work per_iteration, const Roofline& roofline, std::string extra_label = {}) {
  const double n = static_cast<double>(state.iterations());
  using C = benchmark::Counter;
  state.counters["bytes_per_second"] = C(per_iteration.bytes * n, C::kIsRate);
  state.counters["flops_per_second"] = C(per_iteration.flops * n, C::kIsRate);
  state.counters["roofline_fraction"] = C(roofline.min_seconds(per_iteration.bytes, per_iteration.flops) * n, C::kIsRate);
  std::string label = roofline.memory_bound(per_iteration.bytes, per_iteration.flops) ? "bound=memory" : "bound=compute";
  if (!extra_label.empty()) label += "," + extra_label;
  state.SetLabel(label);
}

// Registration, one function per kernel family (each in its own *_bench.cpp).
void register_calibration_benchmarks(const BenchSuite& s);
void register_quant_benchmarks(const BenchSuite& s);
void register_attention_benchmarks(const BenchSuite& s);
void register_ops_benchmarks(const BenchSuite& s);
void register_beam_packing_benchmarks(const BenchSuite& s);

}  // namespace draftbench
