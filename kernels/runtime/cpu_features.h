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
  bool amx_int8 = false;
  std::string describe() const;
};

const CpuFeatures& cpu_features();

}  // namespace draftbench
