// dedup_prefix and pack_beams (kernels/beam/beam_packing.h, engine/DESIGN.md §3) for a batch of
// beam sets, one block per sequence: the block program shared by the CUDA kernel and the
// CPU emulation. It is the paper's tensor algorithm: the common-prefix length of every
// pair of beams, then each position's owner (the first beam whose common prefix with it
// passes that position), then the kept positions (owner == own beam) numbered beam-major by
// a block-wide scan. The results are the CPU functions' exactly: prefix_tree, and the
// packed tokens, parents and unpacker, nodes in the same order.
#pragma once

#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace draftbench::cuda {

inline constexpr unsigned kBeamThreads = 256;
inline constexpr int kBeamMaxWidth = 64;   // the pairwise common prefixes live in shared memory
inline constexpr int kBeamMaxLength = 64;  // a common prefix length fits a byte

struct BeamPackingArgs {
  const int32_t* beams;  // [n_seqs][beam_width][beam_length]; beams[s][i][0] is beam i's root
  int beam_width, beam_length;
  int32_t* prefix_tree;  // [n_seqs][beam_width][beam_length]
  int32_t* tokens;       // [n_seqs][beam_width * beam_length]: the first n_nodes[s] are the packed nodes
  int32_t* parents;      // [n_seqs][beam_width * beam_length]
  int32_t* unpacker;     // [n_seqs][beam_width][beam_length]
  int32_t* n_nodes;      // [n_seqs]
};

struct BeamPackingShared {
  uint8_t common[kBeamMaxWidth][kBeamMaxWidth];  // [i][k], k < i: beams i and k agree on positions 0..common-1
  int32_t chunk_start[kBeamThreads];             // the first node index of each thread's chunk of positions
};

inline bool beam_packing_supports(int beam_width, int beam_length) {
  return beam_width >= 1 && beam_width <= kBeamMaxWidth && beam_length >= 1 && beam_length <= kBeamMaxLength;
}

inline Launch beam_packing_launch(int64_t n_seqs) { return {n_seqs, 1, Dim3{kBeamThreads}}; }

template <class Block>
DB_HOST_DEVICE void beam_packing_block(const Block& block, const BeamPackingArgs& a, BeamPackingShared& sh) {
  const int64_t s = block.index().x;
  const int W = a.beam_width, L = a.beam_length, n = W * L;
  const int32_t* beams = a.beams + s * n;
  int32_t* owner = a.prefix_tree + s * n;
  int32_t* tokens = a.tokens + s * n;
  int32_t* parents = a.parents + s * n;
  int32_t* unpacker = a.unpacker + s * n;
  // A contiguous chunk of positions per thread, so that numbering them in order within the
  // chunk after a scan over chunks is numbering them beam-major.
  const int chunk = (n + static_cast<int>(kBeamThreads) - 1) / static_cast<int>(kBeamThreads);

  block.each_thread([&](Dim3 t) {
    for (int p = static_cast<int>(t.x); p < W * W; p += kBeamThreads) {
      const int i = p / W, k = p % W;
      if (k >= i) continue;
      int c = 0;
      while (c < L && beams[k * L + c] == beams[i * L + c]) ++c;
      sh.common[i][k] = static_cast<uint8_t>(c);
    }
  });
  block.sync();
  block.each_thread([&](Dim3 t) {
    for (int p = static_cast<int>(t.x); p < n; p += kBeamThreads) {
      const int i = p / L, j = p % L;
      int k = 0;
      while (k < i && sh.common[i][k] <= j) ++k;
      owner[p] = k;
    }
  });
  block.sync();
  block.each_thread([&](Dim3 t) {
    int kept = 0;
    for (int p = static_cast<int>(t.x) * chunk; p < n && p < (static_cast<int>(t.x) + 1) * chunk; ++p) kept += owner[p] == p / L;
    sh.chunk_start[t.x] = kept;
  });
  block.sync();
  block.each_thread([&](Dim3 t) {
    if (t.x != 0) return;
    int32_t total = 0;
    for (unsigned c = 0; c < kBeamThreads; ++c) {
      const int32_t kept = sh.chunk_start[c];
      sh.chunk_start[c] = total;
      total += kept;
    }
    a.n_nodes[s] = total;
  });
  block.sync();
  block.each_thread([&](Dim3 t) {  // the kept positions: new nodes
    int32_t node = sh.chunk_start[t.x];
    for (int p = static_cast<int>(t.x) * chunk; p < n && p < (static_cast<int>(t.x) + 1) * chunk; ++p)
      if (owner[p] == p / L) {
        unpacker[p] = node;
        tokens[node++] = beams[p];
      }
  });
  block.sync();
  block.each_thread([&](Dim3 t) {  // the others: their owner's node at the same position
    for (int p = static_cast<int>(t.x); p < n; p += kBeamThreads)
      if (owner[p] != p / L) unpacker[p] = unpacker[owner[p] * L + p % L];
  });
  block.sync();
  block.each_thread([&](Dim3 t) {  // a new node hangs under the node of its beam's previous position
    for (int p = static_cast<int>(t.x); p < n; p += kBeamThreads)
      if (owner[p] == p / L) parents[unpacker[p]] = p % L == 0 ? -1 : unpacker[p - 1];
  });
}

}  // namespace draftbench::cuda
