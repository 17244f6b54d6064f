// Beam sets for the CUDA beam-packing tests (emulated and on a GPU): beams that copy a
// random prefix of an earlier beam and continue from a small alphabet, so prefixes are
// shared at every depth, roots sometimes differ, and whole beams sometimes repeat.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "kernels/beam/beam_packing.h"

namespace draftbench::test {

inline std::vector<int32_t> shared_prefix_beams(int64_t n_seqs, int beam_width, int beam_length, std::mt19937& rng) {
  std::vector<int32_t> beams(static_cast<size_t>(n_seqs * beam_width * beam_length));
  std::uniform_int_distribution<int32_t> token(0, 3);
  for (int64_t s = 0; s < n_seqs; ++s) {
    int32_t* set = beams.data() + s * beam_width * beam_length;
    for (int i = 0; i < beam_width; ++i) {
      const int from = i > 0 ? std::uniform_int_distribution<int>(0, i - 1)(rng) : 0;
      const int copied = i > 0 ? std::uniform_int_distribution<int>(0, beam_length)(rng) : 0;
      for (int j = 0; j < beam_length; ++j) set[i * beam_length + j] = j < copied ? set[from * beam_length + j] : (j == 0 && token(rng) != 0 ? 7 : token(rng));
    }
  }
  return beams;
}

// What the CPU functions make of sequence s's beam set: the reference prefix tree and the packing.
struct ExpectedPacking {
  std::vector<int32_t> prefix_tree;
  PackedBeams packed;
};
inline ExpectedPacking expected_packing(const std::vector<int32_t>& beams, int64_t s, int beam_width, int beam_length) {
  const int64_t n = beam_width * beam_length;
  const std::span<const int32_t> set(beams.data() + s * n, static_cast<size_t>(n));
  ExpectedPacking out;
  out.prefix_tree = dedup_prefix_reference(set, BeamShape{beam_width, beam_length});
  pack_beams(set, BeamShape{beam_width, beam_length}, out.prefix_tree, out.packed);
  return out;
}

}  // namespace draftbench::test
