// Tree sizing on synthetic cost models and drafts (engine/decoding/tree_sizer.h), and the
// sized drafter around fake proposers (engine/drafters/sized_drafter.h): expensive rows keep
// small trees, cheap rows large ones, drafts never accepted give autoregressive steps, a
// proposer that does not pay for its drafting time is skipped, and merging and pruning keep
// trees well formed.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/decoding/tree_sizer.h"
#include "engine/drafters/sized_drafter.h"
#include "tests/support/cost_curves.h"

using namespace draftbench;
using draftbench::test::linear_cost;

namespace {

// A chain of `length` draft tokens 1, 2, ... below root 0, each with this confidence.
Draft chain(int32_t length, float confidence, uint8_t origin = kDraftedByModel) {
  Draft d;
  d.reset_to_root(0);
  d.confidence.assign(1, 1.0f);
  d.origin.assign(1, kDraftedByModel);
  for (int32_t i = 1; i <= length; ++i) {
    d.tree.add(i - 1, i);
    d.confidence.push_back(confidence);
    d.origin.push_back(origin);
  }
  return d;
}

// A root with `width` children, each with a chain of `depth` - 1 below it.
Draft bush(int32_t width, int32_t depth, float confidence) {
  Draft d;
  d.reset_to_root(0);
  d.confidence.assign(1, 1.0f);
  for (int32_t b = 0; b < width; ++b) {
    int32_t parent = 0;
    for (int32_t k = 0; k < depth; ++k) {
      parent = d.tree.add(parent, 100 * b + k + 1);
      d.confidence.push_back(k == 0 ? confidence / static_cast<float>(b + 1) : confidence);
    }
  }
  return d;
}

// `steps` verifications of `draft` whose accepted path is its first `accepted` chain nodes.
void observe_chain(TreeSizer& s, const Draft& draft, int steps, int32_t accepted) {
  std::vector<int32_t> path(1, 0);
  for (int32_t v = 1; v <= accepted; ++v) path.push_back(v);
  for (int i = 0; i < steps; ++i) s.observe(draft, path);
}

bool closed_under_parents(const std::vector<int32_t>& keep, const Draft& d) {
  for (int32_t v : keep)
    if (v != 0 && std::find(keep.begin(), keep.end(), d.tree.parents[static_cast<size_t>(v)]) == keep.end()) return false;
  return true;
}

}  // namespace

TEST_CASE("tree sizing: expensive rows keep small trees, cheap rows large ones", "[sizing]") {
  TreeSizer cpu(linear_cost(0.010, 0.004), 63), gpu(linear_cost(0.010, 0.00005), 63);
  const Draft d = bush(4, 8, 0.9f);
  std::vector<int32_t> keep_cpu, keep_gpu;
  const TreeSizer::Choice on_cpu = cpu.choose(d, false, keep_cpu), on_gpu = gpu.choose(d, false, keep_gpu);
  INFO("cpu " << on_cpu.nodes << ", gpu " << on_gpu.nodes);
  CHECK(on_cpu.nodes >= 1);
  CHECK(on_cpu.nodes <= 8);
  CHECK(on_gpu.nodes >= 16);
  CHECK(closed_under_parents(keep_cpu, d));
  CHECK(closed_under_parents(keep_gpu, d));
  CHECK(keep_cpu.size() == static_cast<size_t>(on_cpu.nodes) + 1);
  CHECK(on_cpu.tokens_per_second() >= 1.0 / cpu.autoregressive_seconds(false));
  // The most valuable first: the first branch (the likeliest) before the others.
  CHECK(keep_cpu[1] == 1);
}

TEST_CASE("tree sizing: drafts that are never accepted give autoregressive steps", "[sizing]") {
  TreeSizer s(linear_cost(0.010, 0.001), 63);
  const Draft d = chain(8, 0.95f);
  std::vector<int32_t> keep;
  CHECK(s.choose(d, false, keep).nodes > 0);  // a confident draft is worth a try
  observe_chain(s, d, 80, 0);
  CHECK(s.calibrated(kDraftedByModel, 0.95f, 1) < 0.1);
  CHECK(s.choose(d, false, keep).nodes == 0);
  CHECK(keep == std::vector<int32_t>{0});
  // Acceptance coming back is followed: counts decay.
  observe_chain(s, d, 80, 8);
  CHECK(s.choose(d, false, keep).nodes > 0);
}

TEST_CASE("tree sizing: calibration follows acceptance per confidence and per lookup depth", "[sizing]") {
  TreeSizer s(linear_cost(0.010, 0.001), 63);
  const Draft sure = chain(4, 0.97f), unsure = chain(4, 0.15f), lookup = chain(6, 1.0f, kDraftedByLookup);
  observe_chain(s, sure, 100, 4);    // confident drafts always right
  observe_chain(s, unsure, 100, 0);  // unsure ones never
  observe_chain(s, lookup, 100, 2);  // lookups right for two tokens
  CHECK(s.calibrated(kDraftedByModel, 0.97f, 1) > 0.9);
  CHECK(s.calibrated(kDraftedByModel, 0.15f, 1) < 0.1);
  CHECK(s.calibrated(kDraftedByLookup, 1.0f, 1) > 0.9);
  CHECK(s.calibrated(kDraftedByLookup, 1.0f, 3) < 0.1);
  std::vector<int32_t> keep;
  CHECK(s.choose(unsure, false, keep).nodes == 0);
  CHECK(s.choose(lookup, false, keep).nodes <= 3);
  CHECK(s.choose(sure, false, keep).nodes == 4);
}

TEST_CASE("tree sizing: a verified token that costs as much as a step is never worth drafting", "[sizing]") {
  TreeSizer s(linear_cost(0.010, 0.030), 63);
  const Draft d = chain(8, 0.99f);
  observe_chain(s, d, 50, 6);
  std::vector<int32_t> keep;
  CHECK(s.choose(d, false, keep).nodes == 0);
}

TEST_CASE("tree sizing: at temperature > 0 every visited row also costs a distribution", "[sizing]") {
  CostModel cost = linear_cost(0.010, 0.001);
  cost.sample_s = 0.004;
  TreeSizer s(cost, 63);
  const Draft d = chain(16, 0.7f);
  observe_chain(s, d, 60, 2);
  std::vector<int32_t> keep;
  const TreeSizer::Choice greedy = s.choose(d, false, keep), sampling = s.choose(d, true, keep);
  REQUIRE(sampling.nodes >= 1);
  const auto rows = static_cast<int32_t>(std::ceil(sampling.expected_tokens)) + 1;
  CHECK(sampling.verify_seconds == Approx(cost.step(1 + sampling.nodes, rows) + rows * 0.004));
  CHECK(greedy.verify_seconds < sampling.verify_seconds);
  CHECK(s.autoregressive_seconds(true) == Approx(s.autoregressive_seconds(false) + 0.004));
}

TEST_CASE("merging drafts: shared prefixes become one node marked as both", "[sizing]") {
  Draft model = chain(3, 0.5f);  // 0 -> 1 -> 2 -> 3
  Draft lookup;
  lookup.reset_to_root(0);
  lookup.tree.add(0, 1);  // shared with the model's first node
  lookup.tree.add(1, 7);  // new below it
  lookup.tree.add(2, 8);
  std::vector<int32_t> map;
  merge_drafts(lookup, model, map);
  REQUIRE(model.tree.size() == 6);
  CHECK(map == std::vector<int32_t>{0, 1, 4, 5});
  CHECK(model.origin[1] == kDraftedByBoth);
  CHECK(model.origin[2] == kDraftedByModel);
  CHECK(model.origin[4] == kDraftedByLookup);
  CHECK(model.tree.parents[4] == 1);
  CHECK(model.confidence.size() == 6);

  Draft kept;
  const std::vector<int32_t> keep = {0, 1, 4, 5};
  keep_nodes(model, keep, kept, map);
  CHECK(kept.tree.tokens == std::vector<int32_t>{0, 1, 7, 8});
  CHECK(kept.tree.parents == std::vector<int32_t>{-1, 0, 1, 2});
  CHECK(kept.origin == std::vector<uint8_t>{kDraftedByModel, kDraftedByBoth, kDraftedByLookup, kDraftedByLookup});
}

namespace {

// A proposer with fixed chains that costs `seconds` per draft; counts calls.
class FakeDrafter final : public Drafter {
 public:
  FakeDrafter(std::vector<int32_t> continuation, double seconds, float confidence)
      : continuation_(std::move(continuation)), seconds_(seconds), confidence_(confidence) {}
  std::string name() const override { return "fake"; }
  int32_t max_tree_nodes() const override { return 1 + static_cast<int32_t>(continuation_.size()); }
  void reset(int) override {}
  void propose(const DraftContext& ctx, Draft& out) override {
    ++proposed;
    if (lookup_matched) ++(*lookup_matched ? proposed_on_match : proposed_without);
    out.reset_to_root(ctx.root);
    out.confidence.assign(1, 1.0f);
    const int32_t depth =
        depth_limit > 0 ? std::min<int32_t>(depth_limit, static_cast<int32_t>(continuation_.size())) : static_cast<int32_t>(continuation_.size());
    const bool wrong = proposed <= wrong_first || (!right_cycle.empty() && !right_cycle[static_cast<size_t>(proposed - 1) % right_cycle.size()]);
    for (int32_t i = 0; i < depth; ++i) {
      out.tree.add(i, wrong ? -1 : continuation_[static_cast<size_t>(i)]);
      out.confidence.push_back(confidence_);
    }
  }
  void skip(const DraftContext&) override {
    ++skipped;
    if (lookup_matched) ++(*lookup_matched ? skipped_on_match : skipped_without);
  }
  void limit_draft(int32_t depth, int32_t) override { depth_limit = depth; }
  double draft_seconds(const CostModel&) const override { return seconds_; }
  int proposed = 0, skipped = 0;
  int32_t depth_limit = 0;
  int wrong_first = 0;                   // proposals, from the first, that are all wrong
  std::vector<bool> right_cycle;         // if set: whether each proposal in turn is right
  const bool* lookup_matched = nullptr;  // if set, proposals and skips are also counted by it
  int proposed_on_match = 0, proposed_without = 0, skipped_on_match = 0, skipped_without = 0;

 private:
  std::vector<int32_t> continuation_;
  double seconds_;
  float confidence_;
};

// A lookup that finds `continuation` every other step (the first included) and nothing
// in between.
class AlternatingLookup final : public Drafter {
 public:
  explicit AlternatingLookup(std::vector<int32_t> continuation) : continuation_(std::move(continuation)) {}
  std::string name() const override { return "alternating"; }
  int32_t max_tree_nodes() const override { return 1 + static_cast<int32_t>(continuation_.size()); }
  void reset(int) override {}
  void propose(const DraftContext& ctx, Draft& out) override {
    out.reset_to_root(ctx.root);
    matched = calls++ % 2 == 0;
    if (!matched) return;
    for (size_t i = 0; i < continuation_.size(); ++i) out.tree.add(static_cast<int32_t>(i), continuation_[i]);
  }
  bool matched = false;

 private:
  std::vector<int32_t> continuation_;
  int calls = 0;
};

// Runs `steps` steps of one sequence where the target's next tokens are `truth`, accepting
// the longest matching path as greedy verification would.
int32_t run_steps(SizedDrafter& d, const std::vector<int32_t>& truth, int steps) {
  int32_t accepted_total = 0;
  d.reset(1);
  const std::vector<float> hidden(4, 0.0f);
  std::vector<int32_t> context;
  for (int step = 0; step < steps; ++step) {
    Draft out;
    d.propose(DraftContext{0, context, truth[0], hidden}, out);
    std::vector<int32_t> path(1, 0), tokens(1, truth[0]);
    for (int32_t v = 1; v < out.tree.size(); ++v)
      if (out.tree.parents[static_cast<size_t>(v)] == path.back() && out.tree.tokens[static_cast<size_t>(v)] == truth[path.size()]) {
        path.push_back(v);
        tokens.push_back(out.tree.tokens[static_cast<size_t>(v)]);
      }
    accepted_total += static_cast<int32_t>(path.size()) - 1;
    const std::vector<float> path_hidden(4 * path.size(), 0.0f);
    d.accept(0, AcceptedPath{path, tokens, path_hidden, 0});
  }
  return accepted_total;
}

}  // namespace

TEST_CASE("sized drafter: a proposer that is always right keeps drafting and deepens", "[sizing]") {
  auto fake = std::make_unique<FakeDrafter>(std::vector<int32_t>{2, 3, 4, 5, 6, 7}, 0.0, 0.97f);
  FakeDrafter& f = *fake;
  SizedDrafter d(std::move(fake), nullptr, linear_cost(0.010, 0.0005), DraftTiming{}, 63);
  const int32_t accepted = run_steps(d, {1, 2, 3, 4, 5, 6, 7}, 40);
  CHECK(f.skipped == 0);
  CHECK(f.proposed == 40);
  CHECK(f.depth_limit >= 6);  // grew one level per step from 1
  CHECK(accepted > 40 * 4);
}

TEST_CASE("sized drafter: a proposer wrong on its first step still gets a fair trial", "[sizing]") {
  auto fake = std::make_unique<FakeDrafter>(std::vector<int32_t>{2, 3, 4, 5, 6, 7}, 0.002, 0.97f);
  FakeDrafter& f = *fake;
  f.wrong_first = 1;
  SizedDrafter d(std::move(fake), nullptr, linear_cost(0.010, 0.0005), DraftTiming{}, 63);
  run_steps(d, {1, 2, 3, 4, 5, 6, 7}, 40);
  CHECK(f.skipped == 0);
  CHECK(f.proposed == 40);
}

TEST_CASE("sized drafter: a proposer right two times in five, which pays on average, keeps drafting", "[sizing]") {
  // EAGLE on an instruction-tuned target: its first draft token is right about 40% of the
  // time. At these costs a verified token pays from about 20% on, but single steps swing
  // from +28 tokens/s (right) to -15 (wrong): two wrong steps in a row must not write the
  // drafter off for a long back-off.
  auto fake = std::make_unique<FakeDrafter>(std::vector<int32_t>{2, 3, 4}, 0.0005, 0.6f);
  FakeDrafter& f = *fake;
  f.right_cycle = {true, false, false, true, false};
  SizedDrafter d(std::move(fake), nullptr, linear_cost(0.020, 0.005), DraftTiming{}, 63);
  const int32_t accepted = run_steps(d, {1, 2, 3, 4}, 200);
  INFO("proposed " << f.proposed << ", skipped " << f.skipped << ", accepted " << accepted);
  CHECK(f.skipped < 10);
  CHECK(accepted >= 200 * 2 / 5 - 10);
}

TEST_CASE("sized drafter: a slow proposer that is never right is skipped, with back-off", "[sizing]") {
  auto fake = std::make_unique<FakeDrafter>(std::vector<int32_t>{9, 9, 9}, 0.004, 0.9f);
  FakeDrafter& f = *fake;
  SizedDrafter d(std::move(fake), nullptr, linear_cost(0.010, 0.001), DraftTiming{}, 63);
  CHECK(run_steps(d, {1, 2, 3, 4}, 120) == 0);
  INFO("proposed " << f.proposed << ", skipped " << f.skipped);
  CHECK(f.skipped > 80);   // sits out most steps
  CHECK(f.proposed >= 4);  // but is probed again now and then
  CHECK(f.proposed + f.skipped == 120);
  // The next request starts from that judgement instead of probing afresh.
  const int before = f.proposed;
  CHECK(run_steps(d, {1, 2, 3, 4}, 40) == 0);
  CHECK(f.proposed - before <= 2);
}

TEST_CASE("sized drafter: a model that repeats what the lookup found drafts only where it found nothing", "[sizing]") {
  // Both proposers are always right, but where the lookup has the continuation the model's
  // draft adds no token and costs its drafting time; where the lookup has nothing, the
  // model's draft is the whole gain.
  auto lookup = std::make_unique<AlternatingLookup>(std::vector<int32_t>{2, 3, 4, 5, 6, 7});
  auto model = std::make_unique<FakeDrafter>(std::vector<int32_t>{2, 3, 4, 5, 6, 7}, 0.002, 0.97f);
  FakeDrafter& m = *model;
  m.lookup_matched = &lookup->matched;
  SizedDrafter d(std::move(model), std::move(lookup), linear_cost(0.010, 0.0005), DraftTiming{}, 63);
  const int32_t accepted = run_steps(d, {1, 2, 3, 4, 5, 6, 7}, 200);
  INFO("on a match: proposed " << m.proposed_on_match << ", skipped " << m.skipped_on_match << "; without: proposed " << m.proposed_without << ", skipped "
                               << m.skipped_without);
  CHECK(m.proposed_on_match + m.skipped_on_match == 100);
  CHECK(m.skipped_on_match > 80);   // sits out most steps where the lookup has the draft
  CHECK(m.proposed_on_match >= 4);  // probed now and then
  CHECK(m.skipped_without == 0);    // always drafts where the lookup has nothing
  CHECK(accepted > 200 * 4);
}

TEST_CASE("tree sizing: a lookup depth not yet kept is expected to do as well as the one above", "[sizing]") {
  // Lookups kept four deep and always right: the fifth and deeper depths have never been
  // tried, and must still be worth keeping when rows are cheap, or they never would be.
  TreeSizer s(linear_cost(0.010, 0.0005), 63);
  observe_chain(s, chain(4, 1.0f, kDraftedByLookup), 100, 4);
  CHECK(s.calibrated(kDraftedByLookup, 1.0f, 4) > 0.95);
  CHECK(s.calibrated(kDraftedByLookup, 1.0f, 6) > 0.95);
  std::vector<int32_t> keep;
  CHECK(s.choose(chain(16, 1.0f, kDraftedByLookup), false, keep).nodes >= 8);
  // Once tried and wrong, a depth is written off, and so are those below it.
  observe_chain(s, chain(6, 1.0f, kDraftedByLookup), 100, 5);
  CHECK(s.calibrated(kDraftedByLookup, 1.0f, 6) < 0.1);
  CHECK(s.calibrated(kDraftedByLookup, 1.0f, 7) < 0.1);
  CHECK(s.choose(chain(16, 1.0f, kDraftedByLookup), false, keep).nodes == 5);
}
