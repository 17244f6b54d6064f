// The CUDA acceptance walks' block programs, run by the grid emulator over batches of random
// trees (chains, wide, deep, with root copies; vocabularies of 2 to 32000 with tied maxima),
// against the engine's verify_greedy and verify_sampling_one_hot. Greedy: the same path and
// next token, always. Sampling: the same, except where the host's walk compared a uniform
// with a threshold closer than kNearThreshold (the kernel's masses are sums in another
// order); those trees are counted and must be rare.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "engine/decoding/verify.h"
#include "kernels/cuda/grid_emulator.h"
#include "kernels/cuda/tree_acceptance_block.h"
#include "kernels/fixtures/random_blocks.h"

using namespace draftbench;

namespace {

// In units of a node's probability mass; both sides' sums are within n * 2^-53 of exact.
constexpr double kNearThreshold = 1e-9;

enum class TreeShape { chain, wide, random, root_copies };

// Trees CSR-packed as the kernels take them, with each tree's TokenTree for the reference.
struct PackedTrees {
  int64_t n_vocab = 0;
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
void append_logits(PackedTrees& batch, std::mt19937& rng) {
  const int64_t n = batch.n_vocab;
  std::vector<float> row;
  if (n <= 8) {
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

TreeShape shape_of(int64_t b) { return static_cast<TreeShape>(b % 4); }

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

Outputs emulate_greedy(const PackedTrees& batch, cuda::ThreadOrder order) {
  Outputs out(batch);
  const cuda::GreedyAcceptanceArgs args{batch.view(), out.view()};
  const cuda::Launch launch = cuda::tree_acceptance_launch(batch.size());
  cuda::emulate_blocks(launch.grid(), launch.block, [&](const cuda::EmulatedBlock& block) {
    auto shared = std::make_unique<cuda::GreedyAcceptanceShared>();
    cuda::greedy_acceptance_block(block, args, *shared);
  }, order);
  return out;
}

Outputs emulate_one_hot(const PackedTrees& batch, float temperature, const std::vector<RngKey>& keys, cuda::ThreadOrder order) {
  Outputs out(batch);
  std::vector<float> weights(static_cast<size_t>(batch.size() * batch.n_vocab), -1.0f);
  const cuda::OneHotAcceptanceArgs args{batch.view(), 1.0f / temperature, keys.data(), weights.data(), out.view()};
  const cuda::Launch launch = cuda::tree_acceptance_launch(batch.size());
  cuda::emulate_blocks(launch.grid(), launch.block, [&](const cuda::EmulatedBlock& block) {
    auto shared = std::make_unique<cuda::OneHotAcceptanceShared>();
    cuda::one_hot_acceptance_block(block, args, *shared);
  }, order);
  return out;
}

// How close verify_sampling_one_hot's walk for tree b came to another decision: the least
// distance, in units of a node's probability mass, between a uniform and the threshold it
// was compared with, along the host's path and in its final draw. A replay of the host's
// rule; where the margin is wide it must reach the host's result.
double host_margin(const PackedTrees& batch, int64_t b, float temperature, RngKey key, const Acceptance& host) {
  const std::span<const int32_t> parents(batch.parents.data() + batch.offsets[b], static_cast<size_t>(batch.trees[b].size()));
  const std::span<const int32_t> tokens = batch.tokens_of(b);
  const auto n = static_cast<int32_t>(parents.size());
  DistributionScratch scratch;
  std::vector<double> p(static_cast<size_t>(batch.n_vocab));
  double margin = std::numeric_limits<double>::infinity();
  int32_t replayed_next = -1;
  for (size_t k = 0; k < host.path.size(); ++k) {
    const int32_t node = host.path[k];
    key.node = static_cast<uint64_t>(node);
    target_distribution(std::span<const float>(batch.logits_of(b) + node * batch.n_vocab, static_cast<size_t>(batch.n_vocab)),
                        SamplingParams{temperature}, scratch);
    std::fill(p.begin(), p.end(), 0.0);
    double mass = 0.0;
    int32_t support = 0;
    for (const TokenProb& tp : scratch.dist) p[tp.token] = tp.p, mass += tp.p, ++support;
    int32_t accepted = -1;
    uint64_t j = 0;
    for (int32_t v = node + 1; v < n && accepted < 0; ++v) {
      if (parents[v] < 0 || (parents[parents[v]] < 0 ? 0 : parents[v]) != node) continue;
      const double u = uniform(key, 1 + j++);
      double& px = p[tokens[v]];
      if (px <= 0.0) continue;
      if (support == 1) {
        accepted = v;
        continue;
      }
      margin = std::min(margin, std::fabs(u * mass - px));
      if (u * mass < px) {
        accepted = v;
        continue;
      }
      mass = std::max(mass - px, 0.0);
      px = 0.0;
      if (mass < 1e-6) mass = std::accumulate(p.begin(), p.end(), 0.0);
      --support;
    }
    if (k + 1 < host.path.size()) {
      if (accepted != host.path[k + 1]) return margin < kNearThreshold ? margin : -1.0;
      continue;
    }
    if (accepted >= 0) return margin < kNearThreshold ? margin : -1.0;
    const double total = std::accumulate(p.begin(), p.end(), 0.0), threshold = uniform(key, 0) * total;
    double below = 0.0;
    for (int32_t t = 0; t < batch.n_vocab && replayed_next < 0; ++t) {
      if (p[t] <= 0.0) continue;
      if (threshold < below + p[t]) replayed_next = t, margin = std::min({margin, threshold - below, below + p[t] - threshold});
      below += p[t];
    }
  }
  if (replayed_next != host.next_token && margin >= kNearThreshold) return -1.0;
  return margin;
}

}  // namespace

TEST_CASE("emulated CUDA greedy acceptance equals verify_greedy", "[cuda-emulation][acceptance]") {
  std::mt19937 rng(61);
  int64_t n_trees = 0, n_accepted = 0, n_deep = 0;
  for (const int64_t n_vocab : {2, 3, 7, 1000, 32000}) {
    for (int round = 0; round < (n_vocab > 1000 ? 1 : 4); ++round) {
      PackedTrees batch;
      batch.n_vocab = n_vocab;
      // Each draft is the argmax at its parent 70% of the time, so paths run several deep.
      const auto choose = [&](std::span<const float> row, const std::vector<int32_t>&) {
        return rng() % 10 < 7 ? argmax(row) : static_cast<int32_t>(rng() % n_vocab);
      };
      const int32_t max_nodes = n_vocab > 1000 ? 24 : 48;
      for (int64_t b = 0; b < 7; ++b) add_tree(batch, shape_of(b), b == 6 ? 1 : std::uniform_int_distribution<int32_t>(2, max_nodes)(rng), rng, choose);
      for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
        const Outputs got = emulate_greedy(batch, order);
        for (int64_t b = 0; b < batch.size(); ++b) {
          Acceptance want;
          verify_greedy(batch.trees[b], batch.tokens_of(b), TargetLogits{batch.logits_of(b), n_vocab}, want);
          INFO("n_vocab " << n_vocab << ", round " << round << ", tree " << b << " of " << batch.trees[b].size() << " nodes");
          REQUIRE(got.path_of(batch, b) == want.path);
          REQUIRE(got.next_token[b] == want.next_token);
          if (order == cuda::ThreadOrder::kForward) ++n_trees, n_accepted += want.n_accepted(), n_deep += want.n_accepted() >= 3;
        }
      }
    }
  }
  // The walk went deep often enough to test the tie rule between equally long paths.
  REQUIRE(n_accepted >= n_trees);
  REQUIRE(n_deep * 4 >= n_trees);
}

TEST_CASE("emulated CUDA greedy acceptance takes trees up to its node limit and marks larger ones", "[cuda-emulation][acceptance]") {
  std::mt19937 rng(67);
  PackedTrees batch;
  batch.n_vocab = 3;
  const auto choose = [&](std::span<const float> row, const std::vector<int32_t>&) { return rng() % 10 < 8 ? argmax(row) : static_cast<int32_t>(rng() % 3); };
  add_tree(batch, TreeShape::root_copies, cuda::kGreedyAcceptanceMaxNodes, rng, choose);
  add_tree(batch, TreeShape::random, cuda::kGreedyAcceptanceMaxNodes + 1, rng, choose);
  add_tree(batch, TreeShape::chain, 30, rng, choose);
  const Outputs got = emulate_greedy(batch, cuda::ThreadOrder::kForward);
  for (const int64_t b : {0, 2}) {
    Acceptance want;
    verify_greedy(batch.trees[b], batch.tokens_of(b), TargetLogits{batch.logits_of(b), batch.n_vocab}, want);
    REQUIRE(got.path_of(batch, b) == want.path);
    REQUIRE(got.next_token[b] == want.next_token);
  }
  REQUIRE(got.path_length[1] == 0);
  REQUIRE(got.next_token[1] == -1);
}

TEST_CASE("emulated CUDA one-hot sampling acceptance makes verify_sampling_one_hot's decisions", "[cuda-emulation][acceptance]") {
  std::mt19937 rng(71);
  int64_t n_trees = 0, n_near = 0, n_deep = 0, n_rejected_all = 0;
  for (const int64_t n_vocab : {2, 3, 50, 1000, 32000}) {
    for (const float temperature : {0.02f, 0.6f, 1.0f, 2.0f}) {
      PackedTrees batch;
      batch.n_vocab = n_vocab;
      const SamplingParams params{temperature};
      DistributionScratch scratch;
      // Drafts drawn from the target at their parent, its argmax, a sibling's token again,
      // or any token (often of probability 0 at low temperatures).
      const auto choose = [&](std::span<const float> row, const std::vector<int32_t>& siblings) {
        const unsigned kind = rng() % 10;
        if (kind < 4) return sample_token(row, params, RngKey{rng()}, scratch);
        if (kind < 6) return argmax(row);
        if (kind < 8 && !siblings.empty()) return siblings[rng() % siblings.size()];
        return static_cast<int32_t>(rng() % n_vocab);
      };
      const int32_t max_nodes = n_vocab > 1000 ? 20 : 40;
      for (int64_t b = 0; b < 9; ++b) add_tree(batch, shape_of(b), b == 8 ? 1 : std::uniform_int_distribution<int32_t>(2, max_nodes)(rng), rng, choose);
      for (uint64_t step = 0; step < 4; ++step) {
        std::vector<RngKey> keys;
        for (int64_t b = 0; b < batch.size(); ++b) keys.push_back(RngKey{1234, static_cast<uint64_t>(100 + b), step});
        for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
          const Outputs got = emulate_one_hot(batch, temperature, keys, order);
          VerifyScratch verify_scratch;
          for (int64_t b = 0; b < batch.size(); ++b) {
            Acceptance want;
            verify_sampling_one_hot(batch.trees[b], batch.tokens_of(b), TargetLogits{batch.logits_of(b), n_vocab},
                                    SamplingContext{params, keys[b]}, verify_scratch, want);
            const double margin = host_margin(batch, b, temperature, keys[b], want);
            INFO("n_vocab " << n_vocab << ", T " << temperature << ", step " << step << ", tree " << b << " of " << batch.trees[b].size() << " nodes");
            REQUIRE(margin >= 0.0);  // the replay reached the host's result
            if (order == cuda::ThreadOrder::kForward) ++n_trees;
            if (margin < kNearThreshold) {
              n_near += order == cuda::ThreadOrder::kForward;
              continue;
            }
            REQUIRE(got.path_of(batch, b) == want.path);
            REQUIRE(got.next_token[b] == want.next_token);
            if (order == cuda::ThreadOrder::kForward) n_deep += want.n_accepted() >= 2, n_rejected_all += want.n_accepted() == 0 && batch.trees[b].size() > 1;
          }
        }
      }
    }
  }
  INFO(n_trees << " trees, " << n_near << " within " << kNearThreshold << " of a threshold");
  REQUIRE(n_near * 100 <= n_trees);
  // Both outcomes happen often: paths through several accepted drafts, and corrections at the root.
  REQUIRE(n_deep * 10 >= n_trees);
  REQUIRE(n_rejected_all * 10 >= n_trees);
}

TEST_CASE("emulated CUDA one-hot sampling acceptance re-sums a residual after nearly all the mass is rejected",
          "[cuda-emulation][acceptance]") {
  // Token 0 holds all but 6e-7 of the mass; children 0, 0 (skipped once 0 is rejected), 1,
  // 2. With seeds whose first uniform rejects token 0, the residual falls below 1e-6 of the
  // node's mass, where both walks re-sum it, and the siblings decide on 2e-7-sized masses.
  PackedTrees batch;
  batch.n_vocab = 4;
  const float tail = std::log(2e-7f);
  batch.logits = {0.0f, tail, tail, tail};
  for (int v = 1; v < 5; ++v) batch.logits.insert(batch.logits.end(), {0.0f, 0.0f, 0.0f, 0.0f});
  batch.parents = {-1, 0, 0, 0, 0};
  batch.tokens = {3, 0, 0, 1, 2};
  batch.offsets = {0, 5};
  batch.trees.push_back(TokenTree::from_parents(batch.parents));
  const SamplingParams params{1.0f};
  VerifyScratch scratch;
  int found = 0;
  for (uint64_t seed = 0; found < 3; ++seed) {
    const std::vector<RngKey> keys{RngKey{seed, 0, 0, 0}};
    if (uniform(keys[0], 1) < 1.0 - 5e-7) continue;
    ++found;
    Acceptance want;
    verify_sampling_one_hot(batch.trees[0], batch.tokens_of(0), TargetLogits{batch.logits.data(), 4}, SamplingContext{params, keys[0]}, scratch, want);
    REQUIRE(host_margin(batch, 0, 1.0f, keys[0], want) >= kNearThreshold);
    REQUIRE(want.path.back() != 1);  // token 0 was rejected
    for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
      const Outputs got = emulate_one_hot(batch, 1.0f, keys, order);
      INFO("seed " << seed);
      REQUIRE(got.path_of(batch, 0) == want.path);
      REQUIRE(got.next_token[0] == want.next_token);
    }
  }
}
