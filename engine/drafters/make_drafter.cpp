#include "engine/drafters/make_drafter.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/common/error.h"
#include "engine/drafters/drafter_checkpoint.h"
#include "engine/drafters/ngram/ngram.h"
#include "engine/drafters/sized_drafter.h"

namespace draftbench {

namespace {

// A drafter together with the checkpoint its weights point into (mapped files, converted
// copies), so the mapping lives exactly as long as the drafter.
class CheckpointedDrafter final : public Drafter {
 public:
  CheckpointedDrafter(std::unique_ptr<DrafterCheckpoint> checkpoint, std::unique_ptr<Drafter> drafter)
      : checkpoint_(std::move(checkpoint)), drafter_(std::move(drafter)) {}
  std::string name() const override { return drafter_->name(); }
  int32_t max_tree_nodes() const override { return drafter_->max_tree_nodes(); }
  bool wants_prompt_hidden() const override { return drafter_->wants_prompt_hidden(); }
  void reset(int n) override { drafter_->reset(n); }
  void begin(int seq, std::span<const int32_t> prompt, std::span<const float> hidden) override { drafter_->begin(seq, prompt, hidden); }
  void propose(const DraftContext& ctx, Draft& out) override { drafter_->propose(ctx, out); }
  void skip(const DraftContext& ctx) override { drafter_->skip(ctx); }
  void limit_draft(int32_t depth, int32_t width) override { drafter_->limit_draft(depth, width); }
  double draft_seconds(const CostModel& cost) const override { return drafter_->draft_seconds(cost); }
  DraftWork draft_work() const override { return drafter_->draft_work(); }
  std::string cost_variant() const override { return drafter_->cost_variant(); }
  void accept(int seq, const AcceptedPath& path) override { drafter_->accept(seq, path); }

 private:
  std::unique_ptr<DrafterCheckpoint> checkpoint_;  // declared first: destroyed after the drafter
  std::unique_ptr<Drafter> drafter_;
};

// The n-gram half of a hybrid: a fixed budget (sizing trims it), --draft-tokens if given.
constexpr int kHybridLookupTokens = 16;

}  // namespace

std::unique_ptr<Drafter> make_sized_drafter(bool with_lookup, std::unique_ptr<Drafter> model, const DrafterOptions& o) {
  std::unique_ptr<Drafter> lookup;
  if (with_lookup) {
    DrafterOptions l = o;
    l.draft_tokens = o.draft_tokens > 0 ? o.draft_tokens : kHybridLookupTokens;
    lookup = std::make_unique<NgramDrafter>(l);
  }
  const int32_t max_nodes = std::max(1, o.cost->sizes.back() - 1);  // as far as the costs were measured
  const DraftTiming timing = model && o.time_drafter ? o.time_drafter(*model, o.weights_dir) : DraftTiming{};
  return std::make_unique<SizedDrafter>(std::move(model), std::move(lookup), *o.cost, timing, max_nodes);
}

bool drafter_wants_cost_model(const DrafterOptions& o) {
  const DrafterKind* k = find_drafter_kind(o.kind);
  return k && k->sizes_automatically && k->sizes_automatically(o);
}

std::unique_ptr<Drafter> load_drafter_weights(const DrafterOptions& options, const Model& target, ThreadPool& pool) {
  const DrafterKind* k = find_drafter_kind(options.kind);
  if (!k) throw InputError("drafter", fmt::format("'{}'", options.kind), fmt::format("unknown (expected one of {})", known_drafters()));
  if (!k->needs_weights) return nullptr;
  if (options.weights_dir.empty())
    throw InputError("drafter", options.kind, "needs its weights directory (--drafter-weights DIR; `draftbench drafter init` writes random ones)");
  auto owned = std::make_unique<DrafterCheckpoint>(options.weights_dir);
  DrafterCheckpoint& checkpoint = *owned;
  if (checkpoint.kind() != k->weights_of)
    throw InputError(checkpoint.config_path(), "", fmt::format("holds a {} drafter (expected {})", checkpoint.kind(), k->weights_of));
  std::unique_ptr<Drafter> drafter = k->make(&checkpoint, options, target, pool);
  checkpoint.reject_unused();
  return std::make_unique<CheckpointedDrafter>(std::move(owned), std::move(drafter));
}

std::unique_ptr<Drafter> make_drafter(const DrafterOptions& options, const Model& target, ThreadPool& pool, std::unique_ptr<Drafter> loaded) {
  const std::string& kind = options.kind;
  const DrafterKind* k = find_drafter_kind(kind);
  if (!k) throw InputError("drafter", fmt::format("'{}'", kind), fmt::format("unknown (expected one of {})", known_drafters()));
  if (options.sizing != "auto" && options.sizing != "fixed")
    throw InputError("drafter", "sizing", fmt::format("'{}' (expected auto or fixed)", options.sizing));
  if (k->with_lookup && options.sizing != "auto")
    throw InputError("drafter", kind, "sizing fixed (expected auto: a hybrid's two drafts share one automatically sized budget)");
  if (drafter_wants_cost_model(options) && !options.cost)
    throw InputError("drafter", kind, "sizes drafts automatically but was given no cost model (draftbench calibrate measures one)");
  if (!k->needs_weights) return k->make(nullptr, options, target, pool);
  std::unique_ptr<Drafter> drafter = loaded ? std::move(loaded) : load_drafter_weights(options, target, pool);
  if (!k->sizes_automatically || !k->sizes_automatically(options)) return drafter;
  return make_sized_drafter(k->with_lookup, std::move(drafter), options);
}

void write_random_drafter(const RandomDrafterSpec& spec, const Model& target, const std::string& dir) {
  const DrafterKind* k = find_drafter_kind(spec.kind);
  if (!k || !k->write_random)
    throw InputError("drafter", fmt::format("'{}'", spec.kind), fmt::format("{} (expected one of {})", k ? "has no weights" : "unknown", known_drafters(true)));
  k->write_random(spec, target, dir);
}

}  // namespace draftbench
