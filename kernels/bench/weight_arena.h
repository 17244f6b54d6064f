// Random, valid quantised weights for the product benchmarks, one arena per weight type,
// made on first use and shared by every benchmark of that type. Rows are runs of whole
// blocks, so any window of an arena is a valid matrix of any shape: successive iterations
// take successive windows, and the weights come from DRAM as a large model's do.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "kernels/fixtures/random_blocks.h"
#include "kernels/quant/ggml_type.h"
#include "kernels/runtime/huge_page_buffer.h"

namespace draftbench {

class WeightArena {
 public:
  explicit WeightArena(size_t bytes_per_type) : bytes_per_type_(bytes_per_type) {}

  // Cycles through windows of `matrix_bytes` (aligned to whole blocks of `type`).
  class Cursor {
   public:
    Cursor(const HugePageBuffer& arena, size_t matrix_bytes)
        : arena_(&arena), matrix_bytes_(matrix_bytes), windows_(std::max<size_t>(1, arena.size() / matrix_bytes)) {}
    const uint8_t* next() { return arena_->data() + (i_++ % windows_) * matrix_bytes_; }

   private:
    const HugePageBuffer* arena_;
    size_t matrix_bytes_, windows_, i_ = 0;
  };

  Cursor cursor(GgmlType type, size_t matrix_bytes) {
    auto& arena = arenas_[type];
    const size_t block = static_cast<size_t>(ggml_type_info(type).block_bytes);
    const size_t want = std::max(bytes_per_type_, matrix_bytes);
    if (arena.size() < want) {
      // Generate one 4 MiB pattern and tile it: random generation of hundreds of MiB byte by
      // byte would dominate start-up, and repeats 4 MiB apart are invisible to the caches.
      std::mt19937 rng(static_cast<uint32_t>(type) + 1);
      const int64_t pattern_blocks = (int64_t{4} << 20) / static_cast<int64_t>(block);
      const int64_t per_block = ggml_type_info(type).block_size;
      const std::vector<uint8_t> pattern = random_rows(type, pattern_blocks * per_block, 1, rng);
      arena = HugePageBuffer((want + block - 1) / block * block);
      for (size_t off = 0; off < arena.size(); off += pattern.size())
        std::memcpy(arena.data() + off, pattern.data(), std::min(pattern.size(), arena.size() - off));
    }
    return Cursor(arena, matrix_bytes);
  }

 private:
  size_t bytes_per_type_;
  std::map<GgmlType, HugePageBuffer> arenas_;
};

}  // namespace draftbench
