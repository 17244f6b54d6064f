// The drafter interface (engine/DESIGN.md §9): every method, and the autoregressive baseline,
// runs through the same Decoder loop, so speed and losslessness are comparable by
// construction. The interface belongs to the loop that drives it: the drafters
// (engine/drafters/) sit a layer above engine/decoding and implement it, and nothing in
// engine/decoding includes them (scripts/check_layering.py).
//
// A draft is a token tree whose node 0 is the root — the token the target model already
// chose and that is not yet forwarded — and whose other nodes are proposals, stored
// parents-first. Autoregressive decoding is the drafter that proposes nothing beyond
// the root.
//
// Per step the Decoder calls, for every active sequence s:
//   propose(ctx)            -> a Draft rooted at ctx.root
//   (one target forward over every sequence's tree, then verification)
//   accept(s, path)         -> the accepted nodes with the target's hidden states along them
// and once per sequence, after the prefill, begin(s, prompt, prompt hidden states).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/decoding/sampling.h"

namespace draftbench {
struct CostModel;
}

namespace draftbench {

struct DraftTree {
  std::vector<int32_t> tokens;   // [n_nodes]; tokens[0] = root
  std::vector<int32_t> parents;  // [n_nodes]; parents[0] = -1, parents[i] < i; -1 elsewhere = a copy of the root
  void reset_to_root(int32_t root) {
    tokens.assign(1, root);
    parents.assign(1, -1);
  }
  int32_t add(int32_t parent, int32_t token) {
    tokens.push_back(token);
    parents.push_back(parent);
    return static_cast<int32_t>(tokens.size()) - 1;
  }
  int32_t size() const { return static_cast<int32_t>(tokens.size()); }
};

// One proposal. Beyond the tree, a drafter may attach what some verification rules need:
// the draft distributions q per node (CSR over nodes, target ids: node v's q is the
// distribution v's children were chosen from), and for beam drafters the beams laid over
// the tree (`beam_nodes`, [n_beams][beam_length], as BeamPaths in verify.h).
struct Draft {
  DraftTree tree;
  std::vector<TokenProb> q_entries;  // empty: the drafter keeps no q
  std::vector<int32_t> q_offsets;    // [n_nodes + 1] when q_entries is used
  std::vector<int32_t> beam_nodes;   // empty unless the draft is beams
  int32_t n_beams = 0, beam_length = 0;
  // Optional, for automatic sizing (engine/drafters/sized_drafter.h): per node, the
  // drafter's probability of its token given its parent (confidence[0] = 1 for the root),
  // and which proposer put the node there. Empty confidence: the drafter gives none.
  std::vector<float> confidence;
  std::vector<uint8_t> origin;  // DraftOrigin per node; empty: all kDraftedByModel

  void reset_to_root(int32_t root) {
    tree.reset_to_root(root);
    q_entries.clear();
    q_offsets.clear();
    beam_nodes.clear();
    n_beams = beam_length = 0;
    confidence.clear();
    origin.clear();
  }
  bool has_q() const { return !q_offsets.empty(); }
  // Tokens the beams hold before packing (n_beams * beam_length), or the tree's size.
  int32_t beam_tokens() const { return n_beams > 0 ? n_beams * beam_length : tree.size(); }
};

// Who proposed a draft node: a drafter's model, a context lookup (n-gram), or both.
enum DraftOrigin : uint8_t { kDraftedByModel = 0, kDraftedByLookup = 1, kDraftedByBoth = 2 };

// A propose's work: sequential passes through the drafter's network, tokens through its own
// transformer layers (EAGLE), and output rows over its draft vocabulary (each also
// normalised and searched for its top candidates).
struct DraftWork {
  int32_t passes = 0, tokens = 0, rows = 0;
};

// What the drafter sees of a sequence when asked to propose.
struct DraftContext {
  int seq = 0;                      // sequence index in the batch
  std::span<const int32_t> tokens;  // committed tokens (prompt + generated), root excluded
  int32_t root = 0;
  std::span<const float> hidden;  // [n_embd] target's final-norm hidden state that chose root
  // What the target's draws will be made with (verify_sampling_coupled): its sampling
  // parameters and the key of the token drawn below the root; a node at depth d is drawn
  // with step first_draw.step + d - 1. A drafter may aim its draft at those draws
  // (coupled_pick in sampling.h).
  SamplingParams params{};
  RngKey first_draw{};

  // Temperature > 0: verification samples (and costs more per row).
  bool sampling() const { return !params.greedy(); }
};

// The outcome of a step for one sequence, in the drafter's terms.
struct AcceptedPath {
  std::span<const int32_t> nodes;   // [n_path] accepted tree nodes, root (node 0) first
  std::span<const int32_t> tokens;  // [n_path] their tokens, root first
  std::span<const float> hidden;    // [n_path][n_embd] target hidden state at each (after the final norm)
  int32_t next_root = 0;            // the token the target chose at the path's end
};

class Drafter {
 public:
  virtual ~Drafter() = default;
  virtual std::string name() const = 0;
  // The largest tree propose() can return (root included): the Decoder sizes the KV cache
  // from it before decoding starts.
  virtual int32_t max_tree_nodes() const = 0;
  // Whether begin() needs the target's hidden states at every prompt position (EAGLE
  // feeds them to its own layer); otherwise only the last one is computed.
  virtual bool wants_prompt_hidden() const { return false; }
  // Forget all per-sequence state; sequences 0..n_sequences-1 are about to start.
  virtual void reset(int n_sequences) = 0;
  // After the prefill: `prompt_hidden` is [prompt.size()][n_embd] when wants_prompt_hidden(),
  // else [1][n_embd] (the last position's).
  virtual void begin(int seq, std::span<const int32_t> prompt, std::span<const float> prompt_hidden) {}
  // Fill `out` with a draft rooted at ctx.root.
  virtual void propose(const DraftContext& ctx, Draft& out) = 0;
  // Instead of propose, when this step decodes without a draft from this drafter (automatic
  // sizing decided it would not pay): the drafter sees the root it would have drafted from.
  virtual void skip(const DraftContext& ctx) {}
  // A hint for automatic sizing: nodes deeper than `depth` levels below the root, or beyond
  // the `width` likeliest children of a node, would hardly be verified, so the drafter may
  // leave them out (0 = no limit).
  virtual void limit_draft(int32_t depth, int32_t width) {}
  // The time the last propose took, estimated from the work it did and the target's measured
  // costs (`cost`), so that sizing decisions, and with them the tokens sampled at
  // temperature > 0, do not depend on how busy the machine was. 0 = free.
  virtual double draft_seconds(const CostModel& cost) const { return 0; }
  // The work of the last propose in countable units, to which draft_timing.h fits this
  // machine's measured propose times.
  virtual DraftWork draft_work() const { return {}; }
  // What sets this drafter's propose times apart from another's with the same weights (a
  // capped draft vocabulary), for the cache of those times; empty when nothing does.
  virtual std::string cost_variant() const { return {}; }
  // The accepted part of the last proposal, for drafters that keep state along the sequence.
  virtual void accept(int seq, const AcceptedPath& path) {}
};

// Autoregressive decoding as a drafter: the root alone.
class AutoregressiveDrafter final : public Drafter {
 public:
  std::string name() const override { return "autoregressive"; }
  int32_t max_tree_nodes() const override { return 1; }
  void reset(int) override {}
  void propose(const DraftContext& ctx, Draft& out) override { out.reset_to_root(ctx.root); }
};

}  // namespace draftbench
