// Calibration kernels: the roofline probes' inner loops as benchmarks, on one thread.
// scripts/bench_compare.py divides every kernel's time by the matching one of these
// (memory- or compute-bound, from the kernel's label) measured in the same run, so that
// a machine that is slower or busier across the board does not read as a regression.
#include "kernels/bench/bench_suite.h"
#include "kernels/runtime/huge_page_buffer.h"

namespace draftbench {

void register_calibration_benchmarks(const BenchSuite& s) {
  benchmark::RegisterBenchmark("calibration/memory_read", [s](benchmark::State& state) {
    constexpr int64_t kFloats = int64_t{32} << 20;  // 128 MiB: past the last-level cache
    HugePageBuffer buf(kFloats * 4);
    const auto* floats = reinterpret_cast<const float*>(buf.data());
    const LoopClock clock;
    for (auto _ : state) benchmark::DoNotOptimize(stream_read(floats, kFloats));
    report_work(state, clock, {kFloats * 4.0, static_cast<double>(kFloats), /*from_dram=*/true}, s.one_thread);
  })->Unit(benchmark::kMillisecond);

  benchmark::RegisterBenchmark("calibration/fma", [s](benchmark::State& state) {
    constexpr int64_t kRounds = int64_t{1} << 20;
    double flops = 0;
    const LoopClock clock;
    for (auto _ : state) {
      const FmaResult r = fma_chains(kRounds);
      benchmark::DoNotOptimize(r.sink);
      flops = r.flops;
    }
    report_work(state, clock, {0, flops}, s.one_thread);
  })->Unit(benchmark::kMicrosecond);
}

}  // namespace draftbench
