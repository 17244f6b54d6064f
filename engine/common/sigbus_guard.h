// A memory-mapped file that shrinks while it is mapped (truncated, or rewritten in place by
// another process) turns the next read of a page past its new end into SIGBUS, which would
// kill the process with no word of which file. guard_mapping() registers a mapping
// (MappedFile guards each of its own): a SIGBUS whose faulting address lies inside a
// registered mapping writes one line naming the file to stderr and ends the process with
// exit status 1 (there is no way back into the C++ code that made the read). A SIGBUS
// anywhere else goes to the handler that was installed before (by default: killed by the
// signal, as without the guard).
//
// The registry the handler reads is process-wide state: a signal handler can reach nothing
// else. It is a fixed array of lock-free slots (kSigbusGuardSlots); when all are taken, a
// further mapping is simply not guarded.
#pragma once

#include <cstddef>
#include <string_view>

namespace draftbench {

inline constexpr int kSigbusGuardSlots = 256;

// Guards [begin, begin + size), a mapping of `path`; installs the handler on first use.
void guard_mapping(const void* begin, size_t size, std::string_view path);
// Stops guarding the mapping that starts at `begin`. Call it before the range is unmapped,
// so that no later mapping at the same addresses is blamed on this file.
void unguard_mapping(const void* begin);

}  // namespace draftbench
