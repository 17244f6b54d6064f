// The CUDA acceptance walks' block programs, run by the grid emulator over batches of random
// trees (chains, wide, deep, with root copies; vocabularies of 2 to 32000 with tied maxima),
// against the engine's verify_greedy and verify_sampling_one_hot. Greedy: the same path and
// next token, always. Sampling without top-k / top-p: the same, except where the host's walk
// compared a uniform with a threshold closer than kNearThreshold (the kernel's masses are
// sums in another order); those trees are counted and must be rare. Sampling with top-k /
// top-p: the same, always (the kernel adds in the host's order), over lists within and
// past the best 64, weights tied at the cuts, and the pieces (cut, sort) on their own.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
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
#include "kernels/ops/double_lanes.h"
#include "kernels/sampling/top_k.h"
#include "tests/cuda/emulation/tree_acceptance_case.h"

using namespace draftbench;
using namespace draftbench::acceptance_case;

namespace {

// In units of a node's probability mass; both sides' sums are within n * 2^-53 of exact.
constexpr double kNearThreshold = 1e-9;

Outputs emulate_greedy(const PackedTrees& batch, cuda::ThreadOrder order) {
  Outputs out(batch);
  const cuda::GreedyAcceptanceArgs args{batch.view(), out.view()};
  emulate_walk<cuda::GreedyAcceptanceShared>(batch, args, cuda::greedy_acceptance_block<cuda::EmulatedBlock>, order);
  return out;
}

Outputs emulate_one_hot(const PackedTrees& batch, float temperature, const std::vector<RngKey>& keys, cuda::ThreadOrder order, cuda::TargetFilter filter = {}) {
  Outputs out(batch);
  std::vector<float> weights(static_cast<size_t>(batch.size() * batch.n_vocab), -1.0f);
  std::vector<uint64_t> keys_in_order(filter.on() ? weights.size() : 0, ~uint64_t{0});
  const cuda::OneHotAcceptanceArgs args{batch.view(), 1.0f / temperature, filter, keys.data(), weights.data(), filter.on() ? keys_in_order.data() : nullptr,
                                        out.view()};
  emulate_walk<cuda::OneHotAcceptanceShared>(batch, args, cuda::one_hot_acceptance_block<cuda::EmulatedBlock>, order);
  return out;
}

// Trees whose drafts are drawn from the (filtered) target at their parent, its argmax, a
// sibling's token again, or any token (often of probability 0 at low temperatures, or
// outside a filtered list); the last tree is a root alone.
PackedTrees sampled_draft_trees(int64_t n_vocab, LogitRows rows, const SamplingParams& params, int64_t n_trees, int32_t max_nodes, std::mt19937& rng) {
  PackedTrees batch;
  batch.n_vocab = n_vocab;
  batch.rows = rows;
  DistributionScratch scratch;
  const auto choose = [&](std::span<const float> row, const std::vector<int32_t>& siblings) {
    const unsigned kind = rng() % 10;
    if (kind < 4) return sample_token(row, params, RngKey{rng()}, scratch);
    if (kind < 6) return argmax(row);
    if (kind < 8 && !siblings.empty()) return siblings[rng() % siblings.size()];
    return static_cast<int32_t>(rng() % n_vocab);
  };
  for (int64_t b = 0; b < n_trees; ++b)
    add_tree(batch, shape_of(b), b == n_trees - 1 ? 1 : std::uniform_int_distribution<int32_t>(2, max_nodes)(rng), rng, choose);
  return batch;
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
    target_distribution(std::span<const float>(batch.logits_of(b) + node * batch.n_vocab, static_cast<size_t>(batch.n_vocab)), SamplingParams{temperature},
                        scratch);
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
      const SamplingParams params{temperature};
      const PackedTrees batch = sampled_draft_trees(n_vocab, LogitRows::random, params, 9, n_vocab > 1000 ? 20 : 40, rng);
      for (uint64_t step = 0; step < 4; ++step) {
        std::vector<RngKey> keys;
        for (int64_t b = 0; b < batch.size(); ++b) keys.push_back(RngKey{1234, static_cast<uint64_t>(100 + b), step});
        for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
          const Outputs got = emulate_one_hot(batch, temperature, keys, order);
          VerifyScratch verify_scratch;
          for (int64_t b = 0; b < batch.size(); ++b) {
            Acceptance want;
            verify_sampling_one_hot(batch.trees[b], batch.tokens_of(b), TargetLogits{batch.logits_of(b), n_vocab}, SamplingContext{params, keys[b]},
                                    verify_scratch, want);
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

TEST_CASE("emulated CUDA one-hot sampling acceptance re-sums a residual after nearly all the mass is rejected", "[cuda-emulation][acceptance]") {
  // Token 0 holds all but 6e-7 of the mass; children 0, 0 (skipped once 0 is rejected), 1,
  // 2. With seeds whose first uniform rejects token 0, the residual falls below 1e-6 of the
  // node's mass, where both walks re-sum it, and the siblings decide on 2e-7-sized masses.
  // Unfiltered, and through the filtered list (top-k 3 drops token 3; top-p keeps all four).
  PackedTrees batch;
  batch.n_vocab = 4;
  const float tail = std::log(2e-7f);
  batch.logits = {0.0f, tail, tail, tail};
  for (int v = 1; v < 5; ++v) batch.logits.insert(batch.logits.end(), {0.0f, 0.0f, 0.0f, 0.0f});
  batch.parents = {-1, 0, 0, 0, 0};
  batch.tokens = {3, 0, 0, 1, 2};
  batch.offsets = {0, 5};
  batch.trees.push_back(TokenTree::from_parents(batch.parents));
  for (const cuda::TargetFilter filter : std::vector<cuda::TargetFilter>{{}, {3, 1.0f}, {0, 0.99999994f}}) {
    const SamplingParams params{1.0f, filter.top_k, filter.top_p};
    VerifyScratch scratch;
    int found = 0;
    for (uint64_t seed = 0; found < 3; ++seed) {
      const std::vector<RngKey> keys{RngKey{seed, 0, 0, 0}};
      if (uniform(keys[0], 1) < 1.0 - 3e-7) continue;
      ++found;
      Acceptance want;
      verify_sampling_one_hot(batch.trees[0], batch.tokens_of(0), TargetLogits{batch.logits.data(), 4}, SamplingContext{params, keys[0]}, scratch, want);
      if (!filter.on()) REQUIRE(host_margin(batch, 0, 1.0f, keys[0], want) >= kNearThreshold);
      REQUIRE(want.path.back() != 1);  // token 0 was rejected
      for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
        const Outputs got = emulate_one_hot(batch, 1.0f, keys, order, filter);
        INFO("seed " << seed << ", top_k " << filter.top_k << ", top_p " << filter.top_p);
        REQUIRE(got.path_of(batch, 0) == want.path);
        REQUIRE(got.next_token[0] == want.next_token);
      }
    }
  }
}

namespace {

// top-k alone (within and past the best 64, at and past the vocabulary), top-p alone (from
// a single token kept to most of a flat distribution), and both.
std::vector<cuda::TargetFilter> filters_for(int64_t n_vocab) {
  const int n = static_cast<int>(n_vocab);
  return {{1, 1.0f},  {3, 1.0f}, {64, 1.0f}, {65, 1.0f}, {300, 1.0f}, {n, 1.0f}, {n + 5, 1.0f}, {0, 0.0f},
          {0, 1e-6f}, {0, 0.5f}, {0, 0.9f},  {0, 0.99f}, {1, 0.5f},   {5, 0.7f}, {100, 0.9f},   {n, 0.95f}};
}

struct FilteredRun {
  int64_t n_trees = 0, n_deep = 0, n_rejected_all = 0;  // per tree and key set
  int64_t n_roots = 0, n_long_lists = 0;                // root lists longer than the best 64
};

// Both thread orders over `steps` key sets: every tree's path and next token must be the
// host's exactly.
void require_host_decisions(const PackedTrees& batch, float temperature, cuda::TargetFilter filter, uint64_t steps, FilteredRun& run) {
  const SamplingParams params{temperature, filter.top_k, filter.top_p};
  DistributionScratch scratch;
  for (int64_t b = 0; b < batch.size(); ++b) {
    target_distribution(std::span<const float>(batch.logits_of(b), static_cast<size_t>(batch.n_vocab)), params, scratch);
    ++run.n_roots;
    run.n_long_lists += scratch.dist.size() > static_cast<size_t>(cuda::kTopKMax);
  }
  for (uint64_t step = 0; step < steps; ++step) {
    const std::vector<RngKey> keys = step_keys(batch.size(), 4321, step);
    VerifyScratch verify_scratch;
    std::vector<Acceptance> want(static_cast<size_t>(batch.size()));
    for (int64_t b = 0; b < batch.size(); ++b)
      verify_sampling_one_hot(batch.trees[b], batch.tokens_of(b), TargetLogits{batch.logits_of(b), batch.n_vocab}, SamplingContext{params, keys[b]},
                              verify_scratch, want[b]);
    for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
      const Outputs got = emulate_one_hot(batch, temperature, keys, order, filter);
      for (int64_t b = 0; b < batch.size(); ++b) {
        INFO("n_vocab " << batch.n_vocab << ", T " << temperature << ", top_k " << filter.top_k << ", top_p " << filter.top_p << ", step " << step << ", tree "
                        << b << " of " << batch.trees[b].size() << " nodes");
        REQUIRE(got.path_of(batch, b) == want[b].path);
        REQUIRE(got.next_token[b] == want[b].next_token);
      }
    }
    for (const Acceptance& a : want) ++run.n_trees, run.n_deep += a.n_accepted() >= 2, run.n_rejected_all += a.n_accepted() == 0;
  }
}

}  // namespace

TEST_CASE("emulated CUDA one-hot sampling acceptance with top-k / top-p makes verify_sampling_one_hot's decisions exactly", "[cuda-emulation][acceptance]") {
  std::mt19937 rng(79);
  FilteredRun run;
  for (const int64_t n_vocab : {2, 3, 50, 1000, 32000}) {
    for (const float temperature : {0.6f, 2.0f}) {
      for (const cuda::TargetFilter filter : filters_for(n_vocab)) {
        const PackedTrees batch =
            sampled_draft_trees(n_vocab, LogitRows::random, SamplingParams{temperature, filter.top_k, filter.top_p}, 8, n_vocab > 1000 ? 12 : 30, rng);
        require_host_decisions(batch, temperature, filter, n_vocab > 1000 ? 1 : 2, run);
      }
    }
  }
  INFO(run.n_trees << " trees, " << run.n_long_lists << " of " << run.n_roots << " root lists past the best 64");
  REQUIRE(run.n_deep * 10 >= run.n_trees);
  REQUIRE(run.n_rejected_all * 10 >= run.n_trees);
  REQUIRE(run.n_long_lists * 10 >= run.n_roots);
}

TEST_CASE("emulated CUDA one-hot sampling acceptance with top-k / top-p cuts tied weights as the host does", "[cuda-emulation][acceptance]") {
  // Weights of four values (or one), so cuts fall inside groups of equal weight, where ids
  // decide; flat rows make the top-p running sums meet top_p * sum exactly (the kernel then
  // takes the host's sum).
  std::mt19937 rng(83);
  FilteredRun run;
  for (const int64_t n_vocab : {4, 50, 1000}) {
    for (const LogitRows rows : {LogitRows::levels, LogitRows::flat}) {
      for (const cuda::TargetFilter filter : std::vector<cuda::TargetFilter>{
               {2, 1.0f}, {10, 1.0f}, {33, 1.0f}, {100, 1.0f}, {0, 0.25f}, {0, 0.5f}, {0, 0.75f}, {0, 0.9f}, {20, 0.5f}, {200, 0.5f}}) {
        const PackedTrees batch = sampled_draft_trees(n_vocab, rows, SamplingParams{1.0f, filter.top_k, filter.top_p}, 8, 30, rng);
        require_host_decisions(batch, 1.0f, filter, 2, run);
      }
    }
  }
  INFO(run.n_trees << " trees");
  REQUIRE(run.n_deep * 20 >= run.n_trees);
  REQUIRE(run.n_rejected_all * 10 >= run.n_trees);
}

namespace {

// Weight rows whose top-p cuts are close calls. Running sums meet top_p * sum exactly (flat,
// levels), fall a crumb short of it (ones then a crumb), or fall short with the token that
// reaches it in the next weight group (ones, halves, a crumb: a floor set at the ones holds
// no cut). In the last, the sum itself is the host's lanes': two ones at ids 0 and 1 and
// crumbs of half their ulp behind them in lanes 0 and 1, lost there (ties to even), so the
// host's sum is 2 and top_p = 0.5 cuts after the first one; summed in any other order the
// crumbs count and the cut moves. Random rows decide far off.
std::vector<std::vector<float>> close_call_rows(std::mt19937& rng) {
  const float crumb = 0x1p-40f;
  std::vector<std::vector<float>> rows;
  for (const int n : {8, 50, 64, 1000}) rows.emplace_back(static_cast<size_t>(n), 1.0f);
  std::vector<float> levels(300);
  for (float& w : levels) w = std::ldexp(1.0f, -static_cast<int>(rng() % 4));
  rows.push_back(levels);
  for (const int ones : {40, 1000}) {
    rows.emplace_back(static_cast<size_t>(ones), 1.0f);
    rows.back().push_back(crumb);
  }
  rows.emplace_back(500, 1.0f);
  rows.back().insert(rows.back().end(), 1000, 0.5f);
  rows.back().push_back(crumb);
  for (auto& row : rows) std::shuffle(row.begin(), row.end(), rng);
  std::vector<float> lanes_lose_crumbs(8 * 100 + 2, 0.0f);
  for (size_t i = 0; i < lanes_lose_crumbs.size(); ++i)
    if (i % kDoubleLanes < 2) lanes_lose_crumbs[i] = i < 2 ? 1.0f : 0x1p-53f;
  rows.push_back(lanes_lose_crumbs);
  std::vector<float> random(2000);
  for (float& w : random) w = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
  rows.push_back(random);
  return rows;
}

// softmax_exp's sum: eight lanes, lane = index mod 8.
double lane_sum(const std::vector<float>& w) {
  double lane[kDoubleLanes] = {};
  for (size_t i = 0; i < w.size(); ++i) lane[i % kDoubleLanes] += w[i];
  return fold_double_lanes(lane);
}

}  // namespace

TEST_CASE("emulated filtered list is target_distribution's on close calls, whatever the kernel's own sum", "[cuda-emulation][acceptance]") {
  // The kernel's sum a few ulps off the host's, as another order of additions leaves it:
  // only the host's sum gives keep_mass_prefix's cut in the close calls.
  std::mt19937 rng(89);
  int64_t n_lists = 0;
  for (const std::vector<float>& w : close_call_rows(rng)) {
    const auto n = static_cast<int64_t>(w.size());
    const double host_sum = lane_sum(w);
    for (const int top_k : {0, 10, 100}) {
      for (const float top_p : {0.125f, 0.25f, 0.5f, 0.75f, 0.9f}) {
        std::vector<int32_t> want;
        top_k_ref(w.data(), n, top_k > 0 ? top_k : n, want);
        keep_mass_prefix(w.data(), top_p * host_sum, want);
        for (const int ulps : {-6, -3, 0, 3, 6}) {
          const double device_sum = host_sum * (1.0 + ulps * 0x1p-53);
          std::vector<uint64_t> order(static_cast<size_t>(n));
          int64_t len = -9;
          cuda::emulate_blocks(cuda::Dim3{1}, cuda::Dim3{cuda::kTreeAcceptanceThreads}, [&](const cuda::EmulatedBlock& block) {
            auto shared = std::make_unique<cuda::OneHotAcceptanceShared>();
            len = cuda::filtered_list(block, w.data(), n, device_sum, cuda::TargetFilter{top_k, top_p}, order.data(), shared->filter, shared->softmax);
          });
          std::vector<int32_t> got;
          for (int64_t i = 0; i < len; ++i) got.push_back(cuda::key_id(order[static_cast<size_t>(i)]));
          INFO("n " << n << ", top_k " << top_k << ", top_p " << top_p << ", the kernel's sum " << ulps << " ulps off");
          REQUIRE(got == want);
          ++n_lists;
        }
      }
    }
  }
  REQUIRE(n_lists > 0);
}

TEST_CASE("emulated bitonic sort puts any number of keys best first", "[cuda-emulation][acceptance]") {
  std::mt19937_64 rng(97);
  for (const int64_t m : {0, 1, 2, 3, 5, 64, 100, 255, 256, 257, 1000, 4097}) {
    std::vector<uint64_t> keys(static_cast<size_t>(m));
    for (uint64_t& k : keys) k = rng() % 5000;  // repeats too
    std::vector<uint64_t> want = keys;
    std::sort(want.begin(), want.end(), std::greater<>());
    for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
      std::vector<uint64_t> got = keys;
      cuda::emulate_blocks(
          cuda::Dim3{1}, cuda::Dim3{cuda::kTreeAcceptanceThreads}, [&](const cuda::EmulatedBlock& block) { cuda::sort_best_first(block, got.data(), m); },
          order);
      INFO("m " << m);
      REQUIRE(got == want);
    }
  }
}
