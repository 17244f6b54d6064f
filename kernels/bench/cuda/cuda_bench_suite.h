// What every CUDA kernel benchmark shares: the suite being registered and the device's
// measured roofline; CUDA failures as exceptions that become the benchmark's error;
// device memory freed on scope exit; and the timing, by CUDA events:
//
// One benchmark iteration is one untimed lead launch, then kLaunchesPerIteration launches
// back to back between two events on the default stream, then a wait for the second
// event; the iteration's time (UseManualTime) is the events' interval divided by
// kLaunchesPerIteration, the device time of one launch. The lead launch keeps the device
// busy while the timed ones are queued, so the interval holds the launches' run times and
// the gaps between them (where a kernel runs shorter than the host takes to launch one,
// a few microseconds, that is the launch rate), not the time the host takes to issue the
// first one.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/bench/bench_suite.h"

namespace draftbench::cuda_bench {

inline constexpr int kLaunchesPerIteration = 10;

class DeviceWeightArena;

struct CudaBenchSuite {
  Suite suite = Suite::ci;
  // bytes_per_s: device-to-device copy (bytes read + written); flops_per_s: FP32 FMA chains
  // (calibration_cuda_bench.cpp), both measured by this process before the kernels run.
  Roofline device;
  DeviceWeightArena* weights = nullptr;
  bool full() const { return suite == Suite::full; }
};

// A failed CUDA call; what() names the step and the error.
class CudaFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws CudaFailure unless `err` (a cudaError_t, as the kernels' entry points return it) is 0.
void check_cuda(int err, const char* what);

// Device memory, freed on scope exit; throws CudaFailure when it cannot be allocated.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(size_t bytes);
  template <class T>
  explicit DeviceMemory(const std::vector<T>& host) : DeviceMemory(host.size() * sizeof(T)) {
    upload(host.data(), host.size() * sizeof(T));
  }
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  size_t size() const { return bytes_; }
  // Copies `bytes` host bytes to the device at byte `offset` (synchronous).
  void upload(const void* host, size_t bytes, size_t offset = 0);

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

// The two events of launch_timing; throws CudaFailure when they cannot be created.
class EventPair {
 public:
  EventPair();
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start() const { return start_; }
  cudaEvent_t stop() const { return stop_; }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// One iteration as the header describes; `launch()` enqueues one launch on the default
// stream and returns its CUDA error code. Returns the device seconds of one launch; throws
// CudaFailure on a launch's error or a fault the launches raised while they ran.
template <class Launch>
double launch_timing(const EventPair& events, Launch&& launch) {
  check_cuda(launch(), "lead launch");
  check_cuda(cudaEventRecord(events.start(), 0), "cudaEventRecord");
  for (int i = 0; i < kLaunchesPerIteration; ++i) check_cuda(launch(), "launch");
  check_cuda(cudaEventRecord(events.stop(), 0), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(events.stop()), "kernel execution");
  check_cuda(cudaGetLastError(), "kernel execution");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, events.start(), events.stop()), "cudaEventElapsedTime");
  return 1e-3 * ms / kLaunchesPerIteration;
}

// The timed loop: every iteration one launch_timing, reported as the iteration's time.
// Returns the loop's total device seconds (report_work's `seconds`).
template <class Launch>
double run_timed_loop(benchmark::State& state, Launch&& launch) {
  const EventPair events;
  double seconds = 0;
  for (auto _ : state) {
    const double t = launch_timing(events, launch);
    state.SetIterationTime(t);
    seconds += t;
  }
  return seconds;
}

// report_work's counters and label (bench_suite.h) against the device's roofline, and two
// more: `bytes`, what one launch reads and writes, and `read_roofline`, bytes_per_second
// over the copy bandwidth: the share of the memory roofline whatever the FLOPs (where
// roofline_fraction takes the larger of the two bounds).
inline void report_device_work(benchmark::State& state, double seconds, Work per_launch, const Roofline& device) {
  report_work(state, seconds, per_launch, device);
  using C = benchmark::Counter;
  state.counters["bytes"] = per_launch.bytes;
  state.counters["read_roofline"] = C(per_launch.bytes / device.bytes_per_s * static_cast<double>(state.iterations()), C::kIsRate);
}

// Registers `body(state)` as a device-timed benchmark (UseManualTime, microseconds); a
// CudaFailure it throws, in its set-up or its timed loop, ends the benchmark as an error
// (error_occurred in the JSON), and the suite goes on.
template <class Body>
benchmark::internal::Benchmark* register_cuda_benchmark(const std::string& name, Body body) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [body](benchmark::State& state) {
    try {
      body(state);
    } catch (const CudaFailure& e) {
      state.SkipWithError(e.what());
    }
  });
  return b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

// Registration, one function per kernel family (each in its own *_cuda_bench.cpp).
void register_cuda_calibration_benchmarks(const CudaBenchSuite& s);
void register_cuda_quant_matvec_benchmarks(const CudaBenchSuite& s);
void register_cuda_tree_attention_benchmarks(const CudaBenchSuite& s);

}  // namespace draftbench::cuda_bench
