// A tree of tokens to run through the model in one forward pass: parent index per node
// (-1 for the root), stored parents-first. A prompt or a single decoding step is a chain.
// DFS entry/exit times give the O(N) ancestor test used by attention (engine/DESIGN.md §4).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/attention/tree_attention.h"

namespace draftbench {

struct TokenTree {
  std::vector<int32_t> parent;     // [n]; parent[i] < i, or -1 for a root
  std::vector<int32_t> depth;      // [n]; root depth 0
  std::vector<int32_t> dfs_start;  // [n]; entry time
  std::vector<int32_t> dfs_end;    // [n]; largest entry time in the subtree
  std::vector<int32_t> cursor;     // [n + 1]; scratch of assign(): each node's next child's entry time

  static TokenTree chain(int32_t n);
  // In place, reusing this tree's storage (no allocation once it has held as many nodes):
  // what the decoding loop calls every step.
  void assign_chain(int32_t n);
  void assign(std::span<const int32_t> parents);
  // Throws std::invalid_argument unless every parent precedes its child.
  static TokenTree from_parents(std::span<const int32_t> parents);

  int32_t size() const { return static_cast<int32_t>(parent.size()); }
  bool is_ancestor_or_self(int32_t a, int32_t b) const { return dfs_start[a] <= dfs_start[b] && dfs_end[b] <= dfs_end[a]; }
  // What the attention kernels read (valid while this tree is unchanged).
  TreeView view() const { return {size(), dfs_start.data(), dfs_end.data(), depth.data()}; }
  // Node indices from the root to `node`, inclusive.
  std::vector<int32_t> path_to(int32_t node) const;
};

}  // namespace draftbench
