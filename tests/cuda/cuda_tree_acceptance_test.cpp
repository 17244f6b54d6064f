// The CUDA acceptance walks against the engine's verify_greedy, verify_sampling_one_hot and
// verify_sampling_with_q; skipped (exit 77) without a GPU. Greedy: the same path and next
// token exactly. One-hot sampling: the device runs the emulated block program's arithmetic
// in its order (--fmad=false), so it equals the emulation bit for bit. Against the host: with top-k /
// top-p, exactly; without, whose masses the kernel sums in another order, a tree may differ
// only where a uniform fell within rounding of its threshold (the emulation test classifies
// those): at most 1% of trees, and none is expected. Drafts from q (verify_sampling_with_q,
// sparse q over each node's children and a few other tokens): the emulation bit for bit, and
// the host's decisions exactly, with and without replacement and top-k / top-p, and with
// packed sampled beams (random walks down the trees).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "engine/decoding/verify.h"
#include "kernels/cuda/grid_emulator.h"
#include "kernels/cuda/tree_acceptance_block.h"
#include "kernels/cuda/tree_acceptance_cuda.h"
#include "kernels/cuda/tree_acceptance_q_block.h"
#include "kernels/fixtures/random_blocks.h"
#include "tests/cuda/gpu_test_support.h"

using namespace draftbench;

namespace {

// Random trees, CSR-packed: random parents (a fifth of them root copies), each draft the
// argmax at its parent, a draw from the target there, or any token.
struct PackedTrees {
  int64_t n_vocab = 0;
  std::vector<int32_t> parents, tokens, offsets{0};
  std::vector<float> logits;
  std::vector<TokenTree> trees;

  PackedTrees(int64_t n_trees, int64_t vocab, int32_t max_nodes, float temperature, std::mt19937& rng) : n_vocab(vocab) {
    DistributionScratch scratch;
    for (int64_t b = 0; b < n_trees; ++b) {
      const int32_t n = std::uniform_int_distribution<int32_t>(1, max_nodes)(rng), first = offsets.back();
      const auto l = random_activations(n * n_vocab, rng, 3.0f);
      logits.insert(logits.end(), l.begin(), l.end());
      std::vector<int32_t> tree_parents{-1};
      tokens.push_back(static_cast<int32_t>(rng() % n_vocab));
      for (int32_t v = 1; v < n; ++v) {
        const int32_t parent = rng() % 5 == 0 ? -1 : std::uniform_int_distribution<int32_t>(0, v - 1)(rng);
        tree_parents.push_back(parent);
        if (parent < 0) {
          tokens.push_back(tokens[static_cast<size_t>(first)]);
          continue;
        }
        const int32_t canonical = tree_parents[parent] < 0 ? 0 : parent;
        const std::span<const float> row(logits.data() + (first + canonical) * n_vocab, static_cast<size_t>(n_vocab));
        const unsigned kind = rng() % 3;
        tokens.push_back(kind == 0   ? argmax(row)
                         : kind == 1 ? sample_token(row, SamplingParams{temperature}, RngKey{rng()}, scratch)
                                     : static_cast<int32_t>(rng() % n_vocab));
      }
      parents.insert(parents.end(), tree_parents.begin(), tree_parents.end());
      offsets.push_back(first + n);
      trees.push_back(TokenTree::from_parents(tree_parents));
    }
  }
  int64_t size() const { return static_cast<int64_t>(trees.size()); }
  std::span<const int32_t> tokens_of(int64_t b) const {
    return std::span<const int32_t>(tokens).subspan(static_cast<size_t>(offsets[b]), static_cast<size_t>(offsets[b + 1] - offsets[b]));
  }
  TargetLogits logits_of(int64_t b) const { return {logits.data() + offsets[b] * n_vocab, n_vocab}; }
  cuda::TreeBatch view() const { return {logits.data(), parents.data(), tokens.data(), offsets.data(), n_vocab}; }
};

// A walk's outputs, downloaded.
struct Walk {
  std::vector<int32_t> path, path_length, next_token;
  std::vector<int32_t> path_of(const PackedTrees& trees, int64_t b) const {
    const auto begin = path.begin() + trees.offsets[b];
    return std::vector<int32_t>(begin, begin + (path_length[b] > 0 ? path_length[b] : 0));
  }
};

bool same_result(const Walk& walk, const PackedTrees& trees, int64_t b, const Acceptance& want) {
  return walk.path_of(trees, b) == want.path && walk.next_token[b] == want.next_token;
}

bool same_walk(const Walk& a, const Walk& b, const PackedTrees& trees, int64_t tree) {
  return a.path_of(trees, tree) == b.path_of(trees, tree) && a.next_token[tree] == b.next_token[tree];
}

// program(block, out, shared): a walk's block program, run by the grid emulator over the batch.
template <class Shared, class Program>
Walk emulate_walk(const PackedTrees& trees, Program&& program) {
  const auto n = static_cast<size_t>(trees.size());
  Walk walk{std::vector<int32_t>(trees.parents.size()), std::vector<int32_t>(n), std::vector<int32_t>(n)};
  const cuda::AcceptanceOut out{walk.path.data(), walk.path_length.data(), walk.next_token.data()};
  const cuda::Launch launch = cuda::tree_acceptance_launch(trees.size());
  cuda::emulate_blocks(launch.grid(), launch.block, [&](const cuda::EmulatedBlock& block) {
    auto shared = std::make_unique<Shared>();
    program(block, out, *shared);
  });
  return walk;
}

// Sparse q per node, CSR over the batch's rows: its children's tokens (root copies' children
// count as the root's) and a few others, of random probability. valid[b]: tree b's children
// carry distinct tokens under every node, as drafts drawn without replacement do.
struct ChildrenQ {
  std::vector<TokenProb> entries;
  std::vector<int32_t> tokens, offsets{0};
  std::vector<double> probs;
  std::vector<bool> distinct_siblings;

  ChildrenQ(const PackedTrees& trees, std::mt19937& rng) {
    for (int64_t b = 0; b < trees.size(); ++b) {
      const int32_t first = trees.offsets[b], n = trees.offsets[b + 1] - first;
      const int32_t* parents = trees.parents.data() + first;
      bool distinct = true;
      for (int32_t v = 0; v < n; ++v) {
        std::vector<int32_t> listed;
        for (int32_t c = v + 1; c < n && (v == 0 || parents[v] >= 0); ++c) {
          if (parents[c] < 0 || (parents[parents[c]] < 0 ? 0 : parents[c]) != v) continue;
          const int32_t token = trees.tokens[static_cast<size_t>(first + c)];
          distinct = distinct && std::find(listed.begin(), listed.end(), token) == listed.end();
          listed.push_back(token);
        }
        for (int extra = 0; extra < 3; ++extra) listed.push_back(static_cast<int32_t>(rng() % trees.n_vocab));
        std::sort(listed.begin(), listed.end());
        listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
        std::shuffle(listed.begin(), listed.end(), rng);
        for (const int32_t token : listed) entries.push_back({token, std::uniform_real_distribution<double>(0.01, 1.0)(rng)});
        offsets.push_back(static_cast<int32_t>(entries.size()));
      }
      distinct_siblings.push_back(distinct);
    }
    for (const TokenProb& e : entries) tokens.push_back(e.token), probs.push_back(e.p);
  }
  DraftDistributions of_tree(const PackedTrees& trees, int64_t b) const {
    return {entries, std::span<const int32_t>(offsets).subspan(static_cast<size_t>(trees.offsets[b]), trees.trees[b].size() + 1)};
  }
};

}  // namespace

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  std::mt19937 rng(73);
  int64_t n_trees = 0, n_differing = 0;
  const std::vector<int64_t> vocabularies = gpu_test::quick() ? std::vector<int64_t>{2, 50, 4096} : std::vector<int64_t>{2, 50, 32000, 262144};
  for (const int64_t n_vocab : vocabularies) {
    for (const float temperature : {0.05f, 1.0f}) {
      const PackedTrees trees(16, n_vocab, n_vocab > 50000 ? 8 : 40, temperature, rng);
      const int64_t n = trees.size();
      const std::vector<int32_t> zeros(trees.parents.size()), per_tree(static_cast<size_t>(n));
      gpu_test::DeviceBuffer<float> dlogits(trees.logits), dweights{std::vector<float>(static_cast<size_t>(n * n_vocab))};
      gpu_test::DeviceBuffer<int32_t> dparents(trees.parents), dtokens(trees.tokens), doffsets(trees.offsets), dpath(zeros), dlength(per_tree), dnext(per_tree);
      const auto download = [&] { return Walk{dpath.download(), dlength.download(), dnext.download()}; };

      gpu_test::check_cuda(
          cuda::verify_greedy(dlogits.data(), dparents.data(), dtokens.data(), doffsets.data(), n, n_vocab, dpath.data(), dlength.data(), dnext.data()),
          "verify_greedy launch");
      const Walk greedy = download();
      for (int64_t b = 0; b < n; ++b) {
        Acceptance want;
        verify_greedy(trees.trees[b], trees.tokens_of(b), trees.logits_of(b), want);
        mismatches.check(same_result(greedy, trees, b, want), "greedy path and next token", static_cast<size_t>(b), greedy.next_token[b], want.next_token);
      }

      std::vector<RngKey> keys;
      for (int64_t b = 0; b < n; ++b) keys.push_back(RngKey{99, static_cast<uint64_t>(b), 5});
      gpu_test::DeviceBuffer<RngKey> dkeys(keys);
      gpu_test::DeviceBuffer<uint64_t> dorder{std::vector<uint64_t>(static_cast<size_t>(n * n_vocab))};
      // Unfiltered; top-k within the best 64; top-p (past the best 64 at T = 1 and 32k tokens); both, k past 64.
      for (const cuda::TargetFilter filter : std::vector<cuda::TargetFilter>{{}, {40, 1.0f}, {0, 0.9f}, {200, 0.95f}}) {
        const cuda::TargetSampling sampling{temperature, filter.top_k, filter.top_p};
        gpu_test::check_cuda(cuda::verify_sampling_one_hot(dlogits.data(), dparents.data(), dtokens.data(), doffsets.data(), n, n_vocab, sampling, dkeys.data(),
                                                           dweights.data(), dorder.data(), dpath.data(), dlength.data(), dnext.data()),
                             "verify_sampling_one_hot launch");
        const Walk sampled = download();
        // The same block program on the CPU.
        std::vector<float> weights(static_cast<size_t>(n * n_vocab));
        std::vector<uint64_t> order(weights.size());
        const Walk emulated = emulate_walk<cuda::OneHotAcceptanceShared>(trees, [&](const auto& block, cuda::AcceptanceOut out, auto& shared) {
          cuda::one_hot_acceptance_block(
              block, cuda::OneHotAcceptanceArgs{trees.view(), 1.0f / temperature, filter, keys.data(), weights.data(), order.data(), out}, shared);
        });
        VerifyScratch scratch;
        for (int64_t b = 0; b < n; ++b) {
          mismatches.check(same_walk(sampled, emulated, trees, b), "one-hot sampling, device vs emulation", static_cast<size_t>(b), sampled.next_token[b],
                           emulated.next_token[b]);
          Acceptance want;
          verify_sampling_one_hot(trees.trees[b], trees.tokens_of(b), trees.logits_of(b),
                                  SamplingContext{SamplingParams{temperature, filter.top_k, filter.top_p}, keys[b]}, scratch, want);
          if (filter.on()) {
            mismatches.check(same_result(sampled, trees, b, want), "one-hot sampling with top-k / top-p, device vs host", static_cast<size_t>(b),
                             sampled.next_token[b], want.next_token);
            continue;
          }
          ++n_trees;
          if (!same_result(sampled, trees, b, want)) {
            ++n_differing;
            std::printf("one-hot sampling differs from the host at tree %lld (n_vocab %lld, T %g): next token %d, host %d\n", static_cast<long long>(b),
                        static_cast<long long>(n_vocab), temperature, sampled.next_token[b], want.next_token);
          }
        }
      }

      // Drafts from q: the device, its emulation and the host, exactly, with and without
      // replacement (without: trees with repeated sibling tokens, which the host rejects, only
      // against the emulation, which leaves them untaken as the device must).
      const ChildrenQ q(trees, rng);
      gpu_test::DeviceBuffer<int32_t> dq_tokens(q.tokens), dq_offsets(q.offsets);
      gpu_test::DeviceBuffer<double> dq_probs(q.probs), dresidual{std::vector<double>(static_cast<size_t>(n * n_vocab))},
          dq_by_token{std::vector<double>(static_cast<size_t>(n * n_vocab), 7.0)};
      // The device's walk for drafts `dq`, and its emulation's for `hq` (the same drafts on the host).
      const auto walks_q = [&](const cuda::SampledDraftQ& dq, const cuda::DraftQ& hq, const cuda::TargetFilter& filter) {
        gpu_test::check_cuda(cuda::verify_sampling_with_q(dlogits.data(), dparents.data(), dtokens.data(), doffsets.data(), n, n_vocab,
                                                          cuda::TargetSampling{temperature, filter.top_k, filter.top_p}, dq, dkeys.data(), dweights.data(),
                                                          dorder.data(), dresidual.data(), dq_by_token.data(), dpath.data(), dlength.data(), dnext.data()),
                             "verify_sampling_with_q launch");
        Walk sampled = download();
        std::vector<float> weights(static_cast<size_t>(n * n_vocab));
        std::vector<uint64_t> order(weights.size());
        std::vector<double> residual(weights.size()), q_by_token(weights.size(), 7.0);
        Walk emulated = emulate_walk<cuda::QAcceptanceShared>(trees, [&](const auto& block, cuda::AcceptanceOut out, auto& shared) {
          cuda::q_acceptance_block(block,
                                   cuda::QAcceptanceArgs{trees.view(), 1.0f / temperature, filter, hq, keys.data(), weights.data(), order.data(),
                                                         residual.data(), q_by_token.data(), out},
                                   shared);
        });
        return std::pair{std::move(sampled), std::move(emulated)};
      };
      for (const bool without_replacement : {false, true}) {
        for (const cuda::TargetFilter filter : std::vector<cuda::TargetFilter>{{}, {40, 1.0f}, {200, 0.95f}}) {
          const DraftSampling sampling = without_replacement ? DraftSampling::without_replacement : DraftSampling::with_replacement;
          const auto [sampled, emulated] = walks_q(cuda::SampledDraftQ{dq_tokens.data(), dq_probs.data(), dq_offsets.data(), without_replacement},
                                                   cuda::DraftQ{q.tokens.data(), q.probs.data(), q.offsets.data(), without_replacement}, filter);
          VerifyScratch scratch;
          for (int64_t b = 0; b < n; ++b) {
            mismatches.check(same_walk(sampled, emulated, trees, b), "sampling with q, device vs emulation", static_cast<size_t>(b), sampled.next_token[b],
                             emulated.next_token[b]);
            if (without_replacement && !q.distinct_siblings[b]) continue;
            Acceptance want;
            verify_sampling_with_q(trees.trees[b], trees.tokens_of(b), trees.logits_of(b), SampledDrafts{q.of_tree(trees, b), sampling, {}},
                                   SamplingContext{SamplingParams{temperature, filter.top_k, filter.top_p}, keys[b]}, scratch, want);
            mismatches.check(same_result(sampled, trees, b, want), "sampling with q, device vs host", static_cast<size_t>(b), sampled.next_token[b],
                             want.next_token);
          }
        }
      }
      // Packed sampled beams: random walks down each tree from the root or a root copy (a walk
      // that runs out of children leaves the tree, which is then not taken). The device against
      // its emulation always, and against the host where the beams are paths.
      constexpr int32_t kBeams = 4, kBeamLength = 3;
      std::vector<int32_t> beam_nodes;
      for (int64_t b = 0; b < n; ++b) {
        const int32_t first = trees.offsets[b], size = trees.offsets[b + 1] - first;
        const int32_t* parents = trees.parents.data() + first;
        for (int32_t beam = 0; beam < kBeams; ++beam) {
          int32_t at = 0;
          for (int32_t v = 1; v < size; ++v)
            if (parents[v] < 0 && rng() % 2 == 0) at = v;
          beam_nodes.push_back(at);
          for (int32_t j = 1; j < kBeamLength; ++j) {
            std::vector<int32_t> children;
            for (int32_t v = 1; at >= 0 && v < size; ++v)
              if (cuda::is_child_of(parents, v, cuda::canonical_node(parents, at))) children.push_back(v);
            at = children.empty() ? size : children[rng() % children.size()];
            beam_nodes.push_back(at);
            if (at == size) at = -1;
          }
        }
      }
      gpu_test::DeviceBuffer<int32_t> dbeams(beam_nodes);
      for (const cuda::TargetFilter filter : std::vector<cuda::TargetFilter>{{}, {40, 1.0f}}) {
        const auto [sampled, emulated] =
            walks_q(cuda::SampledDraftQ{dq_tokens.data(), dq_probs.data(), dq_offsets.data(), false, dbeams.data(), kBeams, kBeamLength},
                    cuda::DraftQ{q.tokens.data(), q.probs.data(), q.offsets.data(), false, beam_nodes.data(), kBeams, kBeamLength}, filter);
        VerifyScratch scratch;
        for (int64_t b = 0; b < n; ++b) {
          mismatches.check(same_walk(sampled, emulated, trees, b), "sampled beams, device vs emulation", static_cast<size_t>(b), sampled.next_token[b],
                           emulated.next_token[b]);
          const std::span<const int32_t> tree_beams(beam_nodes.data() + b * kBeams * kBeamLength, kBeams * kBeamLength);
          if (!cuda::beams_valid(cuda::TreeBeams{tree_beams.data(), kBeams, kBeamLength}, trees.parents.data() + trees.offsets[b],
                                 trees.offsets[b + 1] - trees.offsets[b]))
            continue;
          Acceptance want;
          verify_sampling_with_q(trees.trees[b], trees.tokens_of(b), trees.logits_of(b),
                                 SampledDrafts{q.of_tree(trees, b), DraftSampling::with_replacement, BeamPaths{tree_beams, kBeams, kBeamLength}},
                                 SamplingContext{SamplingParams{temperature, filter.top_k, filter.top_p}, keys[b]}, scratch, want);
          mismatches.check(same_result(sampled, trees, b, want), "sampled beams, device vs host", static_cast<size_t>(b), sampled.next_token[b],
                           want.next_token);
        }
      }
      // Beams are independent draws: without replacement, or without their nodes, the call is refused.
      for (const cuda::SampledDraftQ bad : {cuda::SampledDraftQ{dq_tokens.data(), dq_probs.data(), dq_offsets.data(), true, dbeams.data(), kBeams, kBeamLength},
                                            cuda::SampledDraftQ{dq_tokens.data(), dq_probs.data(), dq_offsets.data(), false, nullptr, kBeams, kBeamLength}})
        mismatches.check(cuda::verify_sampling_with_q(dlogits.data(), dparents.data(), dtokens.data(), doffsets.data(), n, n_vocab,
                                                      cuda::TargetSampling{temperature}, bad, dkeys.data(), dweights.data(), dorder.data(), dresidual.data(),
                                                      dq_by_token.data(), dpath.data(), dlength.data(), dnext.data()) == cudaErrorInvalidValue,
                         "sampling with q refuses beams without replacement or without nodes", 0, 0, 0);
    }
  }
  mismatches.check(n_differing * 100 <= n_trees, "one-hot sampling, trees differing from the host (at most 1%)", 0, static_cast<double>(n_differing),
                   static_cast<double>(n_trees / 100));
  return mismatches.finish("tree acceptance");
}
