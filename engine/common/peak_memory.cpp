#include "engine/common/peak_memory.h"

#include <sys/resource.h>

#include <charconv>
#include <fstream>
#include <string>

namespace draftbench {

namespace {

// "VmHWM:\t  123456 kB" -> 123456 * 1024; 0 when the line is missing or malformed.
uint64_t vm_hwm_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  constexpr std::string_view key = "VmHWM:";
  while (std::getline(status, line)) {
    if (!line.starts_with(key)) continue;
    size_t i = key.size();
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    uint64_t kib = 0;
    const auto [end, ec] = std::from_chars(line.data() + i, line.data() + line.size(), kib);
    if (ec != std::errc() || std::string_view(end, line.data() + line.size()) != " kB") return 0;
    return kib * 1024;
  }
  return 0;
}

}  // namespace

uint64_t peak_rss_bytes() {
  if (const uint64_t hwm = vm_hwm_bytes()) return hwm;
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

}  // namespace draftbench
