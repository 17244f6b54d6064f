// Medusa's typical acceptance (LOSSY): hand-built trees over an 8-token vocabulary check
// the rule p(x) > min(epsilon, delta * exp(-H)), the longest-path choice, both tie-breaks
// and root copies; random trees are checked against a brute-force enumeration of root
// paths; and a one-token example shows that the rule does not preserve the target's
// distribution while the exact rule does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "engine/decoding/verify.h"
#include "engine/decoding/verify_typical.h"

using namespace draftbench;

namespace {

constexpr int64_t kVocab = 8;

// p at a node, as logits (log p): entropy H ~ 1.586, so with epsilon 0.09 and delta 0.3 the
// threshold is min(0.09, 0.3 * exp(-1.586) ~ 0.0614) = 0.0614: tokens 0-3 pass, 4-7 do not.
const std::vector<double> kSpread = {0.40, 0.25, 0.15, 0.10, 0.04, 0.03, 0.02, 0.01};

std::vector<float> logits_of(const std::vector<double>& p) {
  std::vector<float> l;
  for (double x : p) l.push_back(static_cast<float>(std::log(x)));
  return l;
}

// Rows of logits for a tree: every node gets `p`, except those listed.
std::vector<float> rows(int32_t n_nodes, const std::vector<double>& p, const std::vector<std::pair<int32_t, std::vector<double>>>& others = {}) {
  std::vector<float> out;
  for (int32_t v = 0; v < n_nodes; ++v) {
    const std::vector<double>* row = &p;
    for (const auto& [node, q] : others)
      if (node == v) row = &q;
    const auto l = logits_of(*row);
    out.insert(out.end(), l.begin(), l.end());
  }
  return out;
}

Acceptance run(const std::vector<int32_t>& parents, const std::vector<int32_t>& tokens, const std::vector<float>& logits, TypicalParams params = {}) {
  const TokenTree tree = TokenTree::from_parents(parents);
  Acceptance out;
  verify_typical(tree, tokens, TargetLogits{logits.data(), kVocab}, params, out);
  return out;
}

// The rule written out on its own, for one token at one logits row.
double log_p_of(std::span<const float> logits, double temperature, int32_t x) {
  double m = -1e300;
  for (float l : logits) m = std::max(m, l / temperature);
  double sum = 0.0;
  for (float l : logits) sum += std::exp(l / temperature - m);
  return logits[x] / temperature - (m + std::log(sum));
}
bool acceptable(std::span<const float> logits, const TypicalParams& params, int32_t x) {
  double entropy = 0.0;
  for (size_t i = 0; i < logits.size(); ++i) {
    const double p = std::exp(log_p_of(logits, params.temperature, static_cast<int32_t>(i)));
    entropy -= p * std::log(p + 1e-5);
  }
  const double threshold = std::min<double>(params.epsilon, params.delta * std::exp(-entropy));
  return std::exp(log_p_of(logits, params.temperature, x)) > threshold;
}

// Enumerates every node's root path: accepted iff every token on it is acceptable at its
// parent (root copies stand for node 0); best = deepest, then largest sum of log p, then first.
Acceptance brute_force(const std::vector<int32_t>& parents, const std::vector<int32_t>& tokens, const std::vector<float>& logits, const TypicalParams& params) {
  auto row = [&](int32_t v) { return std::span<const float>(logits.data() + v * kVocab, static_cast<size_t>(kVocab)); };
  auto canonical = [&](int32_t v) { return parents[v] < 0 ? 0 : v; };
  const auto n = static_cast<int32_t>(parents.size());
  std::vector<int32_t> best_path{0};
  double best_score = 0.0;
  for (int32_t end = 1; end < n; ++end) {
    if (parents[end] < 0) continue;  // a root copy is not a draft
    std::vector<int32_t> path;
    for (int32_t v = end; v != 0; v = canonical(parents[v])) path.push_back(v);
    path.push_back(0);
    std::reverse(path.begin(), path.end());
    bool ok = true;
    double score = 0.0;
    for (size_t i = 1; i < path.size() && ok; ++i) {
      ok = acceptable(row(path[i - 1]), params, tokens[path[i]]);
      score += log_p_of(row(path[i - 1]), params.temperature, tokens[path[i]]);
    }
    if (!ok) continue;
    if (path.size() > best_path.size() || (path.size() == best_path.size() && score > best_score + 1e-9)) {
      best_path = path;
      best_score = score;
    }
  }
  Acceptance out;
  out.path = best_path;
  const auto last = row(best_path.back());
  out.next_token = static_cast<int32_t>(std::max_element(last.begin(), last.end()) - last.begin());
  return out;
}

}  // namespace

TEST_CASE("typical: a token passes iff p(x) > min(epsilon, delta * exp(-H))", "[typical]") {
  const auto spread = rows(2, kSpread);
  for (int32_t x = 0; x < kVocab; ++x) {
    INFO("token " << x);
    const Acceptance a = run({-1, 0}, {5, x}, spread);
    REQUIRE(a.n_accepted() == (x <= 3 ? 1 : 0));  // see kSpread
    REQUIRE(a.n_accepted() == (acceptable(std::span<const float>(spread.data(), kVocab), TypicalParams{}, x) ? 1 : 0));
  }
  // A peaked distribution (H small): the threshold is epsilon itself. p(1) = 0.08 < 0.09 fails,
  // although it would pass the entropy term (0.3 * exp(-H) ~ 0.16).
  const std::vector<double> peaked = {0.90, 0.08, 0.004, 0.004, 0.004, 0.004, 0.002, 0.002};
  REQUIRE(run({-1, 0}, {5, 1}, rows(2, peaked)).n_accepted() == 0);
  REQUIRE(run({-1, 0}, {5, 1}, rows(2, peaked), TypicalParams{1.0f, 0.07f, 0.3f}).n_accepted() == 1);
  // Temperature flattens p: at T = 4, token 5 (p 0.03) is within the entropy threshold.
  REQUIRE(run({-1, 0}, {5, 5}, spread).n_accepted() == 0);
  REQUIRE(acceptable(std::span<const float>(spread.data(), kVocab), TypicalParams{4.0f, 0.09f, 0.3f}, 5));
  REQUIRE(run({-1, 0}, {5, 5}, spread, TypicalParams{4.0f, 0.09f, 0.3f}).n_accepted() == 1);
}

TEST_CASE("typical: the longest acceptable path wins, the next token is the argmax at its end", "[typical]") {
  // root -> 1 -> 2 -> 3, with node 2's token unacceptable: the path stops at node 1.
  const std::vector<double> favours_3 = {0.01, 0.02, 0.03, 0.40, 0.25, 0.15, 0.10, 0.04};
  Acceptance a = run({-1, 0, 1, 2}, {0, 2, 0, 3}, rows(4, kSpread, {{1, favours_3}}));
  REQUIRE(a.path == std::vector<int32_t>{0, 1});
  REQUIRE(a.next_token == 3);  // argmax at node 1
  // Nothing acceptable: the root alone, and its argmax.
  a = run({-1, 0, 0}, {0, 7, 6}, rows(3, kSpread));
  REQUIRE(a.path == std::vector<int32_t>{0});
  REQUIRE(a.next_token == 0);
  // A deeper path beats a more probable short one: node 1 (p 0.40, leaf) vs nodes 2 -> 3.
  a = run({-1, 0, 0, 2}, {0, 0, 3, 1}, rows(4, kSpread));
  REQUIRE(a.path == std::vector<int32_t>{0, 2, 3});
  REQUIRE(a.next_token == 0);
  // Children of a rejected node are never accepted, even if acceptable at it.
  a = run({-1, 0, 1}, {0, 6, 0}, rows(3, kSpread));
  REQUIRE(a.path == std::vector<int32_t>{0});
}

TEST_CASE("typical: equal lengths go to the larger sum of log p, then to the first node", "[typical]") {
  // Two depth-2 paths: 1 -> 2 has log p(0.25) + log p(0.40); 3 -> 4 has log p(0.40) + log p(0.15).
  Acceptance a = run({-1, 0, 1, 0, 3}, {0, 1, 0, 0, 2}, rows(5, kSpread));
  REQUIRE(a.path == std::vector<int32_t>{0, 1, 2});  // 0.10 > 0.06
  a = run({-1, 0, 1, 0, 3}, {0, 1, 3, 0, 2}, rows(5, kSpread));
  REQUIRE(a.path == std::vector<int32_t>{0, 3, 4});  // 0.025 < 0.06
  // The same tokens twice: exactly equal sums, the first in node order.
  a = run({-1, 0, 0}, {0, 2, 2}, rows(3, kSpread));
  REQUIRE(a.path == std::vector<int32_t>{0, 1});
  a = run({-1, 0, 1, 0, 3}, {0, 2, 1, 2, 1}, rows(5, kSpread));
  REQUIRE(a.path == std::vector<int32_t>{0, 1, 2});
}

TEST_CASE("typical: root copies stand for node 0 and never appear in the path", "[typical]") {
  // Beams without tree attention: nodes 1 and 3 copy the root (token 4); their children are
  // judged at node 0's logits (the copies' rows are deliberately different and unused).
  const std::vector<double> rejects_all = {0.93, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01};
  const auto logits = rows(6, kSpread, {{1, rejects_all}, {3, rejects_all}});
  Acceptance a = run({-1, -1, 1, -1, 3, 4}, {4, 4, 3, 4, 1, 0}, logits);
  REQUIRE(a.path == std::vector<int32_t>{0, 4, 5});
  REQUIRE(a.next_token == 0);
  // Two depth-1 children of different copies: the larger log p wins (token 0 under node 3).
  a = run({-1, -1, 1, -1, 3}, {4, 4, 3, 4, 0}, rows(5, kSpread));
  REQUIRE(a.path == std::vector<int32_t>{0, 4});
}

TEST_CASE("typical: random trees agree with a brute-force enumeration of root paths", "[typical]") {
  std::mt19937_64 rng(11);
  std::normal_distribution<float> logit(0.0f, 2.0f);
  std::uniform_int_distribution<int32_t> token(0, kVocab - 1);
  const TypicalParams settings[] = {{1.0f, 0.09f, 0.3f}, {0.5f, 0.09f, 0.3f}, {2.0f, 0.2f, 0.45f}, {1.0f, 0.3f, 0.09f}};
  Acceptance out;
  int deep_paths = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 14);
    std::vector<int32_t> parents{-1}, tokens{token(rng)};
    for (int32_t v = 1; v < n; ++v) {
      const bool root_copy = rng() % 6 == 0;
      parents.push_back(root_copy ? -1 : static_cast<int32_t>(rng() % static_cast<uint64_t>(v)));
      tokens.push_back(root_copy ? tokens[0] : token(rng));
    }
    std::vector<float> logits(static_cast<size_t>(n * kVocab));
    for (float& l : logits) l = logit(rng);
    const TypicalParams& params = settings[trial % 4];
    const TokenTree tree = TokenTree::from_parents(parents);
    verify_typical(tree, tokens, TargetLogits{logits.data(), kVocab}, params, out);
    const Acceptance expected = brute_force(parents, tokens, logits, params);
    INFO("trial " << trial);
    REQUIRE(out.path == expected.path);
    REQUIRE(out.next_token == expected.next_token);
    deep_paths += out.n_accepted() >= 2;
  }
  REQUIRE(deep_paths > 20);  // the trees exercise more than the first level
}

TEST_CASE("typical: repeated calls reuse the path's storage", "[typical]") {
  const auto logits = rows(5, kSpread);
  const TokenTree tree = TokenTree::from_parents(std::vector<int32_t>{-1, 0, 1, 0, 3});
  const std::vector<int32_t> tokens{0, 1, 0, 0, 2};
  Acceptance out;
  verify_typical(tree, tokens, TargetLogits{logits.data(), kVocab}, TypicalParams{}, out);
  const int32_t* storage = out.path.data();
  for (int i = 0; i < 3; ++i) {
    verify_typical(tree, tokens, TargetLogits{logits.data(), kVocab}, TypicalParams{}, out);
    REQUIRE(out.path.data() == storage);
  }
}

TEST_CASE("typical: LOSSY — a plausible non-argmax draft is always taken, unlike the target's distribution", "[typical]") {
  // The target's p at the root is kSpread; the draft always proposes token 1 (p = 0.25).
  // Under typical acceptance the first generated token is then 1 every time: the output
  // distribution is a point mass, total variation 0.75 from p. The exact rule on the same
  // draft generates token 1 with frequency ~0.25.
  const auto logits = rows(2, kSpread);
  const TokenTree tree = TokenTree::from_parents(std::vector<int32_t>{-1, 0});
  const std::vector<int32_t> tokens{5, 1};
  const TargetLogits target{logits.data(), kVocab};
  Acceptance out;
  verify_typical(tree, tokens, target, TypicalParams{}, out);
  // Deterministic: the first generated token is the accepted draft, or else the argmax.
  const int32_t typical_first = out.path.size() == 2 ? tokens[1] : out.next_token;
  REQUIRE(typical_first == 1);
  const double typical_tv = 1.0 - kSpread[static_cast<size_t>(typical_first)];  // point mass vs p
  REQUIRE(typical_tv > 0.7);

  constexpr int kSamples = 4000;
  std::vector<int> counts(kVocab, 0);
  VerifyScratch scratch;
  for (int s = 0; s < kSamples; ++s) {
    const SamplingContext ctx{SamplingParams{1.0f, 0, 1.0f}, RngKey{static_cast<uint64_t>(s), 0, 0, 0}};
    verify_sampling_one_hot(tree, tokens, target, ctx, scratch, out);
    ++counts[out.path.size() == 2 ? tokens[1] : out.next_token];
  }
  // Binomial standard deviations are below 0.008: margins of 0.04 are > 5 sigma.
  const double freq_1 = static_cast<double>(counts[1]) / kSamples, freq_0 = static_cast<double>(counts[0]) / kSamples;
  REQUIRE(std::abs(freq_1 - kSpread[1]) < 0.04);
  REQUIRE(std::abs(freq_0 - kSpread[0]) < 0.04);
}
