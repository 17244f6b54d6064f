#include "kernels/runtime/cpu_features.h"

namespace draftbench {

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    __builtin_cpu_init();
    CpuFeatures f;
    f.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    f.avx512f = __builtin_cpu_supports("avx512f");
    f.avx512bw = __builtin_cpu_supports("avx512bw");
    f.avx512vl = __builtin_cpu_supports("avx512vl");
    f.avx512vnni = __builtin_cpu_supports("avx512vnni");
    f.avx512bf16 = __builtin_cpu_supports("avx512bf16");
    f.amx_int8 = __builtin_cpu_supports("amx-int8");
    return f;
  }();
  return features;
}

std::string CpuFeatures::describe() const {
  std::string s;
  auto add = [&s](bool on, const char* name) {
    if (!on) return;
    if (!s.empty()) s += ' ';
    s += name;
  };
  add(avx2, "avx2");
  add(avx512f, "avx512f");
  add(avx512vnni, "avx512vnni");
  add(avx512bf16, "avx512bf16");
  add(amx_int8, "amx-int8");
  return s.empty() ? "baseline" : s;
}

}  // namespace draftbench
