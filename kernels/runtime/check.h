// Always-on check for programmer errors (never for bad user input): aborts with file:line.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace draftbench {

[[noreturn]] inline void check_failed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "draftbench internal error: check '%s' failed at %s:%d\n", expr, file, line);
  std::abort();
}

}  // namespace draftbench

#define DB_CHECK(cond)                                                  \
  do {                                                                  \
    if (!(cond)) ::draftbench::check_failed(#cond, __FILE__, __LINE__); \
  } while (0)
