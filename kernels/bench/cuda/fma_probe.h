// The device's compute probe: independent FP32 FMA chains in registers on every thread of
// a grid that fills each SM, so that FMA issue, not latency or memory, limits it. The
// calibration benchmark calibration/cuda_fma and the suite's roofline run it.
#pragma once

#include <cstdint>

namespace draftbench::cuda_bench {

struct FmaProbe {
  int blocks = 0, threads_per_block = 256, rounds = 8192;
  // Independent chains per thread: with 16 warps per scheduler, more than the FMA latency
  // (4 cycles) needs to keep one FMA issuing every cycle.
  static constexpr int kChains = 8;
  int64_t threads() const { return int64_t{blocks} * threads_per_block; }
  double flops() const { return 2.0 * kChains * rounds * static_cast<double>(threads()); }
};

// Eight blocks of 256 threads per SM of the current device (2048 threads, an SM's limit
// from Volta to Hopper). Returns a CUDA error code.
int fma_probe_for_device(FmaProbe& probe);

// One launch on the default stream; `sink` (device, probe.threads() floats) takes each
// thread's sum, so no chain can be elided. Returns the launch's CUDA error code.
int launch_fma_probe(const FmaProbe& probe, float* sink);

}  // namespace draftbench::cuda_bench
