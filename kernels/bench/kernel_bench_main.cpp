// kernel_bench: every kernel at the default model's and Vicuna-7B's shapes, with the
// roofline measured in the same binary. Google Benchmark's flags all apply; ours:
//   --suite=ci    the short pass .ci/run compares against kernels/bench/baseline.json (default)
//   --suite=full  every shape, type, batch and tree size
// The JSON context carries cpu_signature (what bench_compare checks before gating), the
// dispatched product backend and both rooflines.
#include <fmt/format.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels/bench/bench_suite.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/cpu_features.h"

int main(int argc, char** argv) {
  using namespace draftbench;
  Suite suite = Suite::ci;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--suite=full") == 0) suite = Suite::full;
    else if (std::strcmp(argv[i], "--suite=ci") == 0) suite = Suite::ci;
    else if (std::strncmp(argv[i], "--suite", 7) == 0) {
      fmt::print(stderr, "kernel_bench: {}: expected --suite=ci or --suite=full\n", argv[i]);
      return 2;
    } else args.push_back(argv[i]);
  }
  int n_args = static_cast<int>(args.size());
  benchmark::Initialize(&n_args, args.data());
  if (benchmark::ReportUnrecognizedArguments(n_args, args.data())) return 2;

  ThreadPool pool(ThreadPool::default_threads());
  BenchSuite s{suite, measure_roofline(nullptr), measure_roofline(&pool), &pool};
  benchmark::AddCustomContext("suite", suite == Suite::full ? "full" : "ci");
  benchmark::AddCustomContext("cpu_signature", fmt::format("{} | {} | {} threads", cpu_identity(), dot_rows_backend(), pool.size()));
  benchmark::AddCustomContext("cpu_features", cpu_features().describe());
  benchmark::AddCustomContext("dot_rows_backend", dot_rows_backend());
  for (const Roofline* r : {&s.one_thread, &s.all_threads})
    benchmark::AddCustomContext(fmt::format("roofline_{}_thread{}", r->threads, r->threads == 1 ? "" : "s"),
                                fmt::format("{:.2f} GB/s read, {:.1f} GFLOP/s fp32 FMA", r->bytes_per_s / 1e9, r->flops_per_s / 1e9));

  register_calibration_benchmarks(s);
  register_quant_benchmarks(s);
  register_attention_benchmarks(s);
  register_ops_benchmarks(s);
  register_beam_packing_benchmarks(s);
  register_sampling_benchmarks(s);
  register_drafter_step_benchmarks(s);
  register_lm_head_benchmarks(s);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
