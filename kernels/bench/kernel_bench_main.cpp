// kernel_bench: every kernel at the default model's and Vicuna-7B's shapes, with the
// roofline measured in the same binary. Google Benchmark's flags all apply; ours:
//   --suite=ci    the short pass .ci/run compares against kernels/bench/baseline.json (default)
//   --suite=full  every shape, type, batch and tree size
// The JSON context carries cpu_signature (what bench_compare checks before gating), the
// dispatched product backend and both rooflines.
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "kernels/bench/bench_suite.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/cpu_features.h"

namespace {

// The model name alone does not tell CPUs apart on cloud machines ("AMD EPYC" covers Rome,
// Milan and Genoa, whose kernels run at different relative speeds), so the family, model and
// stepping numbers go into the signature too.
std::string cpu_identity() {
  std::ifstream in("/proc/cpuinfo");
  std::string name = "unknown CPU", family = "?", model = "?", stepping = "?";
  for (std::string line; std::getline(in, line) && !line.empty();) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(' ', colon + 1);
    const std::string value = start == std::string::npos ? "" : line.substr(start);
    if (line.rfind("model name", 0) == 0) name = value;
    else if (line.rfind("cpu family", 0) == 0) family = value;
    else if (line.rfind("model\t", 0) == 0 || line.rfind("model ", 0) == 0) model = value;
    else if (line.rfind("stepping", 0) == 0) stepping = value;
  }
  return fmt::format("{} (family {} model {} stepping {})", name, family, model, stepping);
}

}  // namespace

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
  benchmark::AddCustomContext("cpu_signature",
                              fmt::format("{} | {} | {} threads", cpu_identity(), dot_rows_backend(), pool.size()));
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
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
