// The one boundary where untrusted input is checked before the engine sees it: numbers
// (finite, in range, whole where whole is expected), thread counts, and file text shown in
// error lines. Every failure is an InputError naming where the value came from.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/common/printable.h"

namespace draftbench {

// `v` if it is finite and in [lo, hi]; else InputError(where, what, "expected a finite number in
// [lo, hi], got v"). NaN and infinities fail whatever the bounds.
double finite_in_range(double v, double lo, double hi, std::string_view where, std::string_view what);

// A decimal integer in [lo, hi] with nothing around it: "-1" for a seed, "3.5", "1e3" or
// "12abc" fail. For text whose parse into an unsigned type would wrap silently.
int64_t integer_in_range(std::string_view text, int64_t lo, int64_t hi, std::string_view where, std::string_view what);

// Worker threads: 0 (all cores) up to kThreadsPerCore times the machine's cores. More
// threads than that only contend (and 10^5 of them exhaust the process), so more is an error.
inline constexpr int kThreadsPerCore = 8;
int max_threads();
int checked_thread_count(int64_t n, std::string_view where, std::string_view what);

// printable(text, max_bytes) lives in printable.h (error.h needs it).

// The offset of the first byte of `text` that is not valid UTF-8, or npos when all is.
size_t first_invalid_utf8(std::string_view text);

}  // namespace draftbench
