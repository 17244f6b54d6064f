// Counter-based randomness: a uniform draw is a pure function of (seed, request, step,
// node), so a sequence's samples never depend on what else is in the batch or on the
// order in which draws are made. SplitMix64 finalisers chained over the key. Host-device:
// the CUDA acceptance walk (kernels/cuda/tree_acceptance_block.h) draws the same uniforms.
#pragma once

#include <cstdint>

#include "kernels/runtime/host_device.h"

namespace draftbench {

DB_HOST_DEVICE inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct RngKey {
  uint64_t seed = 0, request = 0, step = 0, node = 0;
};

// Uniform in [0, 1) with 53 random bits.
DB_HOST_DEVICE inline double uniform(const RngKey& k, uint64_t stream = 0) {
  uint64_t h = splitmix64(k.seed);
  h = splitmix64(h ^ k.request);
  h = splitmix64(h ^ k.step);
  h = splitmix64(h ^ k.node);
  h = splitmix64(h ^ stream);
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

}  // namespace draftbench
