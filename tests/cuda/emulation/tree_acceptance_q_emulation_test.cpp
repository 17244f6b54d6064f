// The CUDA acceptance walk for drafts sampled from q (tree_acceptance_q_block.h), run by the
// grid emulator against the engine's verify_sampling_with_q: the same path and next token,
// always, over random trees (chains, wide, deep, with root copies) and vocabularies of 2 to
// 32000, with and without replacement, with and without top-k / top-p. Each node's q is of
// one of several kinds (a token or three; sparse random tokens, often outside a filtered
// list; the target's best tokens, perturbed; the whole vocabulary at another temperature;
// the filtered target itself, where rejections leave residuals of rounding size), scaled
// by a random factor (q need only be proportional), sometimes with entries of probability
// 0; each child is a draw from its parent's q (without replacement: from q less the earlier
// siblings). Packed sampled beams likewise: beams of 1-8 draws from q, sharing the nodes of
// a common prefix (a child drawn by several beams is tried once per beam) or each on a root
// copy of its own. Trees the host would reject (DB_CHECK) are the device's to mark untaken.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "engine/decoding/verify.h"
#include "kernels/cuda/grid_emulator.h"
#include "kernels/cuda/tree_acceptance_q_block.h"
#include "tests/cuda/emulation/tree_acceptance_case.h"

using namespace draftbench;
using namespace draftbench::acceptance_case;

namespace {

enum class QKind { tiny, sparse, best, whole, target, n_kinds };

DraftSampling sampling_of(bool without_replacement) { return without_replacement ? DraftSampling::without_replacement : DraftSampling::with_replacement; }

// A batch's draft distributions, CSR over its rows as the kernel and the host take them.
struct QBatch {
  std::map<int64_t, std::vector<TokenProb>> by_row;  // while the trees grow
  std::vector<TokenProb> entries;
  std::vector<int32_t> tokens, offsets;
  std::vector<double> probs;
  std::vector<bool> host_rejects;  // per tree: a draw no q_i could make (a vocabulary too small to draw without replacement)

  void pack(int64_t n_rows) {
    offsets.assign(1, 0);
    for (int64_t r = 0; r < n_rows; ++r) {
      const auto it = by_row.find(r);
      if (it != by_row.end()) entries.insert(entries.end(), it->second.begin(), it->second.end());
      offsets.push_back(static_cast<int32_t>(entries.size()));
    }
    for (const TokenProb& e : entries) tokens.push_back(e.token), probs.push_back(e.p);
  }
  DraftDistributions of_tree(const PackedTrees& batch, int64_t b) const {
    return {entries, std::span<const int32_t>(offsets).subspan(static_cast<size_t>(batch.offsets[b]), batch.trees[b].size() + 1)};
  }
};

// verify_sampling_with_q on tree b of the batch.
Acceptance host_walk(const PackedTrees& batch, int64_t b, const SampledDrafts& drafts, const SamplingParams& params, const RngKey& key,
                     VerifyScratch& scratch) {
  Acceptance want;
  verify_sampling_with_q(batch.trees[b], batch.tokens_of(b), TargetLogits{batch.logits_of(b), batch.n_vocab}, drafts, SamplingContext{params, key}, scratch,
                         want);
  return want;
}

// The emulated walk took tree b where the host did.
void require_host_walk(const Outputs& got, const PackedTrees& batch, int64_t b, const Acceptance& want) {
  REQUIRE(got.path_of(batch, b) == want.path);
  REQUIRE(got.next_token[b] == want.next_token);
}

// A q for a node whose target row is `row`.
std::vector<TokenProb> make_q(std::span<const float> row, QKind kind, const SamplingParams& params, std::mt19937& rng) {
  const auto n = static_cast<int32_t>(row.size());
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<TokenProb> q;
  DistributionScratch scratch;
  switch (kind) {
    case QKind::tiny:
    case QKind::sparse: {
      const int32_t m = kind == QKind::tiny ? 1 + static_cast<int32_t>(rng() % 3) : 2 + static_cast<int32_t>(rng() % 100);
      for (int32_t i = 0; i < m; ++i) {
        const auto token = static_cast<int32_t>(rng() % n);
        if (std::none_of(q.begin(), q.end(), [&](const TokenProb& e) { return e.token == token; })) q.push_back({token, unit(rng) + 1e-3});
      }
      break;
    }
    case QKind::best:
      target_distribution(row, SamplingParams{params.temperature}, scratch);
      std::sort(scratch.dist.begin(), scratch.dist.end(), [](const TokenProb& a, const TokenProb& b) { return a.p > b.p; });
      scratch.dist.resize(std::min<size_t>(scratch.dist.size(), 2 + rng() % 200));
      for (const TokenProb& e : scratch.dist) q.push_back({e.token, e.p * (0.5 + unit(rng))});
      break;
    case QKind::whole:
      target_distribution(row, SamplingParams{params.temperature * 1.7f}, scratch);
      q = scratch.dist;
      std::shuffle(q.begin(), q.end(), rng);
      break;
    default: target_distribution(row, params, scratch); q = scratch.dist;
  }
  const double scale = kind == QKind::target ? 1.0 : 0.1 + 10.0 * unit(rng);
  for (TokenProb& e : q) e.p *= scale;
  if (kind != QKind::target && rng() % 4 == 0) {  // an entry of probability 0, which the rule skips
    const auto token = static_cast<int32_t>(rng() % n);
    if (std::none_of(q.begin(), q.end(), [&](const TokenProb& e) { return e.token == token; })) q.insert(q.begin() + rng() % (q.size() + 1), {token, 0.0});
  }
  if (kind != QKind::target && !q.empty() && rng() % 4 == 0) {  // a token listed again at 0: still counted once
    const TokenProb listed = q[rng() % q.size()];
    q.insert(q.begin() + rng() % (q.size() + 1), {listed.token, 0.0});
  }
  return q;
}

// A draw from q less the tokens in `removed`; -1 if nothing is left.
int32_t draw_from(const std::vector<TokenProb>& q, const std::vector<int32_t>& removed, std::mt19937& rng) {
  const auto kept = [&](const TokenProb& e) { return e.p > 0.0 && std::find(removed.begin(), removed.end(), e.token) == removed.end(); };
  double mass = 0.0;
  for (const TokenProb& e : q) mass += kept(e) ? e.p : 0.0;
  if (mass <= 0.0) return -1;
  double threshold = std::uniform_real_distribution<double>(0.0, mass)(rng);
  int32_t last = -1;
  for (const TokenProb& e : q) {
    if (!kept(e)) continue;
    last = e.token;
    if ((threshold -= e.p) < 0.0) break;
  }
  return last;
}

// Trees whose every draft is a draw from its parent's q; the last tree is a root alone.
PackedTrees q_sampled_trees(int64_t n_vocab, const SamplingParams& params, bool without_replacement, int64_t n_trees, int32_t max_nodes, std::mt19937& rng,
                            QBatch& q) {
  PackedTrees batch;
  batch.n_vocab = n_vocab;
  for (int64_t b = 0; b < n_trees; ++b) {
    bool rejects = false;
    const auto choose = [&](std::span<const float> row, const std::vector<int32_t>& siblings) {
      std::vector<TokenProb>& node_q = q.by_row[(row.data() - batch.logits.data()) / n_vocab];
      if (node_q.empty()) node_q = make_q(row, static_cast<QKind>(rng() % static_cast<unsigned>(QKind::n_kinds)), params, rng);
      if (!without_replacement) return draw_from(node_q, {}, rng);
      int32_t token = draw_from(node_q, siblings, rng);
      // q_i exhausted: widen q by a token no sibling has (q stays what the draws came from).
      for (int tries = 0; token < 0 && tries < 4 * n_vocab; ++tries) {
        const auto t = static_cast<int32_t>(rng() % n_vocab);
        if (std::find(siblings.begin(), siblings.end(), t) != siblings.end()) continue;
        const auto listed = std::find_if(node_q.begin(), node_q.end(), [&](const TokenProb& e) { return e.token == t; });
        if (listed == node_q.end()) node_q.push_back({t, 0.5});
        else listed->p = 0.5;
        token = t;
      }
      if (token < 0) rejects = true, token = siblings[0];  // every token drawn already
      return token;
    };
    add_tree(batch, shape_of(b), b == n_trees - 1 ? 1 : std::uniform_int_distribution<int32_t>(2, max_nodes)(rng), rng, choose);
    q.host_rejects.push_back(rejects);
  }
  q.pack(static_cast<int64_t>(batch.parents.size()));
  return batch;
}

// Packed sampled beams over a batch: tree b's are nodes[b][n_beams][length], in its node ids.
struct BatchBeams {
  std::vector<int32_t> nodes;
  int32_t n_beams = 0, length = 0;
  BeamPaths of_tree(int64_t b) const {
    const auto per_tree = static_cast<size_t>(n_beams) * static_cast<size_t>(length);
    return {std::span<const int32_t>(nodes).subspan(static_cast<size_t>(b) * per_tree, per_tree), n_beams, length};
  }
};

Outputs emulate_q(const PackedTrees& batch, const QBatch& q, bool without_replacement, const SamplingParams& params, const std::vector<RngKey>& keys,
                  cuda::ThreadOrder order, const BatchBeams* beams = nullptr) {
  Outputs out(batch);
  const cuda::TargetFilter filter{params.top_k, params.top_p};
  const auto size = static_cast<size_t>(batch.size() * batch.n_vocab);
  std::vector<float> weights(size, -1.0f);
  std::vector<uint64_t> keys_in_order(filter.on() ? size : 0, ~uint64_t{0});
  std::vector<double> residual(size, -1.0), q_by_token(size, -1.0);  // not zeroed: the kernel must
  const cuda::QAcceptanceArgs args{batch.view(),
                                   1.0f / params.temperature,
                                   filter,
                                   cuda::DraftQ{q.tokens.data(), q.probs.data(), q.offsets.data(), without_replacement, beams ? beams->nodes.data() : nullptr,
                                                beams ? beams->n_beams : 0, beams ? beams->length : 0},
                                   keys.data(),
                                   weights.data(),
                                   filter.on() ? keys_in_order.data() : nullptr,
                                   residual.data(),
                                   q_by_token.data(),
                                   out.view()};
  emulate_walk<cuda::QAcceptanceShared>(batch, args, cuda::q_acceptance_block<cuda::EmulatedBlock>, order);
  return out;
}

struct QRun {
  int64_t n_trees = 0, n_deep = 0, n_rejected_all = 0, n_skipped = 0;
};

// Every tree's path and next token, in both thread orders, must be the host's.
void require_host_decisions(int64_t n_vocab, const SamplingParams& params, bool without_replacement, int64_t n_trees, int32_t max_nodes, uint64_t steps,
                            std::mt19937& rng, QRun& run) {
  QBatch q;
  const PackedTrees batch = q_sampled_trees(n_vocab, params, without_replacement, n_trees, max_nodes, rng, q);
  const DraftSampling sampling = sampling_of(without_replacement);
  VerifyScratch scratch;
  for (uint64_t step = 0; step < steps; ++step) {
    const std::vector<RngKey> keys = step_keys(batch.size(), 777, step);
    std::vector<Acceptance> want(static_cast<size_t>(batch.size()));
    for (int64_t b = 0; b < batch.size(); ++b) {
      if (q.host_rejects[b]) continue;
      want[b] = host_walk(batch, b, SampledDrafts{q.of_tree(batch, b), sampling, {}}, params, keys[b], scratch);
    }
    for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
      const Outputs got = emulate_q(batch, q, without_replacement, params, keys, order);
      for (int64_t b = 0; b < batch.size(); ++b) {
        if (q.host_rejects[b]) continue;
        INFO("n_vocab " << n_vocab << ", T " << params.temperature << ", top_k " << params.top_k << ", top_p " << params.top_p
                        << (without_replacement ? ", without" : ", with") << " replacement, step " << step << ", tree " << b << " of " << batch.trees[b].size()
                        << " nodes");
        require_host_walk(got, batch, b, want[b]);
      }
    }
    for (int64_t b = 0; b < batch.size(); ++b) {
      if (q.host_rejects[b]) {
        ++run.n_skipped;
        continue;
      }
      ++run.n_trees, run.n_deep += want[b].n_accepted() >= 2, run.n_rejected_all += want[b].n_accepted() == 0 && batch.trees[b].size() > 1;
    }
  }
}

}  // namespace

TEST_CASE("emulated CUDA sampling acceptance of drafts from q makes verify_sampling_with_q's decisions exactly", "[cuda-emulation][acceptance][acceptance-q]") {
  // Filters: off, top-k within and past the best 64, top-p narrow and wide, both (k = the vocabulary too).
  const auto filters = [](int k_all) {
    return std::vector<SamplingParams>{{1.0f}, {1.0f, 1}, {1.0f, 5}, {1.0f, 100}, {1.0f, 0, 0.5f}, {1.0f, 0, 0.95f}, {1.0f, 20, 0.9f}, {1.0f, k_all, 0.99f}};
  };
  std::mt19937 rng(101);
  QRun run;
  for (const int64_t n_vocab : std::vector<int64_t>{2, 3, 50, 1000, 32000}) {
    const bool large = n_vocab > 1000;
    for (SamplingParams params : filters(static_cast<int>(n_vocab)))
      for (const float temperature : {0.3f, 1.0f, 2.0f})
        for (const bool without_replacement : {false, true}) {
          params.temperature = temperature;
          require_host_decisions(n_vocab, params, without_replacement, large ? 5 : 10, large ? 10 : 30, large ? 1 : 3, rng, run);
        }
  }
  INFO(run.n_trees << " trees, " << run.n_skipped << " the host would reject");
  // Both outcomes happen often: paths through several accepted drafts, and corrections at the root.
  REQUIRE(run.n_deep * 10 >= run.n_trees);
  REQUIRE(run.n_rejected_all * 10 >= run.n_trees);
  // Wide trees over 2 or 3 tokens run out of tokens to draw without replacement; the rest must be compared.
  REQUIRE(run.n_skipped * 5 <= run.n_trees);
}

namespace {

// One tree: a root whose target row is `root_logits` (the other rows random) and children
// of the given tokens; q at the root only.
void add_star(PackedTrees& batch, const std::vector<float>& root_logits, const std::vector<int32_t>& children, std::vector<TokenProb> root_q, QBatch& q,
              std::mt19937& rng) {
  const int32_t first = batch.offsets.back();
  std::vector<int32_t> parents{-1};
  batch.parents.push_back(-1), batch.tokens.push_back(0);
  batch.logits.insert(batch.logits.end(), root_logits.begin(), root_logits.end());
  for (const int32_t token : children) {
    parents.push_back(0), batch.parents.push_back(0), batch.tokens.push_back(token);
    append_logits(batch, rng);
  }
  batch.offsets.push_back(first + static_cast<int32_t>(parents.size()));
  batch.trees.push_back(TokenTree::from_parents(parents));
  q.by_row[first] = std::move(root_q);
  q.host_rejects.push_back(false);
}

}  // namespace

TEST_CASE("emulated CUDA sampling acceptance of drafts from q re-sums a residual after nearly all the mass is rejected",
          "[cuda-emulation][acceptance][acceptance-q]") {
  // Token 0 holds all but 6e-7 of p and nearly all of q; with seeds whose first uniform
  // rejects it, the residual p - q falls below 1e-6, where both re-sum it, and the draws of
  // tokens 1 and 2 (q of 1e-9) decide on masses of 1e-7. With replacement token 0 is drawn
  // twice (its residual is then 0); unfiltered, and through a filtered list.
  const float tail = std::log(2e-7f);
  const std::vector<float> root{0.0f, tail, tail, tail};
  const std::vector<TokenProb> root_q{{0, 1.0}, {1, 1e-9}, {2, 1e-9}, {3, 1e-9}};
  int found = 0;
  for (uint64_t seed = 0; found < 3; ++seed) {
    const RngKey key{seed, 0, 0, 0};
    if (uniform(key, 1) < 1.0 - 3e-7) continue;
    ++found;
    for (const bool without_replacement : {false, true}) {
      for (const cuda::TargetFilter filter : std::vector<cuda::TargetFilter>{{}, {3, 1.0f}, {0, 0.99999994f}}) {
        std::mt19937 rng(109);
        PackedTrees batch;
        batch.n_vocab = 4;
        QBatch q;
        add_star(batch, root, without_replacement ? std::vector<int32_t>{0, 1, 2} : std::vector<int32_t>{0, 0, 1, 2}, root_q, q, rng);
        q.pack(static_cast<int64_t>(batch.parents.size()));
        const SamplingParams params{1.0f, filter.top_k, filter.top_p};
        VerifyScratch scratch;
        const Acceptance want = host_walk(batch, 0, SampledDrafts{q.of_tree(batch, 0), sampling_of(without_replacement), {}}, params, key, scratch);
        REQUIRE(want.path.back() != 1);  // token 0 was rejected
        for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
          const Outputs got = emulate_q(batch, q, without_replacement, params, {key}, order);
          INFO("seed " << seed << ", top_k " << filter.top_k << ", top_p " << filter.top_p << (without_replacement ? ", without" : ", with"));
          require_host_walk(got, batch, 0, want);
        }
      }
    }
  }
}

TEST_CASE("emulated CUDA sampling acceptance of drafts from q where a rejection leaves nothing or a crumb", "[cuda-emulation][acceptance][acceptance-q]") {
  // Tokens 0-2 of weight 1, token 3 of 1e-16 (lost in every mass), q = p but 1.5 times p(3);
  // drafts 3, 3. p and q's masses are then equal, so a rejection of token 3 (u >= 2/3)
  // subtracts q from p exactly: with nothing else the residual is empty and the host accepts
  // the draft; with a token 4 of 1e-17 outside q, it alone is left, and p's mass kept by
  // subtraction has lost it, where the re-summed mass has not: the second draft (residual 0)
  // is then rejected, and the next token is 4.
  int64_t n_compared = 0;
  for (const int64_t n_vocab : {4, 5}) {
    std::vector<float> root{0.0f, 0.0f, 0.0f, std::log(1e-16f)};
    if (n_vocab == 5) root.push_back(std::log(1e-17f));
    DistributionScratch scratch;
    target_distribution(root, SamplingParams{1.0f}, scratch);
    std::vector<TokenProb> root_q(scratch.dist.begin(), scratch.dist.begin() + 4);
    root_q[3].p *= 1.5;
    for (uint64_t seed = 0; n_compared < (n_vocab == 4 ? 3 : 6); ++seed) {
      const RngKey key{seed, 0, 0, 0};
      if (uniform(key, 1) < 0.7) continue;
      std::mt19937 rng(113);
      PackedTrees batch;
      batch.n_vocab = n_vocab;
      QBatch q;
      add_star(batch, root, {3, 3}, root_q, q, rng);
      q.pack(static_cast<int64_t>(batch.parents.size()));
      VerifyScratch verify_scratch;
      const Acceptance want =
          host_walk(batch, 0, SampledDrafts{q.of_tree(batch, 0), DraftSampling::with_replacement, {}}, SamplingParams{1.0f}, key, verify_scratch);
      REQUIRE(want.path == (n_vocab == 4 ? std::vector<int32_t>{0, 1} : std::vector<int32_t>{0}));
      if (n_vocab == 5) REQUIRE(want.next_token == 4);
      const Outputs got = emulate_q(batch, q, false, SamplingParams{1.0f}, {key}, cuda::ThreadOrder::kForward);
      INFO("n_vocab " << n_vocab << ", seed " << seed);
      require_host_walk(got, batch, 0, want);
      ++n_compared;
    }
  }
}

TEST_CASE("emulated CUDA sampling acceptance of drafts from q leaves trees the host would reject untaken", "[cuda-emulation][acceptance][acceptance-q]") {
  // verify_sampling_with_q aborts on these (DB_CHECK); the kernel marks the tree instead and
  // walks the others: a draft q gives probability 0, a token listed twice, a negative
  // probability, an id outside the vocabulary, q of zero mass, and (without replacement) a
  // token drawn again after its rejection removed it from q_i. Token 3 has probability 0 in
  // the target, so its draws are rejected.
  std::mt19937 rng(107);
  PackedTrees batch;
  batch.n_vocab = 8;
  QBatch q;
  const std::vector<float> root{0.0f, 1.0f, 0.5f, -1000.0f, 0.0f, 2.0f, 0.0f, 0.0f};
  const std::vector<std::vector<TokenProb>> root_q{{{4, 1.0}}, {{3, 0.5}, {3, 0.5}}, {{3, 1.0}, {5, -0.1}}, {{3, 1.0}, {8, 0.1}},
                                                   {{3, 0.0}}, {{3, 1.0}},           {{3, 1.0}, {1, 1.0}},  {{3, 1.0}, {1, 1.0}}};
  for (size_t b = 0; b < root_q.size(); ++b) add_star(batch, root, b == 7 ? std::vector<int32_t>{3, 3} : std::vector<int32_t>{3}, root_q[b], q, rng);
  q.pack(static_cast<int64_t>(batch.parents.size()));
  std::vector<RngKey> keys(root_q.size(), RngKey{5, 0, 0});
  const Outputs got = emulate_q(batch, q, true, SamplingParams{1.0f}, keys, cuda::ThreadOrder::kForward);
  for (const int64_t b : {0, 1, 2, 3, 4, 7}) {
    INFO("tree " << b);
    REQUIRE(got.path_length[b] == 0);
    REQUIRE(got.next_token[b] == -1);
  }
  for (const int64_t b : {5, 6}) {
    VerifyScratch scratch;
    const Acceptance want =
        host_walk(batch, b, SampledDrafts{q.of_tree(batch, b), DraftSampling::without_replacement, {}}, SamplingParams{1.0f}, keys[b], scratch);
    REQUIRE(want.path.size() == 1);
    require_host_walk(got, batch, b, want);
  }
}

namespace {

// Trees of packed sampled beams: n_beams beams of `length` tokens (the root included), each
// token a draw from q at the beam's node before it. Packed, beams that drew the same prefix
// share its nodes (a child drawn by several beams is one node); unpacked, every beam after
// the first starts at a root copy of its own. `shared_draws` counts draws that landed on an
// existing child.
PackedTrees sampled_beam_trees(int64_t n_vocab, const SamplingParams& params, int64_t n_trees, bool packed, std::mt19937& rng, QBatch& q, BatchBeams& beams,
                               int64_t& shared_draws) {
  PackedTrees batch;
  batch.n_vocab = n_vocab;
  for (int64_t b = 0; b < n_trees; ++b) {
    const int32_t first = batch.offsets.back();
    std::vector<int32_t> parents{-1}, tokens{static_cast<int32_t>(rng() % n_vocab)};
    const auto add_node = [&](int32_t parent, int32_t token) {
      parents.push_back(parent), tokens.push_back(token);
      append_logits(batch, rng);
      return static_cast<int32_t>(parents.size()) - 1;
    };
    append_logits(batch, rng);
    for (int32_t beam = 0; beam < beams.n_beams; ++beam) {
      int32_t at = !packed && beam > 0 ? add_node(-1, tokens[0]) : 0;
      beams.nodes.push_back(at);
      for (int32_t j = 1; j < beams.length; ++j) {
        const int32_t canonical = parents[at] < 0 ? 0 : at;
        std::vector<TokenProb>& node_q = q.by_row[first + canonical];
        if (node_q.empty()) {
          const std::span<const float> row(batch.logits.data() + (first + canonical) * n_vocab, static_cast<size_t>(n_vocab));
          node_q = make_q(row, static_cast<QKind>(rng() % static_cast<unsigned>(QKind::n_kinds)), params, rng);
        }
        const int32_t token = draw_from(node_q, {}, rng);
        int32_t child = -1;
        for (int32_t v = 1; packed && v < static_cast<int32_t>(parents.size()) && child < 0; ++v)
          if (parents[v] == canonical && tokens[v] == token) child = v;
        if (child >= 0) ++shared_draws;
        else child = add_node(at, token);
        at = child;
        beams.nodes.push_back(at);
      }
    }
    for (size_t v = 0; v < parents.size(); ++v) batch.parents.push_back(parents[v]), batch.tokens.push_back(tokens[v]);
    batch.offsets.push_back(first + static_cast<int32_t>(parents.size()));
    batch.trees.push_back(TokenTree::from_parents(parents));
    q.host_rejects.push_back(false);
  }
  q.pack(static_cast<int64_t>(batch.parents.size()));
  return batch;
}

}  // namespace

TEST_CASE("emulated CUDA sampling acceptance of packed sampled beams makes verify_sampling_with_q's decisions exactly",
          "[cuda-emulation][acceptance][acceptance-q]") {
  std::mt19937 rng(131);
  int64_t n_trees = 0, n_deep = 0, n_rejected_all = 0, shared_draws = 0;
  for (const int64_t n_vocab : std::vector<int64_t>{2, 3, 50, 1000, 32000}) {
    const bool large = n_vocab > 1000;
    for (const SamplingParams params : std::vector<SamplingParams>{{1.0f}, {0.5f, 5}, {2.0f, 0, 0.9f}, {1.0f, 20, 0.95f}})
      for (const bool packed : {true, false})
        for (const auto& [n_beams, length] : std::vector<std::pair<int32_t, int32_t>>{{1, 1}, {1, 4}, {2, 3}, {4, 2}, {8, 4}}) {
          if (large && n_beams * length > 8) continue;
          QBatch q;
          BatchBeams beams{{}, n_beams, length};
          const PackedTrees batch = sampled_beam_trees(n_vocab, params, large ? 2 : 6, packed, rng, q, beams, shared_draws);
          VerifyScratch scratch;
          for (uint64_t step = 0; step < (large ? 1u : 3u); ++step) {
            const std::vector<RngKey> keys = step_keys(batch.size(), 919, step);
            std::vector<Acceptance> want(static_cast<size_t>(batch.size()));
            for (int64_t b = 0; b < batch.size(); ++b)
              want[b] = host_walk(batch, b, SampledDrafts{q.of_tree(batch, b), DraftSampling::with_replacement, beams.of_tree(b)}, params, keys[b], scratch);
            for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
              const Outputs got = emulate_q(batch, q, false, params, keys, order, &beams);
              for (int64_t b = 0; b < batch.size(); ++b) {
                INFO("n_vocab " << n_vocab << ", T " << params.temperature << ", top_k " << params.top_k << ", top_p " << params.top_p
                                << (packed ? ", packed " : ", unpacked ") << n_beams << " x " << length << ", step " << step << ", tree " << b);
                require_host_walk(got, batch, b, want[b]);
              }
            }
            for (const Acceptance& a : want) ++n_trees, n_deep += a.n_accepted() >= 2, n_rejected_all += a.n_accepted() == 0 && length > 1;
          }
        }
  }
  INFO(n_trees << " trees, " << shared_draws << " draws onto a child another beam drew");
  REQUIRE(n_deep * 10 >= n_trees);
  REQUIRE(n_rejected_all * 10 >= n_trees);
  REQUIRE(shared_draws * 10 >= n_trees);  // children tried once per beam that drew them
}

TEST_CASE("emulated CUDA sampling acceptance leaves trees whose beams the host would reject untaken", "[cuda-emulation][acceptance][acceptance-q]") {
  // Tree: 0 -> 1 -> 2, 0 -> 3, and a root copy 4 -> 5; q at nodes 0-3 lists every token.
  // Two beams of two tokens per tree: valid ones (from the root; one from the root copy) are
  // walked as the host walks them; a beam that skips a level, starts at a draft, leaves the
  // tree or steps onto a root copy leaves its tree untaken, as do valid beams drawn without
  // replacement.
  std::mt19937 rng(137);
  PackedTrees batch;
  batch.n_vocab = 6;
  QBatch q;
  const std::vector<int32_t> parents{-1, 0, 1, 0, -1, 4}, tokens{0, 1, 2, 3, 0, 5};
  const std::vector<std::vector<int32_t>> beam_sets{{0, 1, 0, 3}, {0, 3, 4, 5}, {0, 2, 0, 1}, {1, 2, 0, 3}, {0, 6, 0, 1}, {0, 4, 0, 1}};
  const std::vector<TokenProb> all{{0, 1.0}, {1, 1.0}, {2, 1.0}, {3, 1.0}, {4, 1.0}, {5, 1.0}};
  BatchBeams beams{{}, 2, 2};
  for (const auto& set : beam_sets) {
    const int32_t first = batch.offsets.back();
    for (size_t v = 0; v < parents.size(); ++v) {
      batch.parents.push_back(parents[v]), batch.tokens.push_back(tokens[v]);
      append_logits(batch, rng);
      if (v < 4) q.by_row[first + static_cast<int64_t>(v)] = all;
    }
    batch.offsets.push_back(first + static_cast<int32_t>(parents.size()));
    batch.trees.push_back(TokenTree::from_parents(parents));
    q.host_rejects.push_back(false);
    beams.nodes.insert(beams.nodes.end(), set.begin(), set.end());
  }
  q.pack(static_cast<int64_t>(batch.parents.size()));
  const std::vector<RngKey> keys = step_keys(batch.size(), 3, 0);
  for (const bool without_replacement : {false, true}) {
    const Outputs got = emulate_q(batch, q, without_replacement, SamplingParams{1.0f}, keys, cuda::ThreadOrder::kForward, &beams);
    for (int64_t b = 0; b < batch.size(); ++b) {
      INFO("tree " << b << (without_replacement ? ", without replacement" : ", with replacement"));
      if (without_replacement || b >= 2) {
        REQUIRE(got.path_length[b] == 0);
        REQUIRE(got.next_token[b] == -1);
        continue;
      }
      VerifyScratch scratch;
      require_host_walk(
          got, batch, b,
          host_walk(batch, b, SampledDrafts{q.of_tree(batch, b), DraftSampling::with_replacement, beams.of_tree(b)}, SamplingParams{1.0f}, keys[b], scratch));
    }
  }
}
