#include "engine/common/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/common/error.h"
#include "engine/common/input_checks.h"

namespace draftbench {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / 1048576.0); }

}  // namespace

int open_regular_file(const std::string& path, std::string_view what) {
  // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer. It changes nothing
  // for a regular file, and the descriptor is switched back to blocking below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(printable(path), "", fmt::format("cannot open the {}: {}", what, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const mode_t mode = st.st_mode;
    ::close(fd);
    throw InputError(printable(path), "", fmt::format("is {} (expected a regular file: the {})", kind_of(mode), what));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

std::string read_regular_file(const std::string& path, std::string_view what, uint64_t max_bytes) {
  const int fd = open_regular_file(path, what);
  struct stat st {};
  ::fstat(fd, &st);
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    ::close(fd);
    throw InputError(printable(path), "", fmt::format("is {} (expected at most {} for the {})", mib(size), mib(max_bytes), what));
  }
  std::string text;
  text.reserve(size);
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw InputError(printable(path), "", fmt::format("cannot read the {}: {}", what, std::strerror(err)));
    }
    if (n == 0) break;
    // The file may grow while it is read: the cap holds for what is read, not just the size seen.
    if (text.size() + static_cast<size_t>(n) > max_bytes) {
      ::close(fd);
      throw InputError(printable(path), "", fmt::format("grew past {} while being read (expected at most that for the {})", mib(max_bytes), what));
    }
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace draftbench
