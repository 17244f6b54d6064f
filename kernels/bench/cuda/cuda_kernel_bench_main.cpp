// cuda_kernel_bench: the CUDA kernels at the models' shapes (kernels/bench/README.md), timed
// by CUDA events, with the device's roofline measured by the same process first. Google
// Benchmark's flags all apply; ours, as kernel_bench's:
//   --suite=ci    a few shapes, seconds (default; what scripts/gpu_check.sh runs)
//   --suite=full  every shape, type, batch and tree size
// Without a CUDA device it prints "skipped: no CUDA device" and exits 77 (ctest's
// SKIP_RETURN_CODE, as the GPU tests do) before registering anything. Unless
// --benchmark_min_time is given, each benchmark runs for 0.02 s (ci) or 0.1 s (full) of
// device time, which with the untimed lead launches and waits is about ten times that in
// wall time: the default goes in as that flag, ahead of the user's, because a per-benchmark
// MinTime() would add "/min_time:..." to every name. The JSON context carries
// probe_set=cuda (which calibration kernels scripts/bench_compare.py normalises by),
// gpu_signature (what it checks before gating) and the roofline.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/bench/cuda/calibration_cuda_bench.h"
#include "kernels/bench/cuda/cuda_bench_suite.h"
#include "kernels/bench/cuda/device_weight_arena.h"
#include "kernels/cuda/device_query.h"

namespace {

constexpr int kSkipped = 77;
// Five times an H100's 50 MB L2, per weight type: at most the four types' 1 GiB together.
constexpr size_t kWeightArenaBytes = size_t{256} << 20;

// Device name, compute capability, SMs, memory and L2, the CUDA versions of driver and
// runtime: the machine as far as the kernels' speed goes.
std::string gpu_signature(const cudaDeviceProp& p) {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  const auto version = [](int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); };
  return fmt::format("{} (sm_{}{}, {} SMs, {} MiB, L2 {} KiB) | CUDA driver {} | runtime {}", p.name, p.major, p.minor, p.multiProcessorCount,
                     p.totalGlobalMem >> 20, p.l2CacheSize >> 10, version(driver), version(runtime));
}

// The memory bandwidth on the spec sheet: memory clock (kHz, double data rate) x bus width.
double peak_memory_bytes_per_s(int device) {
  int clock_khz = 0, bus_bits = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
  return 2.0 * clock_khz * 1e3 * bus_bits / 8.0;
}

void add_device_context(const draftbench::Roofline& roofline) {
  benchmark::AddCustomContext("probe_set", "cuda");
  int device = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&p, device) != cudaSuccess) return;
  benchmark::AddCustomContext("gpu_signature", gpu_signature(p));
  benchmark::AddCustomContext(
      "gpu_roofline", fmt::format("{:.1f} GB/s device-to-device copy, {:.1f} GFLOP/s fp32 FMA", roofline.bytes_per_s / 1e9, roofline.flops_per_s / 1e9));
  benchmark::AddCustomContext("gpu_peak_memory_bandwidth", fmt::format("{:.1f} GB/s", peak_memory_bytes_per_s(device) / 1e9));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace draftbench;
  using namespace draftbench::cuda_bench;
  Suite suite = Suite::ci;
  bool min_time_given = false;
  std::vector<char*> args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--suite=full") == 0) suite = Suite::full;
    else if (std::strcmp(argv[i], "--suite=ci") == 0) suite = Suite::ci;
    else if (std::strncmp(argv[i], "--suite", 7) == 0) {
      fmt::print(stderr, "cuda_kernel_bench: {}: expected --suite=ci or --suite=full\n", argv[i]);
      return 2;
    } else {
      min_time_given = min_time_given || std::strncmp(argv[i], "--benchmark_min_time", 20) == 0;
      args.push_back(argv[i]);
    }
  }
  if (!cuda::device_available()) {
    std::puts("skipped: no CUDA device");
    return kSkipped;
  }
  // Seconds without a suffix: what Google Benchmark 1.7 parses (1.8 and later accept it too).
  std::string default_min_time = suite == Suite::full ? "--benchmark_min_time=0.1" : "--benchmark_min_time=0.02";
  if (!min_time_given) args.insert(args.begin() + 1, default_min_time.data());
  int n_args = static_cast<int>(args.size());
  benchmark::Initialize(&n_args, args.data());
  if (benchmark::ReportUnrecognizedArguments(n_args, args.data())) return 2;

  DeviceWeightArena weights(kWeightArenaBytes);
  CudaBenchSuite s{suite, {}, &weights};
  try {
    s.device = measure_device_roofline();
  } catch (const CudaFailure& e) {
    fmt::print(stderr, "cuda_kernel_bench: the roofline probes failed: {}\n", e.what());
    return 1;
  }
  benchmark::AddCustomContext("suite", s.full() ? "full" : "ci");
  add_device_context(s.device);

  register_cuda_calibration_benchmarks(s);
  register_cuda_quant_matvec_benchmarks(s);
  register_cuda_tree_attention_benchmarks(s);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
