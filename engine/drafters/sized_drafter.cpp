#include "engine/drafters/sized_drafter.h"

#include <algorithm>
#include <array>
#include <utility>

#include "engine/common/error.h"

namespace draftbench {
namespace {

// Weight of the past in the model drafter's gain (once it has 20 judged steps; a plain mean
// before). Single steps swing widely (a right draft token +29 tokens/s, a wrong one -15, a
// draft cut whole -1 to -3 on Qwen2.5-Coder-1.5B): with 0.8 two wrong steps in a row outweighed
// the mean of a drafter right 40% of the time that paid on average, and each back-off
// doubled, so EAGLE drafted on 5% of steps there.
constexpr double kGainMemory = 0.95;
// Steps judged before a context's first back-off, by context. Where the model's draft is the
// only one, a single step's tokens are too noisy to write off a drafter that pays on
// average; where the lookup found a match, the model mostly repeats it, and the first step
// that does not pay backs it off.
constexpr std::array<int32_t, 2> kTrialSteps = {/*kNoLookupMatch=*/4, /*kLookupMatch=*/0};
constexpr double kShapeForget = 0.25;  // per step, how far the remembered kept depth and width sink

int32_t child_with(const DraftTree& tree, int32_t parent, int32_t token) {
  for (int32_t v = parent + 1; v < tree.size(); ++v)
    if (tree.parents[static_cast<size_t>(v)] == parent && tree.tokens[static_cast<size_t>(v)] == token) return v;
  return -1;
}

bool has_root_copies(const DraftTree& tree) {
  for (int32_t v = 1; v < tree.size(); ++v)
    if (tree.parents[static_cast<size_t>(v)] < 0) return true;
  return false;
}

// The tree's depth below the root and its most children under one node.
std::pair<int32_t, int32_t> depth_and_width(const DraftTree& tree, std::vector<int32_t>& scratch) {
  const auto n = static_cast<size_t>(tree.size());
  scratch.assign(2 * n, 0);  // depth per node, then children per node
  int32_t depth = 0, width = 0;
  for (size_t v = 1; v < n; ++v) {
    const auto p = static_cast<size_t>(tree.parents[v]);
    scratch[v] = scratch[p] + 1;
    depth = std::max(depth, scratch[v]);
    width = std::max(width, ++scratch[n + p]);
  }
  return {depth, width};
}

}  // namespace

void merge_drafts(const Draft& lookup, Draft& merged, std::vector<int32_t>& map) {
  const int32_t n = merged.tree.size();
  merged.confidence.resize(static_cast<size_t>(n), 1.0f);
  merged.origin.resize(static_cast<size_t>(n), kDraftedByModel);
  const DraftTree& l = lookup.tree;
  DB_CHECK(l.size() >= 1 && l.tokens[0] == merged.tree.tokens[0]);
  map.assign(static_cast<size_t>(l.size()), 0);
  for (int32_t v = 1; v < l.size(); ++v) {
    const int32_t parent = map[static_cast<size_t>(l.parents[static_cast<size_t>(v)])];
    const int32_t token = l.tokens[static_cast<size_t>(v)];
    int32_t node = child_with(merged.tree, parent, token);
    if (node >= 0) {
      if (merged.origin[static_cast<size_t>(node)] == kDraftedByModel) merged.origin[static_cast<size_t>(node)] = kDraftedByBoth;
    } else {
      node = merged.tree.add(parent, token);
      merged.confidence.push_back(1.0f);
      merged.origin.push_back(kDraftedByLookup);
    }
    map[static_cast<size_t>(v)] = node;
  }
}

void keep_nodes(const Draft& draft, std::span<const int32_t> keep, Draft& out, std::vector<int32_t>& map) {
  DB_CHECK(!keep.empty() && keep[0] == 0);
  out.reset_to_root(draft.tree.tokens[0]);
  out.confidence.assign(1, 1.0f);
  out.origin.assign(1, kDraftedByModel);
  map.assign(static_cast<size_t>(draft.tree.size()), -1);
  map[0] = 0;
  for (size_t i = 1; i < keep.size(); ++i) {
    const auto v = static_cast<size_t>(keep[i]);
    const int32_t parent = map[static_cast<size_t>(draft.tree.parents[v])];
    DB_CHECK(parent >= 0);  // closed under parents, parents first
    map[v] = out.tree.add(parent, draft.tree.tokens[v]);
    out.confidence.push_back(draft.confidence.empty() ? 1.0f : draft.confidence[v]);
    out.origin.push_back(draft.origin.empty() ? uint8_t{kDraftedByModel} : draft.origin[v]);
  }
}

SizedDrafter::SizedDrafter(std::unique_ptr<Drafter> model, std::unique_ptr<Drafter> lookup, const CostModel& cost, DraftTiming timing, int32_t max_nodes)
    : model_(std::move(model)), lookup_(std::move(lookup)), max_nodes_(max_nodes), cost_(cost), timing_(timing), sizer_(cost, max_nodes) {
  DB_CHECK((model_ || lookup_) && max_nodes >= 1);
}

std::string SizedDrafter::name() const {
  if (!model_) return lookup_->name();
  return lookup_ ? model_->name() + "+" + lookup_->name() : model_->name();
}

int32_t SizedDrafter::max_tree_nodes() const {
  return std::max(1 + max_nodes_, model_ ? model_->max_tree_nodes() : 1);  // unsized drafts pass whole
}

void SizedDrafter::reset(int n_sequences) {
  if (model_) model_->reset(n_sequences);
  if (lookup_) lookup_->reset(n_sequences);
  // The judgements of the model drafter carry over from the previous requests: what its
  // drafts are worth belongs to the drafter, target and machine, and a request that began
  // without that evidence would spend its first steps probing drafts that do not pay.
  sequences_.resize(static_cast<size_t>(n_sequences));
  for (SequenceState& s : sequences_) {
    const auto judgement = s.judgement;
    s = SequenceState{};
    s.judgement = judgement;
  }
}

void SizedDrafter::begin(int seq, std::span<const int32_t> prompt, std::span<const float> prompt_hidden) {
  sequences_[static_cast<size_t>(seq)].drafted = false;
  if (model_) model_->begin(seq, prompt, prompt_hidden);
  if (lookup_) lookup_->begin(seq, prompt, prompt_hidden);
}

bool SizedDrafter::run_model(SequenceState& s, LookupContext context) {
  if (!model_) return false;
  ModelJudgement& j = s.judgement[context];
  if (j.skip_left > 0) {
    --j.skip_left;
    return false;
  }
  return true;
}

double SizedDrafter::verify_seconds(int32_t nodes, int32_t gained, bool sampling) const {
  // As the sizer prices it: the head rows along the accepted path, plus one.
  return cost_.step(1 + nodes, std::min(nodes + 1, gained + 1), sampling);
}

void SizedDrafter::prepare_judgement(SequenceState& s, LookupContext context, double draft_seconds, bool sampling) {
  s.pending = PendingJudgement{true, sampling, context, draft_seconds, TreeSizer::Choice{}};
  // Without the model: the lookup's draft, sized alone, or (no match) an autoregressive step.
  if (context == kLookupMatch) s.pending.without_model = sizer_.choose(lookup_draft_, sampling, keep_);
}

void SizedDrafter::judge_model(SequenceState& s, const AcceptedPath& path) {
  const PendingJudgement& p = s.pending;
  // Tokens gained (accepted nodes plus the target's own) with the model's nodes, and without:
  // the path up to its first node that only the model proposed, as deep as the lookup's
  // draft sized alone would have reached.
  const auto gained = static_cast<int32_t>(path.nodes.size());
  int32_t without = 1;
  while (without < gained && s.verified.origin[static_cast<size_t>(path.nodes[static_cast<size_t>(without)])] != kDraftedByModel) ++without;
  without = std::min(without, 1 + p.without_model.depth);
  const double rate_with = gained / (verify_seconds(s.verified.tree.size() - 1, gained, p.sampling) + p.draft_seconds);
  const double rate_without = without / verify_seconds(p.without_model.nodes, without, p.sampling);
  ModelJudgement& j = s.judgement[p.context];
  const double difference = rate_with - rate_without;
  // The plain mean of the judged steps until the decayed one weighs as many, then decayed:
  // the first few steps alone do not decide a drafter that pays on average.
  const double weight = std::max(1.0 / ++j.judged, 1 - kGainMemory);
  j.gain += weight * (difference - j.gain);
  if (j.gain >= 0 || j.judged < kTrialSteps[p.context]) {
    j.backoff = 0;
    return;
  }
  j.backoff = std::min(kMaxBackoff, std::max(1, 2 * j.backoff));
  j.skip_left = j.backoff;
}

void SizedDrafter::propose(const DraftContext& ctx, Draft& out) {
  SequenceState& s = sequences_[static_cast<size_t>(ctx.seq)];
  s.pending.active = false;
  LookupContext context = kNoLookupMatch;
  if (lookup_) {
    lookup_->propose(ctx, lookup_draft_);
    lookup_draft_.confidence.assign(static_cast<size_t>(lookup_draft_.tree.size()), 1.0f);
    lookup_draft_.origin.assign(static_cast<size_t>(lookup_draft_.tree.size()), kDraftedByLookup);
    if (lookup_draft_.tree.size() > 1) context = kLookupMatch;
  }
  const bool with_model = run_model(s, context);
  double draft_seconds = 0;
  if (with_model) {
    model_->limit_draft(static_cast<int32_t>(s.kept_depth) + 1, static_cast<int32_t>(s.kept_width) + 1);
    model_->propose(ctx, model_draft_);
    const DraftWork work = model_->draft_work();
    draft_seconds = timing_.seconds(model_->draft_seconds(cost_), work.passes, work.tokens, work.rows);
    if (model_draft_.has_q() || has_root_copies(model_draft_.tree)) {  // not sizeable: verified as drafted
      out = model_draft_;
      s.sized = false;
      return;
    }
    merged_ = model_draft_;
  } else {
    if (model_) model_->skip(ctx);
    merged_.reset_to_root(ctx.root);
  }
  if (lookup_) merge_drafts(lookup_draft_, merged_, map_);
  sizer_.choose(merged_, ctx.sampling(), keep_);
  keep_nodes(merged_, keep_, out, map_);
  const auto [depth, width] = depth_and_width(out.tree, map_);
  s.kept_depth = std::max(s.kept_depth - kShapeForget, static_cast<double>(depth));
  s.kept_width = std::max(s.kept_width - kShapeForget, static_cast<double>(width));
  s.verified = out;
  s.sized = true;
  // A request's first draft also reads its prompt into the drafter (EAGLE's layer over every
  // prompt token: 16 ms on Qwen2.5-Coder-1.5B against 0.6 for a draft), a price paid once
  // whenever the drafter is used at all: judged as one step's cost, it wrote the drafter off
  // before its first real draft.
  if (with_model && s.drafted) prepare_judgement(s, context, draft_seconds, ctx.sampling());
  s.drafted = s.drafted || with_model;
}

void SizedDrafter::accept(int seq, const AcceptedPath& path) {
  SequenceState& s = sequences_[static_cast<size_t>(seq)];
  if (s.sized) sizer_.observe(s.verified, path.nodes);
  if (s.pending.active) judge_model(s, path);
  if (model_) model_->accept(seq, path);
  if (lookup_) lookup_->accept(seq, path);
}

}  // namespace draftbench
