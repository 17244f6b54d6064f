// The CUDA suite's calibration kernels, which are also its roofline probes:
//   calibration/cuda_memory_copy   a device-to-device copy of 256 MiB, five times the L2 of
//                                  an H100 (bytes: read + written)
//   calibration/cuda_fma           FP32 FMA chains on every SM (fma_probe.h)
// scripts/bench_compare.py divides each CUDA kernel's time by the one its label names, as
// it does with the CPU suite's calibration/memory_read and calibration/fma. A copy, not a
// read-only kernel: what the CUDA runtime does at full bandwidth without a kernel of ours
// whose own efficiency would move the yardstick; a mat-vec, which only reads, can then
// reach a roofline_fraction and read_roofline a little above 1.
#include "kernels/bench/cuda/calibration_cuda_bench.h"

#include <algorithm>

#include "kernels/bench/cuda/cuda_bench_suite.h"
#include "kernels/bench/cuda/fma_probe.h"

namespace draftbench::cuda_bench {
namespace {

constexpr size_t kCopyBytes = size_t{256} << 20;

// The probes' buffers and launches; the constructor throws CudaFailure.
struct CopyProbe {
  DeviceMemory from{kCopyBytes}, to{kCopyBytes};
  int launch() const { return static_cast<int>(cudaMemcpyAsync(to.as<void>(), from.as<const void>(), kCopyBytes, cudaMemcpyDeviceToDevice, 0)); }
  static Work work() { return {2.0 * kCopyBytes, 0, /*from_dram=*/true}; }
};

struct FmaProbeRun {
  FmaProbe probe = make_probe();
  DeviceMemory sink{static_cast<size_t>(probe.threads()) * sizeof(float)};
  int launch() const { return launch_fma_probe(probe, sink.as<float>()); }
  Work work() const { return {0, probe.flops()}; }

  static FmaProbe make_probe() {
    FmaProbe p;
    check_cuda(fma_probe_for_device(p), "the device's SM count");
    return p;
  }
};

// Best of a few iterations: the probe's rate of work per device second.
template <class Probe>
double best_rate(const Probe& probe, double work_per_launch) {
  const EventPair events;
  double best = 0;
  for (int i = 0; i < 3; ++i) best = std::max(best, work_per_launch / launch_timing(events, [&] { return probe.launch(); }));
  return best;
}

}  // namespace

Roofline measure_device_roofline() {
  Roofline r;
  r.bytes_per_s = best_rate(CopyProbe{}, CopyProbe::work().bytes);
  const FmaProbeRun fma;
  r.flops_per_s = best_rate(fma, fma.work().flops);
  return r;
}

void register_cuda_calibration_benchmarks(const CudaBenchSuite& s) {
  register_cuda_benchmark("calibration/cuda_memory_copy", [s](benchmark::State& state) {
    const CopyProbe probe;
    report_device_work(state, run_timed_loop(state, [&] { return probe.launch(); }), CopyProbe::work(), s.device);
  });
  register_cuda_benchmark("calibration/cuda_fma", [s](benchmark::State& state) {
    const FmaProbeRun probe;
    report_device_work(state, run_timed_loop(state, [&] { return probe.launch(); }), probe.work(), s.device);
  });
}

}  // namespace draftbench::cuda_bench
