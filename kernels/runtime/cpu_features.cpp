#include "kernels/runtime/cpu_features.h"

#include <cstdlib>
#include <cstring>
#include <fstream>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace draftbench {
namespace {

// Linux gives a process the AMX tile state only when it asks (arch_prctl
// ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA, once, for all its threads); without that the
// first tile instruction faults. DRAFTBENCH_NO_AMX=1 turns the AMX kernels off, to compare
// them with the AVX-512 ones side by side.
bool amx_permitted() {
  if (const char* off = std::getenv("DRAFTBENCH_NO_AMX"); off && *off && std::strcmp(off, "0") != 0) return false;
#if defined(__linux__) && defined(SYS_arch_prctl)
  constexpr long kReqXcompPerm = 0x1023, kXtileData = 18;
  return syscall(SYS_arch_prctl, kReqXcompPerm, kXtileData) == 0;
#else
  return false;
#endif
}

}  // namespace

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
#if defined(__clang__) && __clang_major__ < 16
    f.amx_int8 = false;  // clang before 16 has no "amx-int8" for the builtin (the fuzz preset's clang-14)
#else
    f.amx_int8 = __builtin_cpu_supports("amx-int8") && __builtin_cpu_supports("amx-tile") && amx_permitted();
#endif
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
  return name + " (family " + family + " model " + model + " stepping " + stepping + ")";
}

}  // namespace draftbench
