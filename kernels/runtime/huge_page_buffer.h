// A zero-filled byte buffer on 2 MiB boundaries, with transparent huge pages requested
// (madvise, which the kernel honours in THP's "madvise" and "always" modes). Streaming
// hundreds of MiB through 4 KiB pages costs a TLB miss every 4 KiB, and how many of those
// the page walker hides depends on where the kernel happened to place the pages, so
// timings would vary from one process to the next. With 2 MiB pages they do not.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace draftbench {

class HugePageBuffer {
 public:
  static constexpr size_t kAlign = size_t{2} << 20;

  HugePageBuffer() = default;
  explicit HugePageBuffer(size_t bytes) : size_(bytes) {
    const size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
    data_ = static_cast<uint8_t*>(std::aligned_alloc(kAlign, rounded == 0 ? kAlign : rounded));
    if (data_ == nullptr) throw std::bad_alloc();
    madvise(data_, rounded, MADV_HUGEPAGE);  // a hint: without THP we still have the memory
    std::memset(data_, 0, rounded);          // fault every page in now, not in a timed loop
  }
  ~HugePageBuffer() { std::free(data_); }
  HugePageBuffer(HugePageBuffer&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr, o.size_ = 0; }
  HugePageBuffer& operator=(HugePageBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  HugePageBuffer(const HugePageBuffer&) = delete;
  HugePageBuffer& operator=(const HugePageBuffer&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace draftbench
