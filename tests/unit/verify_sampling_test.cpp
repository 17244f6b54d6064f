// Verification rules (engine/DESIGN.md §5), sampling: the exact rules must leave the
// target's distribution unchanged, checked by decoding the first kGenerated tokens many
// times with drafts of every shape the drafters produce and comparing the empirical
// distribution of the generated sequences with the exact one (enumerated over all
// kVocab^kGenerated sequences) by Pearson's chi-square; the lossy ReDrafter rule must fail
// the same test. (The greedy rule: verify_greedy_test.cpp.)
//
// Power (kSamples = 1,000,000 decodings per case in optimised builds; alpha = 1e-6 per
// statistic, critical values by Wilson-Hilferty): a bias of chi-square distance
// d2 = sum (p' - p)^2 / p has noncentrality lambda = kSamples * d2.
//  - Marginal of each generated position (df <= 5, critical ~37): one percentage point moved
//    onto a token of probability 0.1..0.9 is d2 >= 1e-4 / (P (1 - P)) >= 4e-4, lambda >= 400:
//    detected with power ~1.
//  - Joint over the 216 sequences (df <= 215 after pooling cells expecting < 5, critical
//    <= 329): power 0.99 needs lambda ~ 195, i.e. d2 >= 2e-4.
//  What that power catches (by hand-applied mutations of the rules): accepting with
//  probability 1.01 p instead of p — a 1% relative error in the acceptance rule — fails every
//  case of both exact rules at 1M samples (300k catches it only in some cases, hence 1M);
//  dropping the renormalisation of the residual, of q after a draw without replacement, or
//  the per-beam draw order all give chi-square in the thousands.
#include <catch2/catch.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <random>
#include <string>

#include "engine/decoding/verify.h"

using namespace draftbench;

// ---------------------------------------------------------------- sampling: harness

namespace {

constexpr int kVocab = 6;
constexpr int kGenerated = 3;
constexpr int kSequences = kVocab * kVocab * kVocab;  // kVocab^kGenerated
// Sanitizer and unoptimised builds check memory and logic, not statistical power: 10x fewer
// samples keep them fast (the critical values do not depend on the sample count).
#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
constexpr int64_t kSamples = 100'000;
#else
constexpr int64_t kSamples = 1'000'000;
#endif
constexpr double kAlphaZ = 4.753;  // standard normal quantile of 1 - 1e-6
constexpr uint64_t kVerifySeed = 20240311, kDraftSeed = 777;
constexpr int kMaxBeamLength = 8;
constexpr int32_t kPromptToken = 2, kRoot = 4;  // the prefix ends ..., 2, 4 (4 = the root, already chosen)

// Portable normal draws (std::normal_distribution differs between standard libraries).
double gaussian(uint64_t stream, uint64_t index) {
  const double u1 = 1.0 - uniform(RngKey{stream, index, 0, 0}), u2 = uniform(RngKey{stream, index, 0, 1});
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.141592653589793 * u2);
}

// A second-order Markov target and drafter: logits are functions of the last two tokens of
// the prefix, indexed by context = a * kVocab + b.
struct ToyModels {
  static constexpr int kHeads = 3;
  std::vector<float> target;              // [context][kVocab]
  std::vector<float> draft;               // [context][kVocab]: the target's logits plus noise
  std::vector<float> heads;               // [kHeads][context][kVocab]: Medusa head h, the token at depth h + 1 below a root in `context`
  std::vector<std::vector<TokenProb>> q;  // [context]: softmax of `draft`, in id order
  std::span<const float> target_row(int32_t context) const { return {target.data() + context * kVocab, kVocab}; }
  std::span<const float> draft_row(int32_t context) const { return {draft.data() + context * kVocab, kVocab}; }
  std::span<const float> head_row(int h, int32_t context) const { return {heads.data() + (h * kVocab * kVocab + context) * kVocab, kVocab}; }
};

ToyModels make_toy_models() {
  ToyModels m;
  const int rows = kVocab * kVocab * kVocab;
  for (int i = 0; i < rows; ++i) {
    m.target.push_back(static_cast<float>(1.3 * gaussian(1, i)));
    m.draft.push_back(m.target.back() + static_cast<float>(0.8 * gaussian(2, i)));
  }
  for (int i = 0; i < ToyModels::kHeads * rows; ++i) m.heads.push_back(i < rows ? m.draft[i] : static_cast<float>(1.5 * gaussian(3, i)));
  for (int c = 0; c < kVocab * kVocab; ++c) {
    const auto row = m.draft_row(c);
    double sum = 0.0;
    for (const float l : row) sum += std::exp(static_cast<double>(l));
    m.q.emplace_back();
    for (int x = 0; x < kVocab; ++x) m.q.back().push_back({x, std::exp(static_cast<double>(row[x])) / sum});
  }
  return m;
}

// Tokens by decreasing logit (ties by id): a deterministic drafter's ranking.
std::array<int32_t, kVocab> ranked(std::span<const float> logits) {
  std::array<int32_t, kVocab> order;
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t x, int32_t y) { return logits[x] > logits[y]; });
  return order;
}

// One step's draft: the tree, each node's context (last two tokens of its prefix), beams.
struct Draft {
  std::vector<int32_t> tokens, parents, context;
  std::vector<int32_t> beam_nodes;  // [n_beams][beam_length] when drafted as beams
  int32_t n_beams = 0, beam_length = 0;
  void start(int32_t before_root, int32_t root) {
    tokens.assign(1, root);
    parents.assign(1, -1);
    context.assign(1, before_root * kVocab + root);
    beam_nodes.clear();
    n_beams = beam_length = 0;
  }
  int32_t add(int32_t parent, int32_t token) {
    tokens.push_back(token);
    parents.push_back(parent);
    context.push_back((context[parent] % kVocab) * kVocab + token);
    return static_cast<int32_t>(tokens.size()) - 1;
  }
  // The node below `parent` with `token`, added if missing.
  int32_t child_or_add(int32_t parent, int32_t token) {
    for (int32_t v = parent + 1; v < static_cast<int32_t>(tokens.size()); ++v)
      if (parents[v] == parent && tokens[v] == token) return v;
    return add(parent, token);
  }
  // Packs beams ([n_beams][length], each the root then its drafts) beam-major with shared
  // prefixes merged, as dedup_prefix + pack_beams do, and records the unpacker.
  void pack(const std::vector<int32_t>& beams, int32_t length) {
    n_beams = static_cast<int32_t>(beams.size()) / length;
    beam_length = length;
    for (int32_t b = 0; b < n_beams; ++b) {
      beam_nodes.push_back(0);
      for (int32_t j = 1, node = 0; j < length; ++j) beam_nodes.push_back(node = child_or_add(node, beams[b * length + j]));
    }
  }
};

// The drafter's own randomness, independent of the verifier's uniforms.
struct DraftRng {
  uint64_t request, step, counter = 0;
  double next() { return uniform(RngKey{kDraftSeed, request, step, counter++}); }
};

using Propose = std::function<void(const ToyModels&, Draft&, DraftRng&)>;

// ---- deterministic drafts (one-hot proposals)

Propose chain_of_top1(int depth) {
  return [=](const ToyModels& m, Draft& d, DraftRng&) {
    for (int32_t node = 0, k = 0; k < depth; ++k) node = d.add(node, ranked(m.draft_row(d.context[node]))[0]);
  };
}

// ReDrafter: beam search by summed log q, one live beam at first, then packing.
Propose beam_search(int width, int length) {
  return [=](const ToyModels& m, Draft& d, DraftRng&) {
    struct Beam {
      double score;
      int32_t context;
      std::array<int32_t, kMaxBeamLength> tokens;
    };
    std::vector<Beam> beams = {{0.0, d.context[0], {d.tokens[0]}}}, next;
    for (int j = 1; j < length; ++j) {
      next.clear();
      for (const Beam& b : beams)
        for (const TokenProb& tp : m.q[b.context]) {
          next.push_back(b);
          next.back().score += std::log(tp.p);
          next.back().context = (b.context % kVocab) * kVocab + tp.token;
          next.back().tokens[j] = tp.token;
        }
      // Stable: equal scores keep (beam, token) order.
      std::stable_sort(next.begin(), next.end(), [](const Beam& x, const Beam& y) { return x.score > y.score; });
      next.resize(std::min<size_t>(next.size(), width));
      beams.swap(next);
    }
    std::vector<int32_t> rows;
    for (const Beam& b : beams) rows.insert(rows.end(), b.tokens.begin(), b.tokens.begin() + length);
    d.pack(rows, length);
  };
}

// Medusa: a static tree of rank paths; depth h + 1 holds head h's rank-c token whatever the parent.
Propose medusa_tree() {
  return [](const ToyModels& m, Draft& d, DraftRng&) {
    static const std::vector<std::vector<int>> kChoices = {{0}, {1}, {2}, {0, 0}, {0, 1}, {1, 0}, {2, 0}, {0, 0, 0}, {0, 1, 0}, {1, 0, 0}};
    for (size_t i = 0; i < kChoices.size(); ++i) {  // choice i becomes node i + 1; prefixes come first
      const auto& path = kChoices[i];
      int32_t parent = 0;
      for (size_t k = 0; k < i; ++k)
        if (kChoices[k].size() + 1 == path.size() && std::equal(kChoices[k].begin(), kChoices[k].end(), path.begin())) parent = static_cast<int32_t>(k) + 1;
      d.add(parent, ranked(m.head_row(static_cast<int>(path.size()) - 1, d.context[0]))[path.back()]);
    }
  };
}

// EAGLE-2: expand the top-k frontier `depth` times by cumulative log q, keep the best
// total - 1 candidates, parents first.
Propose eagle2_tree(int top_k, int depth, int total) {
  return [=](const ToyModels& m, Draft& d, DraftRng&) {
    struct Candidate {
      int32_t parent;
      int32_t token;
      double score;
      int32_t context;
    };
    std::vector<Candidate> pool;
    std::vector<int32_t> frontier = {-1};  // -1: the root
    for (int level = 0; level < depth; ++level) {
      std::vector<int32_t> expanded;
      for (const int32_t f : frontier) {
        const int32_t context = f < 0 ? d.context[0] : pool[f].context;
        const auto order = ranked(m.draft_row(context));
        for (int r = 0; r < top_k; ++r) {
          const int32_t x = order[r];
          pool.push_back({f, x, (f < 0 ? 0.0 : pool[f].score) + std::log(m.q[context][x].p), (context % kVocab) * kVocab + x});
          expanded.push_back(static_cast<int32_t>(pool.size()) - 1);
        }
      }
      auto better = [&](int32_t i, int32_t j) { return pool[i].score > pool[j].score || (pool[i].score == pool[j].score && i < j); };
      std::sort(expanded.begin(), expanded.end(), better);
      expanded.resize(std::min<size_t>(expanded.size(), top_k));
      frontier = expanded;
    }
    std::vector<int32_t> keep(pool.size());
    std::iota(keep.begin(), keep.end(), 0);
    std::stable_sort(keep.begin(), keep.end(), [&](int32_t i, int32_t j) { return pool[i].score > pool[j].score; });
    keep.resize(std::min<size_t>(keep.size(), total - 1));
    std::sort(keep.begin(), keep.end());  // creation order: parents first (a child scores below its parent)
    std::vector<int32_t> node_of(pool.size(), -1);
    for (const int32_t i : keep) node_of[i] = d.add(pool[i].parent < 0 ? 0 : node_of[pool[i].parent], pool[i].token);
  };
}

// ---- drafts sampled from q

// A draw from the remaining weights, which it then removes: sampling without replacement.
int32_t draw_without(std::array<double, kVocab>& weights, double u) {
  const double threshold = u * std::accumulate(weights.begin(), weights.end(), 0.0);
  double acc = 0.0;
  int32_t pick = 0;
  for (int32_t x = 0; x < kVocab && acc <= threshold; ++x)
    if (weights[x] > 0.0) acc += weights[pick = x];
  weights[pick] = 0.0;
  return pick;
}

// branching[k] children per node at depth k, drawn from the node's q.
Propose sampled_tree(std::vector<int> branching, DraftSampling sampling) {
  return [=](const ToyModels& m, Draft& d, DraftRng& rng) {
    std::vector<int32_t> level = {0}, next;
    for (const int width : branching) {
      next.clear();
      for (const int32_t node : level) {
        std::array<double, kVocab> weights;
        for (int x = 0; x < kVocab; ++x) weights[x] = m.q[d.context[node]][x].p;
        for (int i = 0; i < width; ++i) {
          const int32_t token = sampling == DraftSampling::with_replacement ? draw(m.q[d.context[node]], rng.next()) : draw_without(weights, rng.next());
          next.push_back(d.add(node, token));
        }
      }
      level.swap(next);
    }
  };
}

// Independent chains sampled from q, then packed like beams.
Propose sampled_beams(int width, int length) {
  return [=](const ToyModels& m, Draft& d, DraftRng& rng) {
    std::vector<int32_t> beams;
    for (int b = 0; b < width; ++b) {
      beams.push_back(d.tokens[0]);
      for (int32_t j = 1, context = d.context[0]; j < length; ++j) {
        beams.push_back(draw(m.q[context], rng.next()));
        context = (context % kVocab) * kVocab + beams.back();
      }
    }
    d.pack(beams, length);
  };
}

// ---- decoding and the chi-square test

enum class Rule { autoregressive, one_hot, coupled, with_q, redrafter_lossy };

struct SamplingCase {
  std::string name;
  Rule rule;
  SamplingParams params;
  Propose propose;
  DraftSampling sampling = DraftSampling::with_replacement;
  bool beams_as_draws = false;  // with_q: packed sampled beams, draws per beam
};

struct Workspace {
  Draft draft;
  std::vector<float> logits;
  std::vector<TokenProb> q_entries;
  std::vector<int32_t> q_offsets;
  VerifyScratch scratch;
  Acceptance acceptance;
  DistributionScratch sample_scratch;
  int64_t n_steps = 0, n_tokens = 0, n_violations = 0;
};

// The first kGenerated tokens after the root, as a base-kVocab number.
int decode_first_tokens(const SamplingCase& c, const ToyModels& m, uint64_t request, Workspace& w) {
  int32_t before = kPromptToken, last = kRoot;
  int n_out = 0, sequence = 0;
  uint64_t generated = 0;  // tokens after the root so far: the coupled rule's position
  auto emit = [&](int32_t token) {
    if (n_out < kGenerated) sequence = sequence * kVocab + token, ++n_out;
    before = last, last = token;
    ++w.n_tokens;
    ++generated;
  };
  for (uint64_t step = 0; n_out < kGenerated; ++step) {
    ++w.n_steps;
    const SamplingContext sampling{c.params, RngKey{kVerifySeed, request, step, 0}};
    if (c.rule == Rule::autoregressive) {
      emit(sample_token(m.target_row(before * kVocab + last), c.params, sampling.step, w.sample_scratch));
      continue;
    }
    Draft& d = w.draft;
    d.start(before, last);
    DraftRng rng{request, step};
    c.propose(m, d, rng);
    const TokenTree tree = TokenTree::from_parents(d.parents);
    w.logits.clear();
    w.q_entries.clear();
    w.q_offsets.assign(1, 0);
    for (int32_t v = 0; v < tree.size(); ++v) {
      const auto row = m.target_row(d.context[v]);
      w.logits.insert(w.logits.end(), row.begin(), row.end());
      w.q_entries.insert(w.q_entries.end(), m.q[d.context[v]].begin(), m.q[d.context[v]].end());
      w.q_offsets.push_back(static_cast<int32_t>(w.q_entries.size()));
    }
    const TargetLogits target{w.logits.data(), kVocab};
    const DraftDistributions q{w.q_entries, w.q_offsets};
    const BeamPaths beams{d.beam_nodes, d.n_beams, d.beam_length};
    Acceptance& a = w.acceptance;
    switch (c.rule) {
      case Rule::one_hot: verify_sampling_one_hot(tree, d.tokens, target, sampling, w.scratch, a); break;
      // The autoregressive rule's key for the token after the root is step `generated` too.
      case Rule::coupled: verify_sampling_coupled(tree, d.tokens, target, c.params, RngKey{kVerifySeed, request, generated, 0}, w.scratch, a); break;
      case Rule::with_q:
        verify_sampling_with_q(tree, d.tokens, target, SampledDrafts{q, c.sampling, c.beams_as_draws ? beams : BeamPaths{}}, sampling, w.scratch, a);
        break;
      case Rule::redrafter_lossy: verify_sampling_redrafter_lossy(tree, d.tokens, target, q, beams, sampling, w.scratch, a); break;
      case Rule::autoregressive: break;
    }
    // Invariants: a root path; under the one-hot and coupled rules the next token is no child of the
    // path's end (a rejected child is never drawn again; a drawn child is accepted).
    for (size_t k = 1; k < a.path.size(); ++k) w.n_violations += tree.parent[a.path[k]] != a.path[k - 1];
    if (c.rule == Rule::one_hot || c.rule == Rule::coupled)
      for (int32_t v = 1; v < tree.size(); ++v) w.n_violations += tree.parent[v] == a.path.back() && d.tokens[v] == a.next_token;
    for (size_t k = 1; k < a.path.size(); ++k) emit(d.tokens[a.path[k]]);
    emit(a.next_token);
  }
  return sequence;
}

// Exact probability of every kGenerated-token sequence after the root, under the same
// filtered target distribution sample_token draws from.
std::vector<double> exact_sequence_probs(const ToyModels& m, const SamplingParams& params) {
  std::vector<double> next(kVocab * kVocab * kVocab, 0.0);  // [context][token]
  DistributionScratch dist;
  for (int32_t c = 0; c < kVocab * kVocab; ++c) {
    target_distribution(m.target_row(c), params, dist);
    for (const TokenProb& tp : dist.dist) next[c * kVocab + tp.token] = tp.p;
  }
  static_assert(kGenerated == 3);
  std::vector<double> probs(kSequences);
  for (int s = 0; s < kSequences; ++s) {
    const int y[kGenerated] = {s / (kVocab * kVocab), s / kVocab % kVocab, s % kVocab};
    int32_t before = kPromptToken, last = kRoot;
    probs[s] = 1.0;
    for (const int token : y) probs[s] *= next[(before * kVocab + last) * kVocab + token], before = last, last = token;
  }
  return probs;
}

struct ChiSquare {
  double statistic = 0.0, critical = 0.0;  // critical value at alpha = 1e-6
  int df = 0;
  int64_t impossible = 0;  // draws of probability-0 outcomes
};

// Pearson's statistic; cells expecting fewer than 5 are pooled into one.
ChiSquare pearson(const std::vector<double>& probs, const std::vector<int64_t>& counts, int64_t n) {
  ChiSquare r;
  double pooled_expected = 0.0;
  int64_t pooled_observed = 0;
  int cells = 0;
  for (size_t i = 0; i < probs.size(); ++i) {
    const double expected = probs[i] * static_cast<double>(n);
    if (probs[i] == 0.0) {
      r.impossible += counts[i];
    } else if (expected < 5.0) {
      pooled_expected += expected;
      pooled_observed += counts[i];
    } else {
      r.statistic += (counts[i] - expected) * (counts[i] - expected) / expected;
      ++cells;
    }
  }
  if (pooled_expected > 0.0) {
    r.statistic += (pooled_observed - pooled_expected) * (pooled_observed - pooled_expected) / pooled_expected;
    ++cells;
  }
  r.df = cells - 1;
  const double h = 2.0 / (9.0 * r.df);  // Wilson-Hilferty
  r.critical = r.df * std::pow(1.0 - h + kAlphaZ * std::sqrt(h), 3);
  return r;
}

struct CaseResult {
  ChiSquare joint;
  std::array<ChiSquare, kGenerated> marginal;  // of each generated position
  Workspace stats;
};

CaseResult run_case(const SamplingCase& c, const ToyModels& m) {
  const auto t0 = std::chrono::steady_clock::now();
  CaseResult r;
  std::vector<int64_t> counts(kSequences, 0);
  for (int64_t request = 0; request < kSamples; ++request) ++counts[decode_first_tokens(c, m, static_cast<uint64_t>(request), r.stats)];
  const std::vector<double> probs = exact_sequence_probs(m, c.params);
  r.joint = pearson(probs, counts, kSamples);
  for (int pos = 0; pos < kGenerated; ++pos) {
    std::vector<double> p(kVocab, 0.0);
    std::vector<int64_t> n(kVocab, 0);
    const int divisor = pos == 0 ? kVocab * kVocab : pos == 1 ? kVocab : 1;
    for (int s = 0; s < kSequences; ++s) p[s / divisor % kVocab] += probs[s], n[s / divisor % kVocab] += counts[s];
    r.marginal[pos] = pearson(p, n, kSamples);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-44s chi2 joint %7.1f (df %3d, crit %5.1f)  marginals %5.1f %5.1f %5.1f (crit %4.1f)  tokens/step %.2f  %.1f s\n", c.name.c_str(),
              r.joint.statistic, r.joint.df, r.joint.critical, r.marginal[0].statistic, r.marginal[1].statistic, r.marginal[2].statistic,
              r.marginal[0].critical, static_cast<double>(r.stats.n_tokens) / r.stats.n_steps, seconds);
  return r;
}

void require_exact(const SamplingCase& c, const ToyModels& m) {
  const CaseResult r = run_case(c, m);
  INFO(c.name);
  CHECK(r.stats.n_violations == 0);
  CHECK(r.joint.impossible == 0);
  CHECK(r.joint.statistic < r.joint.critical);
  for (const ChiSquare& marginal : r.marginal) CHECK(marginal.statistic < marginal.critical);
}

SamplingParams params(float temperature, int top_k = 0, float top_p = 1.0f) { return SamplingParams{temperature, top_k, top_p}; }
SampledDrafts independent_draws(DraftDistributions q) { return {q, DraftSampling::with_replacement, BeamPaths{}}; }

}  // namespace

TEST_CASE("sampling harness: autoregressive sampling matches the enumerated distribution", "[verify][sampling]") {
  const ToyModels m = make_toy_models();
  require_exact({"autoregressive, T 0.9, top-k 5, top-p 0.95", Rule::autoregressive, params(0.9f, 5, 0.95f), {}}, m);
}

TEST_CASE("sampling: the one-hot rule is exact for chains, beams, Medusa and EAGLE trees", "[verify][sampling]") {
  const ToyModels m = make_toy_models();
  require_exact({"one-hot, top-1 chain of 3, T 1", Rule::one_hot, params(1.0f), chain_of_top1(3)}, m);
  require_exact({"one-hot, beam search 4x4 packed, T 0.7", Rule::one_hot, params(0.7f), beam_search(4, 4)}, m);
  require_exact({"one-hot, Medusa tree (10 nodes), T 1, top-k 4", Rule::one_hot, params(1.0f, 4), medusa_tree()}, m);
  require_exact({"one-hot, EAGLE-2 tree (k3 d3 n10), T 1.3, top-p .85", Rule::one_hot, params(1.3f, 0, 0.85f), eagle2_tree(3, 3, 10)}, m);
}

TEST_CASE("sampling: the coupled rule is exact, and commits autoregressive sampling's tokens", "[verify][sampling]") {
  const ToyModels m = make_toy_models();
  require_exact({"coupled, top-1 chain of 3, T 1", Rule::coupled, params(1.0f), chain_of_top1(3)}, m);
  require_exact({"coupled, EAGLE-2 tree (k3 d3 n10), T 0.8, top-k 4", Rule::coupled, params(0.8f, 4), eagle2_tree(3, 3, 10)}, m);
  // Bit for bit: request by request, the same first tokens as the autoregressive rule's.
  Workspace w;
  for (const SamplingCase& c : {SamplingCase{"coupled beams", Rule::coupled, params(0.7f), beam_search(4, 4)},
                                SamplingCase{"coupled Medusa", Rule::coupled, params(1.0f, 0, 0.9f), medusa_tree()}}) {
    const SamplingCase autoregressive{"autoregressive", Rule::autoregressive, c.params, {}};
    int64_t differ = 0;
    for (uint64_t request = 0; request < 20'000; ++request)
      differ += decode_first_tokens(c, m, request, w) != decode_first_tokens(autoregressive, m, request, w);
    INFO(c.name);
    CHECK(differ == 0);
  }
  CHECK(w.n_violations == 0);
}

TEST_CASE("sampling: the multi-round rule is exact for drafts sampled from q", "[verify][sampling]") {
  const ToyModels m = make_toy_models();
  require_exact({"with q, sampled chain of 3, T 1", Rule::with_q, params(1.0f), sampled_tree({1, 1, 1}, DraftSampling::with_replacement)}, m);
  require_exact({"with q, i.i.d. tree 3-2-1, T 0.8, top-k 5", Rule::with_q, params(0.8f, 5), sampled_tree({3, 2, 1}, DraftSampling::with_replacement)}, m);
  require_exact({"with q, no-replacement tree 3-2-1, T 1, top-p .9", Rule::with_q, params(1.0f, 0, 0.9f),
                 sampled_tree({3, 2, 1}, DraftSampling::without_replacement), DraftSampling::without_replacement},
                m);
  require_exact({"with q, sampled beams 4x4 packed, T 1", Rule::with_q, params(1.0f), sampled_beams(4, 4), DraftSampling::with_replacement, true}, m);
}

TEST_CASE("sampling: the ReDrafter reference rule, and sampled beams tried once per packed child, are biased", "[verify][sampling]") {
  const ToyModels m = make_toy_models();
  const CaseResult lossy = run_case({"LOSSY redrafter rule, beam search 4x4, T 1", Rule::redrafter_lossy, params(1.0f), beam_search(4, 4)}, m);
  CHECK(lossy.stats.n_violations == 0);
  CHECK(lossy.joint.statistic > 100.0 * lossy.joint.critical);
  // Packing merges beams that drew the same token; trying such a child once instead of once
  // per beam skips a residual update. Why SampledDrafts takes the beams. (Chi-square ~4200 at
  // 1M samples, ~610 expected at 100k.)
  const CaseResult naive = run_case({"BIASED: sampled beams 4x4, each child once", Rule::with_q, params(1.0f), sampled_beams(4, 4)}, m);
  CHECK(naive.joint.statistic > naive.joint.critical);
}

TEST_CASE("sampling: a root-only tree draws exactly what sample_token draws", "[verify]") {
  // An empty draft and the autoregressive baseline use the same uniform, so they agree bit for bit.
  const ToyModels m = make_toy_models();
  VerifyScratch scratch;
  Acceptance a;
  DistributionScratch baseline_scratch;
  const TokenTree root_only = TokenTree::chain(1);
  const std::vector<int32_t> root = {kRoot}, beam_nodes = {0}, q_offsets = {0, kVocab};
  for (int i = 0; i < 3000; ++i) {
    const SamplingParams p = params(0.3f + 0.2f * static_cast<float>(i % 7), i % 3 == 0 ? 3 : 0, i % 4 == 0 ? 0.7f : 1.0f);
    const int32_t context = i % (kVocab * kVocab);
    const SamplingContext sampling{p, RngKey{11, static_cast<uint64_t>(i), static_cast<uint64_t>(i) / 5, 0}};
    const TargetLogits target{m.target_row(context).data(), kVocab};
    const DraftDistributions q{m.q[context], q_offsets};
    const int32_t expected = sample_token(m.target_row(context), p, sampling.step, baseline_scratch);
    verify_sampling_one_hot(root_only, root, target, sampling, scratch, a);
    REQUIRE((a.next_token == expected && a.path.size() == 1));
    verify_sampling_with_q(root_only, root, target, independent_draws(q), sampling, scratch, a);
    REQUIRE((a.next_token == expected && a.path.size() == 1));
    verify_sampling_redrafter_lossy(root_only, root, target, q, BeamPaths{beam_nodes, 1, 1}, sampling, scratch, a);
    REQUIRE((a.next_token == expected && a.path.size() == 1));
  }
}

TEST_CASE("sampling: certain drafts are always accepted, filtered ones never", "[verify]") {
  // Every node: token 2 dominates; top-k 1 makes it certain and every other token impossible.
  // Node 1 (token 3) must be rejected, node 2 (token 2) and its child accepted, next token 2.
  const std::vector<float> logits = {0, 1, 9, 2, 0, 1, 9, 2, 0, 1, 9, 2, 0, 1, 9, 2};
  const TokenTree tree = TokenTree::from_parents(std::vector<int32_t>{-1, 0, 0, 2});
  const std::vector<int32_t> tokens = {0, 3, 2, 2}, q_offsets = {0, 4, 8, 12, 16};
  std::vector<TokenProb> q;  // uniform at every node
  for (int i = 0; i < 16; ++i) q.push_back({i % 4, 0.25});
  VerifyScratch scratch;
  Acceptance a;
  for (uint64_t request = 0; request < 500; ++request) {
    const SamplingContext sampling{params(1.0f, 1), RngKey{5, request, 0, 0}};
    verify_sampling_one_hot(tree, tokens, TargetLogits{logits.data(), 4}, sampling, scratch, a);
    REQUIRE((a.path == std::vector<int32_t>{0, 2, 3} && a.next_token == 2));
    verify_sampling_with_q(tree, tokens, TargetLogits{logits.data(), 4}, independent_draws({q, q_offsets}), sampling, scratch, a);
    REQUIRE((a.path == std::vector<int32_t>{0, 2, 3} && a.next_token == 2));
  }
}

TEST_CASE("sampling with q: an entry of probability 0 is ignored, even for a token q lists again", "[verify]") {
  // q lists token 1 at 0 and again at 0.4: it must count once, as in q without the zero
  // entry. Counted twice, a rejection's residual max(p - q, 0) would take q(1) off twice
  // (and a without-replacement q_2 would re-add it twice), which changes some draws: before
  // the fix this failed within the first three requests.
  const std::vector<float> logits = {1, 2, 1.5f, 0.5f, 1, 2, 1.5f, 0.5f, 1, 2, 1.5f, 0.5f};
  const TokenTree tree = TokenTree::from_parents(std::vector<int32_t>{-1, 0, 0});
  const std::vector<int32_t> tokens = {0, 2, 1}, q_offsets = {0, 3, 3, 3}, clean_offsets = {0, 2, 2, 2};
  const std::vector<TokenProb> q = {{1, 0.0}, {1, 0.4}, {2, 0.6}}, clean = {{1, 0.4}, {2, 0.6}};
  VerifyScratch scratch;
  Acceptance a, b;
  for (const DraftSampling mode : {DraftSampling::with_replacement, DraftSampling::without_replacement}) {
    for (uint64_t request = 0; request < 2000; ++request) {
      const SamplingContext sampling{params(1.0f, 0), RngKey{9, request, 0, 0}};
      const TargetLogits target{logits.data(), 4};
      verify_sampling_with_q(tree, tokens, target, SampledDrafts{{q, q_offsets}, mode, {}}, sampling, scratch, a);
      verify_sampling_with_q(tree, tokens, target, SampledDrafts{{clean, clean_offsets}, mode, {}}, sampling, scratch, b);
      REQUIRE((a.path == b.path && a.next_token == b.next_token));
    }
  }
}

TEST_CASE("sampling: drafts drawn from the target itself are always accepted", "[verify]") {
  // q == p makes min(1, p / q) = 1: a chain of any tokens in the support is accepted whole.
  const ToyModels m = make_toy_models();
  Draft d;
  d.start(kPromptToken, kRoot);
  for (const int32_t token : {1, 5, 0, 3}) d.add(static_cast<int32_t>(d.tokens.size()) - 1, token);
  const TokenTree tree = TokenTree::from_parents(d.parents);
  std::vector<float> logits;
  std::vector<TokenProb> q;
  DistributionScratch dist;
  std::vector<int32_t> q_offsets = {0};
  const SamplingParams p = params(0.8f);
  for (const int32_t context : d.context) {
    logits.insert(logits.end(), m.target_row(context).begin(), m.target_row(context).end());
    target_distribution(m.target_row(context), p, dist);
    q.insert(q.end(), dist.dist.begin(), dist.dist.end());
    q_offsets.push_back(static_cast<int32_t>(q.size()));
  }
  VerifyScratch scratch;
  Acceptance a;
  for (uint64_t request = 0; request < 2000; ++request) {
    verify_sampling_with_q(tree, d.tokens, TargetLogits{logits.data(), kVocab}, independent_draws({q, q_offsets}), SamplingContext{p, RngKey{9, request, 0, 0}},
                           scratch, a);
    REQUIRE(a.n_accepted() == 4);
  }
}
