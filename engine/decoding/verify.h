// Verification and acceptance of a drafted token tree (engine/DESIGN.md §5), as pure functions of
// the tree, the target's logits at its nodes and (for sampling) the uniforms of a
// counter-based key: no model, no batch, no global state.
//
// Shapes (engine/README.md glossary):
//   tree, tokens  [n_nodes]; node 0 is the root — the token the target already chose, not a
//                 draft — and every other node a draft token, parents first. Nodes other than
//                 0 with parent -1 are copies of the root (beams verified without tree
//                 attention, engine/DESIGN.md §3): they must carry the root's token and stand for
//                 node 0; their children count as the root's children.
//   target        [n_nodes][n_vocab] logits; row v is the target's prediction AT node v, i.e.
//                 of v's children (and of the bonus token when the path ends at v).
//   draft_q       per node, the draft distribution that node's children were drawn from.
//
// Every rule returns the accepted path (root first) and the next token (the bonus token, or
// the correction sampled after a rejection), which becomes the next step's root.
//
// Randomness: the sampling rules take RngKey{seed, request, step, ·}; the uniform for
// trying the j-th draw below node v is uniform({seed, request, step, v}, 1 + j), and the
// next token drawn at node v uses uniform({seed, request, step, v}, 0) — for a root-only
// tree that is exactly sample_token's draw, so an empty draft reproduces the baseline's
// samples bit for bit. No draw depends on the batch or on other nodes' outcomes.
//
// Allocation: greedy verification uses only `out.path`; the sampling rules use a
// VerifyScratch the caller keeps (it holds two [n_vocab] arrays, so keep one per decoder,
// not per sequence). Once both have seen the largest tree and vocabulary, no call allocates.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/sampling/counter_rng.h"
#include "engine/decoding/sampling.h"
#include "kernels/attention/token_tree.h"

namespace draftbench {

// Logits produced on first use per node: a large tree's verification visits only a few
// nodes (the accepted path and the siblings tried on it), so the decoder computes the
// target's LM head for those alone (engine/decoding/node_logits.h). row() must return the
// same values whenever called; argmax(node) must equal argmax(row(node)) exactly, and may
// be found without the row (greedy verification reads nothing else).
class LazyLogits {
 public:
  virtual ~LazyLogits() = default;
  virtual std::span<const float> row(int32_t node) const = 0;
  virtual int32_t argmax(int32_t node) const = 0;
};

// The target's logits at every tree node: row-major [n_nodes][n_vocab] in `data`, or
// computed on demand by `lazy`. Not owned.
struct TargetLogits {
  const float* data = nullptr;
  int64_t n_vocab = 0;
  const LazyLogits* lazy = nullptr;
  bool valid() const { return (data != nullptr || lazy != nullptr) && n_vocab > 0; }
  std::span<const float> at(int32_t node) const {
    if (lazy) return lazy->row(node);
    return {data + static_cast<int64_t>(node) * n_vocab, static_cast<size_t>(n_vocab)};
  }
  // The first index of the largest logit at `node` (as `argmax`).
  int32_t argmax_at(int32_t node) const { return lazy ? lazy->argmax(node) : argmax(at(node)); }
};

// Draft distributions per node as sparse (token, probability) lists, CSR-packed and not
// owned: node v's q is entries[offsets[v] .. offsets[v + 1]), the distribution v's children
// were drawn from (empty for nodes without children). Target ids (a reduced draft
// vocabulary maps its ids first), each at most once; probabilities need only be
// proportional (they are renormalised here). Sparse q makes a rejection cost O(|q|).
struct DraftDistributions {
  std::span<const TokenProb> entries;
  std::span<const int32_t> offsets;  // [n_nodes + 1]
  std::span<const TokenProb> at(int32_t node) const {
    return entries.subspan(static_cast<size_t>(offsets[node]), static_cast<size_t>(offsets[node + 1] - offsets[node]));
  }
};

// Beams laid over the packed tree (ReDrafter, engine/DESIGN.md §3): nodes[b * beam_length + j] is
// the node holding beam b's j-th token, j = 0 being the root (node 0 or a root copy).
// Shape [n_beams][beam_length]; exactly PackedBeams::unpacker.
struct BeamPaths {
  std::span<const int32_t> nodes;
  int32_t n_beams = 0;
  int32_t beam_length = 0;  // tokens per beam including the root
  int32_t node(int32_t beam, int32_t position) const { return nodes[static_cast<size_t>(beam) * beam_length + position]; }
};

// How the siblings below a node were drawn from that node's q.
enum class DraftSampling {
  with_replacement,     // independent draws (SpecInfer); equal tokens may repeat as siblings
  without_replacement,  // each draw excludes the earlier ones (EAGLE-1)
};

// The drafts of verify_sampling_with_q. Without beams, the draws below a node are its
// children in node order. With beams (sampled, not beam-searched, and packed), the draws
// below node v are, in beam order, the next node of every beam through v — a child that
// several beams drew counts once per beam, which is what keeps packed sampled beams exact.
struct SampledDrafts {
  DraftDistributions q;
  DraftSampling sampling = DraftSampling::with_replacement;
  BeamPaths beams;  // n_beams == 0: children in node order
};

// What a sampling rule needs besides the tree.
struct SamplingContext {
  SamplingParams params;  // temperature > 0; top-k / top-p filter the target as in sample_token
  RngKey step;            // seed, request and step of this verification; .node is set per tree node
};

struct Acceptance {
  std::vector<int32_t> path;                                                    // accepted nodes from the root (node 0) down, root included
  int32_t next_token = -1;                                                      // the bonus or correction token chosen at path.back()
  int32_t n_accepted() const { return static_cast<int32_t>(path.size()) - 1; }  // draft tokens
};

// Working storage of the sampling rules, reused across calls. Contents are meaningless
// between calls; the [n_vocab] arrays are restored to their neutral values after each use.
struct VerifyScratch {
  DistributionScratch target;          // .dist: sparse target (then residual) distribution at the current node
  std::vector<double> q_by_token;      // [n_vocab]; the current node's q, zero elsewhere
  std::vector<int32_t> slot_by_token;  // [n_vocab]; position in `target` of a draw's or q's token, -1 elsewhere
  std::vector<int32_t> draw_offsets;   // [n_nodes + 1]; CSR of the draws below each node
  std::vector<int32_t> draws;          //   child node of each draw, in draw order
  std::vector<int32_t> draw_cursor;    // [n_nodes]
  std::vector<double> accept_ratio;    // [n_nodes]; lossy rule: p(x) / q(x) of each draft node
};

// Greedy (temperature 0): the longest root path whose every draft token equals the argmax
// (first index on ties, as `argmax`) of the target at its parent; ties between equally long
// paths go to the one ending first in node order; next_token = the argmax at the path's end.
// With target rows that depend only on the prefix, the committed tokens are exactly those of
// autoregressive greedy decoding. Reads only target.argmax_at, at accepted nodes.
void verify_greedy(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, Acceptance& out);

// Exact sampling by coupling, the decoder's rule at temperature > 0: the token the target
// chooses at a node is the one sample_token draws from the node's row with the uniform of
// that token's position in the request, uniform({seed, request, g, 0}, 0) for the g-th
// generated token (`first_draw` is the key of the token drawn at the root; a node at depth d
// draws with step first_draw.step + d), and a draft token is accepted when it is that token.
// The path is then chosen as verify_greedy chooses it, with these draws for the argmax. The
// committed tokens are autoregressive sampling's with the same seed, bit for bit, whatever
// the tree; a drafter that knows the uniforms (DraftContext::first_draw) can aim its draft at
// the draws (engine/DESIGN.md §5.4). A draft independent of the uniforms is accepted as often
// as under verify_sampling_one_hot: child x with probability p(x), some child of a node with
// the sum of its children's.
void verify_sampling_coupled(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, const SamplingParams& params,
                             const RngKey& first_draw, VerifyScratch& scratch, Acceptance& out);

// Exact sampling for deterministic (one-hot) proposals — beam search, top-k trees (Medusa,
// EAGLE-2/3): from the root, with p the filtered target distribution at the current node, try
// its children in node order, accepting child x with probability p(x) under the residual
// (p with the rejected siblings zeroed, renormalised); on acceptance continue at x; if all
// fail, or there are none, the next token is drawn from the residual. Every generated token
// is distributed exactly as under sample_token, whatever the tree.
void verify_sampling_one_hot(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, const SamplingContext& sampling,
                             VerifyScratch& scratch, Acceptance& out);

// Exact sampling for drafts drawn from q (a sampled chain, a tree of independent or
// without-replacement draws per node, or packed sampled beams), SpecInfer's multi-round rule:
// for the draws x_1..x_k below the current node, accept x_i with probability
// min(1, p(x_i) / q_i(x_i)); on rejection p <- norm(max(p - q_i, 0)); if all fail, draw the
// next token from the residual. q_i is q, or for without-replacement draws q with
// x_1..x_{i-1} removed and renormalised. Exact provided each draw really came from q_i given
// the earlier draws (checked: q_i(x_i) > 0) and the number of draws does not depend on them.
void verify_sampling_with_q(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, const SampledDrafts& drafts,
                            const SamplingContext& sampling, VerifyScratch& scratch, Acceptance& out);

// LOSSY — the ReDrafter reference code's rule (engine/DESIGN.md §5.3), kept only for
// comparison; label it lossy wherever it is used. Per beam b and position an independent
// uniform u (uniform({seed, request, step, node}, 1 + b): beams sharing a node draw apart, as
// in the reference), accept while u < p(x) / q(x); take the beam with the most accepted
// drafts (first on ties); next token from p at its end if every draft was accepted, else
// from norm(max(p - q, 0)) at the first rejection. Biased because beam-search drafts are not
// samples from q and the beams are not corrected against each other (issue #6).
void verify_sampling_redrafter_lossy(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, DraftDistributions q, BeamPaths beams,
                                     const SamplingContext& sampling, VerifyScratch& scratch, Acceptance& out);

}  // namespace draftbench
