// The attention kernels' q.k: 16 lanes, then a fixed pairwise combine. Vectorisable, and
// the same order for every call, which the kernels' bit-identity rests on. `static`:
// translation units compiled for different instruction sets (tree_attention_tiled_avx2.cpp)
// each keep their own copy instead of the linker picking one for all. The CUDA tree
// attention (kernels/cuda/tree_attention_block.h) calls this same function on the device.
#pragma once

#include "kernels/runtime/host_device.h"

namespace draftbench {

DB_HOST_DEVICE static inline float dot16(const float* a, const float* b, int n) {
  float acc[16] = {};
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) acc[l] += a[i + l] * b[i + l];
  for (int l = 0; i < n; ++i, ++l) acc[l] += a[i] * b[i];
  for (int w = 8; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
  return acc[0];
}

}  // namespace draftbench
