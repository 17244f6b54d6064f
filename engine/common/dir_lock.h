// One process per output directory: an advisory flock(2) on DIR/.draftbench.lock, held for
// the lock object's lifetime and released by the kernel when the process ends however it
// ends (so a killed run never leaves a stale lock). The file records the holder's pid for
// the message a second process gets.
#pragma once

#include <string>
#include <string_view>

namespace draftbench {

class DirectoryLock {
 public:
  // Throws InputError naming the directory and the holder's pid when another process holds
  // the lock ("...; expected <expected>"), or naming the lock file when it cannot be
  // created. `dir` must exist. `expected` says what the lock enforces and what to do.
  explicit DirectoryLock(const std::string& dir, std::string_view expected = kOneProcessPerOutput);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  static constexpr const char* kFileName = ".draftbench.lock";
  static constexpr std::string_view kOneProcessPerOutput = "one process per output directory: wait for it to finish, or use another --out";

 private:
  int fd_ = -1;
};

}  // namespace draftbench
