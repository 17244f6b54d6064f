// One process per output directory: an advisory flock(2) on DIR/.draftbench.lock, held for
// the lock object's lifetime and released by the kernel when the process ends however it
// ends (so a killed run never leaves a stale lock). The file records the holder's pid for
// the message a second process gets.
#pragma once

#include <string>

namespace draftbench {

class DirectoryLock {
 public:
  // Throws InputError naming the directory and the holder's pid when another process holds
  // the lock, or naming the lock file when it cannot be created. `dir` must exist.
  explicit DirectoryLock(const std::string& dir);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  static constexpr const char* kFileName = ".draftbench.lock";

 private:
  int fd_ = -1;
};

}  // namespace draftbench
