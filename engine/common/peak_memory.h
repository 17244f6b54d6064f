// The process's peak resident memory, as benchmarks and reports record it.
//
// getrusage's ru_maxrss is not this: Linux carries a process's high-water mark across fork
// and exec, so a draftbench started by a large parent (a Python harness holding llama.cpp's
// model, say) reports at least the parent's resident size at the fork. The kernel's VmHWM
// (/proc/self/status) belongs to the current address space, which exec replaces, so it is
// read first; ru_maxrss is the fallback where /proc is not mounted.
#pragma once

#include <cstdint>

namespace draftbench {

// Peak resident set size of this process in bytes (0 when neither source is readable).
uint64_t peak_rss_bytes();

}  // namespace draftbench
