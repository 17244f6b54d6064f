#include "engine/common/dir_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/common/error.h"

namespace draftbench {

DirectoryLock::DirectoryLock(const std::string& dir, std::string_view expected) {
  const std::string path = (std::filesystem::path(dir) / kFileName).string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) throw InputError(path, "", fmt::format("cannot create the output directory's lock file: {}", std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char pid[32] = {};
    const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
    ::close(fd_);
    if (err != EWOULDBLOCK) throw InputError(path, "", fmt::format("cannot lock the output directory: {}", std::strerror(err)));
    std::string holder;
    for (ssize_t i = 0; i < n && pid[i] >= '0' && pid[i] <= '9'; ++i) holder += pid[i];
    throw InputError(
        dir, "",
        fmt::format("is in use by another draftbench process (pid {}; lock file {}); expected {}", holder.empty() ? "unknown" : holder, path, expected));
  }
  const std::string me = std::to_string(::getpid());
  // The pid is only for the message above: a failure to record it changes nothing else.
  if (::ftruncate(fd_, 0) == 0) {
    const ssize_t written = ::pwrite(fd_, me.data(), me.size(), 0);
    (void)written;
  }
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace draftbench
