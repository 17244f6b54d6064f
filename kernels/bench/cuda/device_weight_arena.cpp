#include "kernels/bench/cuda/device_weight_arena.h"

#include <algorithm>
#include <random>
#include <vector>

#include "kernels/fixtures/random_blocks.h"

namespace draftbench::cuda_bench {

DeviceWeightArena::Cursor DeviceWeightArena::cursor(GgmlType type, size_t matrix_bytes) {
  DeviceMemory& arena = arenas_[type];
  const size_t want = std::max(bytes_per_type_, matrix_bytes);
  if (arena.size() < want) {
    // One 4 MiB pattern of whole blocks, tiled: generating hundreds of MiB at random on the
    // host would dominate start-up, and repeats 4 MiB apart are invisible to the L2.
    std::mt19937 rng(static_cast<uint32_t>(type) + 1);
    const int64_t pattern_blocks = (int64_t{4} << 20) / ggml_type_info(type).block_bytes;
    const std::vector<uint8_t> pattern = random_rows(type, pattern_blocks * ggml_type_info(type).block_size, 1, rng);
    arena = DeviceMemory();  // free the old arena before the new one is allocated
    arena = DeviceMemory((want + pattern.size() - 1) / pattern.size() * pattern.size());
    for (size_t offset = 0; offset < arena.size(); offset += pattern.size()) arena.upload(pattern.data(), pattern.size(), offset);
  }
  return Cursor(arena, matrix_bytes);
}

}  // namespace draftbench::cuda_bench
