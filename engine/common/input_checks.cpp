#include "engine/common/input_checks.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <thread>

#include "engine/common/error.h"

namespace draftbench {

double finite_in_range(double v, double lo, double hi, std::string_view where, std::string_view what) {
  if (!std::isfinite(v) || v < lo || v > hi) throw InputError(where, what, fmt::format("expected a finite number in [{}, {}], got {}", lo, hi, v));
  return v;
}

int64_t integer_in_range(std::string_view text, int64_t lo, int64_t hi, std::string_view where, std::string_view what) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end || v < lo || v > hi)
    throw InputError(where, what, fmt::format("expected an integer in [{}, {}], got '{}'", lo, hi, printable(text, 40)));
  return v;
}

int max_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return kThreadsPerCore * static_cast<int>(cores == 0 ? 1 : cores);
}

int checked_thread_count(int64_t n, std::string_view where, std::string_view what) {
  const int max = max_threads();
  if (n < 0 || n > max)
    throw InputError(where, what, fmt::format("expected 0 (all cores) to {} threads ({} per core on this machine), got {}", max, kThreadsPerCore, n));
  return static_cast<int>(n);
}

size_t first_invalid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = valid_utf8_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

}  // namespace draftbench
