// Verification rules (engine/DESIGN.md §5), greedy: hand-built trees, and random trees
// against autoregressive greedy decoding on a model whose logits are a fixed random function
// of the whole prefix. (The sampling rules: verify_sampling_test.cpp.)
#include <catch2/catch.hpp>
#include <algorithm>
#include <random>
#include <span>
#include <vector>

#include "engine/decoding/verify.h"

using namespace draftbench;

namespace {

// ---------------------------------------------------------------- greedy, by hand

// Logits with a chosen argmax per node: [n_nodes][n_vocab].
std::vector<float> logits_with_argmax(const std::vector<int32_t>& argmax_by_node, int n_vocab) {
  std::vector<float> logits(argmax_by_node.size() * n_vocab, 0.0f);
  for (size_t v = 0; v < argmax_by_node.size(); ++v) logits[v * n_vocab + argmax_by_node[v]] = 1.0f;
  return logits;
}

Acceptance greedy(const std::vector<int32_t>& parents, const std::vector<int32_t>& tokens, const std::vector<float>& logits, int n_vocab) {
  Acceptance out;
  verify_greedy(TokenTree::from_parents(parents), tokens, TargetLogits{logits.data(), n_vocab}, out);
  return out;
}

}  // namespace

TEST_CASE("greedy: the longest path of argmax matches, and the argmax at its end", "[verify]") {
  // 0 -> {1:3, 2:5}, 1 -> {3:4}, 2 -> {4:2, 5:6}, 4 -> {6:1}; argmaxes 0:5, 1:4, 2:2, 4:1, 6:7.
  const std::vector<int32_t> parents = {-1, 0, 0, 1, 2, 2, 4}, tokens = {9, 3, 5, 4, 2, 6, 1};
  const auto logits = logits_with_argmax({5, 4, 2, 0, 1, 0, 7}, 10);
  const Acceptance a = greedy(parents, tokens, logits, 10);
  CHECK(a.path == std::vector<int32_t>{0, 2, 4, 6});
  CHECK(a.n_accepted() == 3);
  CHECK(a.next_token == 7);  // the bonus token
}

TEST_CASE("greedy: equally long paths go to the first in node order", "[verify]") {
  // Duplicate siblings 1 and 2 both match; each has one matching child (3 under 2, 4 under 1).
  const std::vector<int32_t> parents = {-1, 0, 0, 2, 1}, tokens = {0, 3, 3, 5, 5};
  const auto logits = logits_with_argmax({3, 5, 5, 1, 2}, 8);
  const Acceptance a = greedy(parents, tokens, logits, 8);
  CHECK(a.path == std::vector<int32_t>{0, 2, 3});
  CHECK(a.next_token == 1);
}

TEST_CASE("greedy: nothing accepted, root-only trees, logit ties, root copies", "[verify]") {
  const auto logits = logits_with_argmax({6, 1, 2}, 8);
  const Acceptance none = greedy({-1, 0, 1}, {0, 5, 1}, logits, 8);
  CHECK(none.path == std::vector<int32_t>{0});
  CHECK(none.next_token == 6);
  const Acceptance root_only = greedy({-1}, {4}, logits, 8);
  CHECK(root_only.path == std::vector<int32_t>{0});
  CHECK(root_only.next_token == 6);
  // All logits equal: the argmax is the first index, as in autoregressive decoding.
  const std::vector<float> flat(3 * 8, 0.5f);
  const Acceptance tie = greedy({-1, 0, 1}, {0, 0, 7}, flat, 8);
  CHECK(tie.path == std::vector<int32_t>{0, 1});
  CHECK(tie.next_token == 0);
  // Beams verified without tree attention: node 2 is a copy of the root, its child counts as the root's.
  const auto copy_logits = logits_with_argmax({5, 0, 5, 2}, 8);
  const Acceptance copies = greedy({-1, 0, -1, 2}, {4, 1, 4, 5}, copy_logits, 8);
  CHECK(copies.path == std::vector<int32_t>{0, 3});
  CHECK(copies.next_token == 2);
}

TEST_CASE("greedy on random trees commits exactly the autoregressive greedy sequence", "[verify]") {
  // The target's logits are a fixed random function of the whole prefix (a random
  // next-token table on token sequences), small vocabulary so drafts often match.
  constexpr int kV = 5;
  auto logits_after = [](const std::vector<int32_t>& prefix, float* row) {
    uint64_t h = 0x5EED;
    for (const int32_t t : prefix) h = splitmix64(h ^ static_cast<uint64_t>(t));
    for (int x = 0; x < kV; ++x) row[x] = static_cast<float>(uniform(RngKey{1, h, 0, static_cast<uint64_t>(x)}));
  };
  const std::vector<int32_t> prompt = {1, 2, 3};
  constexpr size_t kLength = 400;
  std::vector<int32_t> reference = prompt;  // autoregressive greedy
  std::vector<float> row(kV);
  while (reference.size() < prompt.size() + kLength + 20) {  // + the deepest tree's overshoot
    logits_after(reference, row.data());
    reference.push_back(argmax(row));
  }

  std::vector<int32_t> committed = prompt;
  int32_t root = reference[prompt.size()];
  std::mt19937 rng(7);
  Acceptance out;
  std::vector<std::vector<int32_t>> prefix_of;
  std::vector<int32_t> parents, tokens;
  std::vector<float> logits;
  int64_t n_steps = 0, n_drafts_accepted = 0;
  while (committed.size() < prompt.size() + kLength) {
    // A random tree: random parents, tokens the parent's argmax 60% of the time, 5% root copies.
    const int n = std::uniform_int_distribution<int>(1, 16)(rng);
    parents.assign(1, -1);
    tokens.assign(1, root);
    prefix_of.assign(1, committed);
    prefix_of[0].push_back(root);
    logits.assign(static_cast<size_t>(n) * kV, 0.0f);
    logits_after(prefix_of[0], logits.data());
    for (int v = 1; v < n; ++v) {
      const bool root_copy = std::uniform_real_distribution<double>(0, 1)(rng) < 0.05;
      const int32_t parent = root_copy ? -1 : std::uniform_int_distribution<int32_t>(0, v - 1)(rng);
      const int32_t matching = parent < 0 ? root : argmax(std::span<const float>(logits.data() + parent * kV, kV));
      const bool match = root_copy || std::uniform_real_distribution<double>(0, 1)(rng) < 0.6;
      parents.push_back(parent);
      tokens.push_back(match ? matching : std::uniform_int_distribution<int32_t>(0, kV - 1)(rng));
      prefix_of.push_back(parent < 0 ? prefix_of[0] : prefix_of[parent]);
      if (parent >= 0) prefix_of.back().push_back(tokens.back());
      logits_after(prefix_of.back(), logits.data() + v * kV);
    }
    const TokenTree tree = TokenTree::from_parents(parents);
    verify_greedy(tree, tokens, TargetLogits{logits.data(), kV}, out);

    // Brute force: a node is acceptable iff every token on its path is the argmax at its
    // parent; the path must end at the first deepest acceptable node.
    int32_t first_deepest = 0;
    for (int32_t v = 1; v < n; ++v) {
      if (parents[v] < 0) continue;
      bool ok = true;
      for (int32_t w = v; ok && parents[w] >= 0; w = parents[w]) ok = tokens[w] == argmax(std::span<const float>(logits.data() + parents[w] * kV, kV));
      if (ok && tree.depth[v] > tree.depth[first_deepest]) first_deepest = v;
    }
    REQUIRE(out.path.back() == first_deepest);
    REQUIRE(out.path.front() == 0);
    // The committed tokens continue the autoregressive greedy sequence.
    committed.push_back(root);
    for (size_t k = 1; k < out.path.size(); ++k) committed.push_back(tokens[out.path[k]]);
    root = out.next_token;
    REQUIRE(std::equal(committed.begin(), committed.end(), reference.begin()));
    REQUIRE(root == reference[committed.size()]);
    ++n_steps;
    n_drafts_accepted += out.n_accepted();
  }
  CHECK(n_drafts_accepted > n_steps);  // the trees really were used, > 1 draft per step on average
}
