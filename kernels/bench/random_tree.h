// The draft trees the attention benchmarks (CPU and CUDA) verify: random, parents first,
// depth at most 4 below the root (beam length 5), as beam search's drafts are.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/attention/token_tree.h"

namespace draftbench {

inline TokenTree random_tree(int32_t n, std::mt19937& rng) {
  std::vector<int32_t> parent(static_cast<size_t>(n), -1), depth(static_cast<size_t>(n), 0);
  for (int32_t i = 1; i < n; ++i) {
    do parent[i] = std::uniform_int_distribution<int32_t>(0, i - 1)(rng);
    while (depth[parent[i]] >= 4);
    depth[i] = depth[parent[i]] + 1;
  }
  return TokenTree::from_parents(parent);
}

}  // namespace draftbench
