// Automatic draft sizing for the drafters with weights, and the hybrids that add an n-gram
// lookup to them (`--drafter eagle+ngram`): a drafter around up to two proposers.
//
// Each step, for each sequence:
//   1. the lookup (if any) proposes its continuation: almost free, always asked;
//   2. the model drafter proposes its tree, unless its drafts have lately not paid for their
//      own drafting time in this step's context (then it is told to skip() and asked again
//      after a back-off of 1, 2, 4 ... 32 such steps; where its draft is the only one, not
//      before four steps have been judged);
//   3. the two trees are merged (equal prefixes share nodes; a node both proposed is marked
//      kDraftedByBoth), and a TreeSizer keeps the nodes whose expected accepted tokens pay
//      for their verification on this machine (possibly none: an autoregressive step);
//   4. after verification, the accepted path calibrates the sizer and judges the model's
//      draft.
// The context of step 2 is whether the lookup found a match: where it did, the model mostly
// proposes what the lookup already has, and where it did not, the model's draft is all
// there is; each context keeps its own judgement, which carries over from one request to
// the next (reset() keeps it).
// "Paid" compares what the step gained with what it would have gained without the model's
// nodes, both per second: the accepted path up to its first node that only the model
// proposed, verified as the lookup's draft sized alone (or an autoregressive step), against
// the whole path, verified as the kept tree plus the drafting time. The judgement uses
// what verification accepted rather than the sizer's expectation: a model's agreement
// raises the expected value of the lookup's nodes without adding a token, and an
// expectation would count that as gain. The mean of the differences decides: plain over the
// first 20 judged steps, decayed after. A request's first draft, which also reads the prompt
// into the drafter, is not judged.
// Drafting time is the drafter's own estimate from its work and the cost model
// (Drafter::draft_seconds), corrected by a fit to its measured proposals that is cached with
// the cost model (draft_timing.h), not a clock reading: sizing then depends only on the
// tokens and the cached cost model, so runs repeat exactly, at temperature > 0 too.
// The draft's shape follows what is kept: the model drafter is asked for
// drafts one level deeper and one child wider than the sizer kept lately
// (Drafter::limit_draft), so it does not spend time on nodes that would be cut.
//
// Exactness: pruning and merging change which drafts are verified, never how: at
// temperature 0 the output is greedy decoding's; at temperature > 0 these drafts are
// one-hot proposals, which the exact rule verifies whatever the tree. Drafts carrying q
// (the lossy ReDrafter rule) or root copies (beams without tree attention) pass unsized.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "engine/decoding/drafter.h"
#include "engine/decoding/tree_sizer.h"

namespace draftbench {

class SizedDrafter final : public Drafter {
 public:
  // `model` (a drafter with weights) and `lookup` (an n-gram drafter with a fixed budget):
  // either may be null, not both. max_nodes: the most draft nodes verified per step.
  // `timing` turns the model drafter's estimate of its propose time into this machine's
  // (draft_timing.h).
  SizedDrafter(std::unique_ptr<Drafter> model, std::unique_ptr<Drafter> lookup, const CostModel& cost, DraftTiming timing, int32_t max_nodes);

  std::string name() const override;
  int32_t max_tree_nodes() const override;
  bool wants_prompt_hidden() const override { return model_ && model_->wants_prompt_hidden(); }
  void reset(int n_sequences) override;
  void begin(int seq, std::span<const int32_t> prompt, std::span<const float> prompt_hidden) override;
  void propose(const DraftContext& ctx, Draft& out) override;
  void accept(int seq, const AcceptedPath& path) override;

  static constexpr int32_t kMaxBackoff = 32;  // steps without the model drafter, at most

 private:
  // The context a step's model draft is judged in: whether the lookup found a match.
  enum LookupContext : uint8_t { kNoLookupMatch = 0, kLookupMatch = 1 };  // (no lookup: kNoLookupMatch)
  // Whether the model drafter pays in one context.
  struct ModelJudgement {
    int32_t skip_left = 0;  // steps of this context the model drafter still sits out
    int32_t backoff = 0;    // the last back-off
    int32_t judged = 0;     // steps judged so far
    double gain = 0;        // mean of (rate with the model - rate without), tokens/s
  };
  // A step drafted with the model, waiting for its verification to be judged.
  struct PendingJudgement {
    bool active = false;
    bool sampling = false;
    LookupContext context = kNoLookupMatch;
    double draft_seconds = 0;
    TreeSizer::Choice without_model;  // the lookup's draft sized alone (none kept: an autoregressive step)
  };
  struct SequenceState {
    Draft verified;  // what propose returned, with confidence and origin
    bool sized = false;
    std::array<ModelJudgement, 2> judgement;  // by LookupContext
    PendingJudgement pending;
    double kept_depth = 0, kept_width = 0;  // the kept tree's depth and width, sinking slowly (limit_draft)
    bool drafted = false;                   // the model drafter has drafted since begin()
  };
  bool run_model(SequenceState& s, LookupContext context);
  void prepare_judgement(SequenceState& s, LookupContext context, double draft_seconds, bool sampling);
  void judge_model(SequenceState& s, const AcceptedPath& path);
  double verify_seconds(int32_t nodes, int32_t gained, bool sampling) const;

  std::unique_ptr<Drafter> model_, lookup_;
  int32_t max_nodes_;
  CostModel cost_;
  DraftTiming timing_;
  TreeSizer sizer_;
  std::vector<SequenceState> sequences_;
  Draft model_draft_, lookup_draft_, merged_;  // scratch
  std::vector<int32_t> keep_, map_;
};

// Adds `lookup`'s nodes to `merged` (a model's draft, or a root alone) under the same root:
// a node whose token already sits below the same parent is shared and marked
// kDraftedByBoth; others are appended with origin kDraftedByLookup. Fills merged's
// confidence (1 where missing) and origin for every node.
void merge_drafts(const Draft& lookup, Draft& merged, std::vector<int32_t>& map);

// The subtree of `draft` made of the nodes `keep` (increasing, node 0 first, closed under
// parents), renumbered in that order, with their confidence and origin; no beams, no q.
void keep_nodes(const Draft& draft, std::span<const int32_t> keep, Draft& out, std::vector<int32_t>& map);

}  // namespace draftbench
