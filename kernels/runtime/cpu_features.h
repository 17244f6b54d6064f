// What the CPU we run on supports, detected once (immutable afterwards).
#pragma once

#include <string>

namespace draftbench {

struct CpuFeatures {
  bool avx2 = false;  // with FMA and F16C
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512vnni = false;
  bool avx512bf16 = false;
  bool amx_int8 = false;  // and the OS lets this process use the tiles (not with DRAFTBENCH_NO_AMX=1)
  std::string describe() const;
};

const CpuFeatures& cpu_features();

// "AMD EPYC (family 25 model 17 stepping 1)": the model name alone does not tell CPUs apart
// on cloud machines ("AMD EPYC" covers Rome, Milan and Genoa, whose kernels run at different
// relative speeds), so the family, model and stepping numbers are part of it. Keys the
// kernel benchmarks' baselines and the cost model's cache.
std::string cpu_identity();

}  // namespace draftbench
