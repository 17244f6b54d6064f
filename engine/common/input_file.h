// Opening input files safely: only regular files are read. A FIFO would block open() until
// a writer appears, /dev/zero never ends and a directory reads as garbage or nothing, so each
// of those is a one-line InputError instead. Every reader of untrusted files goes through here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace draftbench {

// Documented caps on the text files read whole (experiments/README.md, "Input limits").
inline constexpr uint64_t kMaxSpecBytes = uint64_t{16} << 20;       // experiment specs: 16 MiB
inline constexpr uint64_t kMaxPromptBytes = uint64_t{1} << 30;      // prompt sets / datasets: 1 GiB
inline constexpr uint64_t kMaxSmallJsonBytes = uint64_t{64} << 20;  // drafter.json, trees, run.json: 64 MiB

// An open file descriptor (O_RDONLY | O_CLOEXEC) of the regular file `path`, opened without
// blocking on a FIFO; throws InputError(path, "", "is a FIFO (expected a regular <what>)") and
// the like for anything else, or the open error. The caller closes it.
int open_regular_file(const std::string& path, std::string_view what);

// The whole regular file `path`; InputError when it is not one, cannot be read, or holds
// more than `max_bytes` ("... is 20 MiB (expected at most 16 MiB for a <what>)").
std::string read_regular_file(const std::string& path, std::string_view what, uint64_t max_bytes);

}  // namespace draftbench
