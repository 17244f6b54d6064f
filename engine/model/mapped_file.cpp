#include "engine/model/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/sigbus_guard.h"

namespace draftbench {

// Every mapping is guarded (engine/common/sigbus_guard.h) from mmap to munmap, keyed by its
// address (a move hands the same mapping on): if the file shrinks while mapped, the read that
// fails ends the process with one line naming the file instead of a bare SIGBUS.
MappedFile::MappedFile(const std::string& path) : path_(path) {
  // Regular files only: a FIFO would block the open, a device cannot be mapped as a model.
  const int fd = open_regular_file(path, "model or weights file");
  struct stat st {};
  ::fstat(fd, &st);
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      throw InputError(path, "", std::string("mmap failed: ") + std::strerror(errno));
    }
    data_ = static_cast<const uint8_t*>(p);
    guard_mapping(data_, size_, path);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  unguard_mapping(data_);
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)), data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    unguard_mapping(data_);
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void release_mapped_pages(std::span<const uint8_t> bytes) {
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<uintptr_t>(bytes.data()) + page - 1) / page * page;
  const auto end = (reinterpret_cast<uintptr_t>(bytes.data()) + bytes.size()) / page * page;
  // Advice only: on failure the pages simply stay mapped.
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace draftbench
