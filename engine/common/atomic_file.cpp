#include "engine/common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/common/error.h"

namespace draftbench {

bool write_all_and_sync(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return ::fsync(fd) == 0;
}

namespace {

// Makes a rename inside `dir` durable. Filesystems that cannot sync a directory say EINVAL;
// there the rename is as durable as that filesystem makes it.
void sync_directory(const std::filesystem::path& dir, const std::string& path) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the file is written and renamed; only its directory entry's durability is unknown
  const bool synced = ::fsync(fd) == 0 || errno == EINVAL;
  const int saved = errno;
  ::close(fd);
  if (!synced) throw InputError(path, "", std::string("written, but its directory could not be synced: ") + std::strerror(saved));
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view text) {
  // A name of this process's own: two writers of one file never share a temporary.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(tmp, "", std::string("cannot write: ") + std::strerror(errno));
  bool ok = write_all_and_sync(fd, text);
  int error = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  std::error_code ec;
  if (!ok) {
    std::filesystem::remove(tmp, ec);
    throw InputError(tmp, "", std::string("cannot write: ") + std::strerror(error));
  }
  // The data is on the disk before the new name points at it, so a crash leaves the old
  // file or the new one, never an empty one.
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw InputError(path, "", "cannot write: " + ec.message());
  }
  sync_directory(std::filesystem::path(path).parent_path(), path);
}

}  // namespace draftbench
