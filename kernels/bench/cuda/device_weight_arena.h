// Random, valid quantised weights in device memory for the product benchmarks, one arena
// per weight type, made on first use and shared by every benchmark of that type: what
// WeightArena (kernels/bench/weight_arena.h) is to the CPU suite. An arena is several
// times the device's L2 (50 MB on an H100), and successive launches take successive
// windows of it, so the weights come from device memory, as a model's do every token.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include "kernels/bench/cuda/cuda_bench_suite.h"
#include "kernels/quant/ggml_type.h"

namespace draftbench::cuda_bench {

class DeviceWeightArena {
 public:
  explicit DeviceWeightArena(size_t bytes_per_type) : bytes_per_type_(bytes_per_type) {}

  // Cycles through the arena's windows of `matrix_bytes` (a whole number of blocks).
  class Cursor {
   public:
    Cursor(const DeviceMemory& arena, size_t matrix_bytes)
        : base_(arena.as<const uint8_t>()), matrix_bytes_(matrix_bytes), windows_(arena.size() / matrix_bytes) {}
    const uint8_t* next() { return base_ + (i_++ % windows_) * matrix_bytes_; }

   private:
    const uint8_t* base_;
    size_t matrix_bytes_, windows_, i_ = 0;
  };

  // The arena of `type`, made (or remade larger) to hold at least one matrix; a remade
  // arena invalidates earlier cursors of that type. Throws CudaFailure.
  Cursor cursor(GgmlType type, size_t matrix_bytes);

 private:
  size_t bytes_per_type_;
  std::map<GgmlType, DeviceMemory> arenas_;
};

}  // namespace draftbench::cuda_bench
