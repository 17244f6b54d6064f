// A read-only memory mapping of a whole file. Weights stay in the page cache and are
// shared between processes; nothing is copied at load time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace draftbench {

class MappedFile {
 public:
  explicit MappedFile(const std::string& path);  // throws InputError naming the path
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Drops this process's mapping of the whole pages inside `bytes`, part of a MappedFile: their
// memory stops counting as ours, and a later read maps them again from the page cache. For
// weights a forward pass has copied into another layout and will not read again.
void release_mapped_pages(std::span<const uint8_t> bytes);

}  // namespace draftbench
