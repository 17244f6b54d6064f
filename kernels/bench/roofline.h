// The machine's measured roofline: streaming-read bandwidth and peak FMA throughput,
// probed in the same binary, on the same threads, just before the kernels run. A kernel's
// "fraction of roofline" is then relative to what this machine does now, not to a spec
// sheet, and the same probes serve as the calibration kernels that bench_compare
// normalises by (a busier or slower machine slows them too).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/runtime/thread_pool.h"

namespace draftbench {

struct Roofline {
  double bytes_per_s = 0;  // streaming read from DRAM (working set far beyond the caches)
  double flops_per_s = 0;  // independent FMA chains in registers, widest vector unit present
  int threads = 1;
  // Lower bound on the time of work that moves `bytes` and does `flops`.
  double min_seconds(double bytes, double flops) const { return std::max(bytes / bytes_per_s, flops / flops_per_s); }
  bool memory_bound(double bytes, double flops) const { return bytes / bytes_per_s >= flops / flops_per_s; }
};

// Sums n floats (returned so the read cannot be elided); the bandwidth probe's inner loop.
float stream_read(const float* data, int64_t n);
// Runs `rounds` rounds of independent FMA chains; returns the FLOPs done and a value that
// depends on all of them (so nothing is elided).
struct FmaResult {
  double flops;
  float sink;
};
FmaResult fma_chains(int64_t rounds);

// Best of a few passes on each of the pool's threads (or on one when pool == nullptr).
Roofline measure_roofline(ThreadPool* pool);

}  // namespace draftbench
