// Random drafted trees, CSR-packed as the acceptance walks take them, with each tree's
// TokenTree for the host's rules: what the acceptance walks' emulation tests share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "engine/decoding/sampling.h"
#include "kernels/attention/token_tree.h"
#include "kernels/cuda/grid_emulator.h"
#include "kernels/cuda/tree_acceptance_block.h"
#include "kernels/fixtures/random_blocks.h"

namespace draftbench::acceptance_case {

enum class TreeShape { chain, wide, random, root_copies };

// random: random_activations (some maxima tied far apart); levels: four values a whole
// number of T = 1 units apart, so weights tie in large groups; flat: all equal.
enum class LogitRows { random, levels, flat };

// Trees CSR-packed as the kernels take them, with each tree's TokenTree for the reference.
struct PackedTrees {
  int64_t n_vocab = 0;
  LogitRows rows = LogitRows::random;
  std::vector<int32_t> parents, tokens, offsets{0};
  std::vector<float> logits;
  std::vector<TokenTree> trees;

  int64_t size() const { return static_cast<int64_t>(trees.size()); }
  std::span<const int32_t> tokens_of(int64_t b) const {
    return std::span<const int32_t>(tokens).subspan(static_cast<size_t>(offsets[b]), static_cast<size_t>(offsets[b + 1] - offsets[b]));
  }
  const float* logits_of(int64_t b) const { return logits.data() + offsets[b] * n_vocab; }
  cuda::TreeBatch view() const { return {logits.data(), parents.data(), tokens.data(), offsets.data(), n_vocab}; }
};

// A row of logits; tiny vocabularies take few levels, so maxima often tie, and larger ones
// sometimes tie their maximum far apart.
inline void append_logits(PackedTrees& batch, std::mt19937& rng) {
  const int64_t n = batch.n_vocab;
  std::vector<float> row;
  if (batch.rows != LogitRows::random) {
    std::uniform_int_distribution<int> level(0, batch.rows == LogitRows::levels ? 3 : 0);
    for (int64_t i = 0; i < n; ++i) row.push_back(-static_cast<float>(level(rng)));
  } else if (n <= 8) {
    std::uniform_int_distribution<int> level(0, 2);
    for (int64_t i = 0; i < n; ++i) row.push_back(2.0f * static_cast<float>(level(rng)));
  } else {
    row = random_activations(n, rng, 3.0f);
    if (rng() % 4 == 0) row[static_cast<size_t>(n / 3)] = row[static_cast<size_t>(n - 1)] = 20.0f;
  }
  batch.logits.insert(batch.logits.end(), row.begin(), row.end());
}

// Appends a tree of n nodes; choose_token(parent_row, earlier_siblings' tokens) picks each
// draft's token from the target row at its (canonical) parent. Root copies carry the
// root's token but logits of their own, which the walks must not read.
template <class ChooseToken>
void add_tree(PackedTrees& batch, TreeShape shape, int32_t n, std::mt19937& rng, ChooseToken&& choose_token) {
  const int32_t first = batch.offsets.back();
  const auto row = [&](int32_t v) { return std::span<const float>(batch.logits.data() + (first + v) * batch.n_vocab, static_cast<size_t>(batch.n_vocab)); };
  std::vector<int32_t> parents{-1}, tokens{static_cast<int32_t>(rng() % batch.n_vocab)};
  append_logits(batch, rng);
  for (int32_t v = 1; v < n; ++v) {
    int32_t parent = std::uniform_int_distribution<int32_t>(0, v - 1)(rng);
    if (shape == TreeShape::chain) parent = v - 1;
    if (shape == TreeShape::wide) parent = v <= n / 2 ? 0 : std::uniform_int_distribution<int32_t>(1, n / 2)(rng);
    if (shape == TreeShape::root_copies && rng() % 5 == 0) parent = -1;
    append_logits(batch, rng);
    parents.push_back(parent);
    if (parent < 0) {
      tokens.push_back(tokens[0]);
      continue;
    }
    const int32_t canonical = parents[parent] < 0 ? 0 : parent;
    std::vector<int32_t> siblings;
    for (int32_t u = 1; u < v; ++u)
      if (parents[u] >= 0 && (parents[parents[u]] < 0 ? 0 : parents[u]) == canonical) siblings.push_back(tokens[u]);
    tokens.push_back(choose_token(row(canonical), siblings));
  }
  for (int32_t v = 0; v < n; ++v) batch.parents.push_back(parents[v]), batch.tokens.push_back(tokens[v]);
  batch.offsets.push_back(first + n);
  batch.trees.push_back(TokenTree::from_parents(parents));
}

inline TreeShape shape_of(int64_t b) { return static_cast<TreeShape>(b % 4); }

struct Outputs {
  std::vector<int32_t> path, path_length, next_token;
  explicit Outputs(const PackedTrees& batch)
      : path(batch.parents.size(), -9), path_length(static_cast<size_t>(batch.size()), -9), next_token(static_cast<size_t>(batch.size()), -9) {}
  cuda::AcceptanceOut view() { return {path.data(), path_length.data(), next_token.data()}; }
  std::vector<int32_t> path_of(const PackedTrees& batch, int64_t b) const {
    const auto begin = path.begin() + batch.offsets[b];
    return std::vector<int32_t>(begin, begin + std::max(path_length[b], 0));
  }
};

// One verification step's keys: tree b is request b.
inline std::vector<RngKey> step_keys(int64_t n_trees, uint64_t seed, uint64_t step) {
  std::vector<RngKey> keys;
  for (int64_t b = 0; b < n_trees; ++b) keys.push_back(RngKey{seed, static_cast<uint64_t>(b), step});
  return keys;
}

// A walk's block program, program(block, args, shared), run by the grid emulator over the
// batch, a block per tree.
template <class Shared, class Args, class Program>
void emulate_walk(const PackedTrees& batch, const Args& args, Program&& program, cuda::ThreadOrder order) {
  const cuda::Launch launch = cuda::tree_acceptance_launch(batch.size());
  cuda::emulate_blocks(
      launch.grid(), launch.block,
      [&](const cuda::EmulatedBlock& block) {
        auto shared = std::make_unique<Shared>();
        program(block, args, *shared);
      },
      order);
}

}  // namespace draftbench::acceptance_case
