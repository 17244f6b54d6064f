#include "engine/drafters/make_drafter.h"

#include <fmt/format.h>

#include "engine/common/error.h"
#include "engine/drafters/drafter_checkpoint.h"
#include "engine/drafters/eagle.h"
#include "engine/drafters/medusa.h"
#include "engine/drafters/ngram.h"
#include "engine/drafters/redrafter.h"

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
  void accept(int seq, const AcceptedPath& path) override { drafter_->accept(seq, path); }

 private:
  std::unique_ptr<DrafterCheckpoint> checkpoint_;  // declared first: destroyed after the drafter
  std::unique_ptr<Drafter> drafter_;
};

}  // namespace

namespace {

std::unique_ptr<Drafter> make_autoregressive(DrafterCheckpoint*, const DrafterOptions&, const Model&, ThreadPool&) {
  return std::make_unique<AutoregressiveDrafter>();
}
std::unique_ptr<Drafter> make_ngram(DrafterCheckpoint*, const DrafterOptions& o, const Model&, ThreadPool&) {
  return std::make_unique<NgramDrafter>(o);
}
std::unique_ptr<Drafter> make_medusa(DrafterCheckpoint* c, const DrafterOptions& o, const Model& m, ThreadPool& p) {
  return make_medusa_drafter(*c, o, m, p);
}
std::unique_ptr<Drafter> make_eagle(DrafterCheckpoint* c, const DrafterOptions& o, const Model& m, ThreadPool& p) {
  return make_eagle_drafter(*c, o, m, p);
}
std::unique_ptr<Drafter> make_redrafter_kind(DrafterCheckpoint* c, const DrafterOptions& o, const Model& m, ThreadPool& p) {
  return make_redrafter(*c, o, m, p);
}

bool ngram_sizes_automatically(const DrafterOptions& o) { return o.draft_tokens == 0; }

constexpr DrafterKind kDrafterKinds[] = {
    {"autoregressive", false, make_autoregressive, nullptr, nullptr},
    {"medusa", true, make_medusa, write_random_medusa, nullptr},
    {"eagle", true, make_eagle, write_random_eagle, nullptr},
    {"redrafter", true, make_redrafter_kind, write_random_redrafter, nullptr},
    {"ngram", false, make_ngram, nullptr, ngram_sizes_automatically},
};

}  // namespace

std::span<const DrafterKind> drafter_kinds() { return kDrafterKinds; }

bool drafter_wants_cost_model(const DrafterOptions& o) {
  const DrafterKind* k = find_drafter_kind(o.kind);
  return k && k->sizes_automatically && k->sizes_automatically(o);
}

const DrafterKind* find_drafter_kind(std::string_view name) {
  for (const DrafterKind& k : kDrafterKinds)
    if (name == k.name) return &k;
  return nullptr;
}

std::string known_drafters(bool with_weights) {
  std::string names;
  for (const DrafterKind& k : kDrafterKinds)
    if (!with_weights || k.needs_weights) names += (names.empty() ? "" : ", ") + std::string(k.name);
  return names;
}

std::unique_ptr<Drafter> make_drafter(const DrafterOptions& options, const Model& target, ThreadPool& pool) {
  const std::string& kind = options.kind;
  const DrafterKind* k = find_drafter_kind(kind);
  if (!k) throw InputError("drafter", fmt::format("'{}'", kind), fmt::format("unknown (expected one of {})", known_drafters()));
  if (drafter_wants_cost_model(options) && !options.cost)
    throw InputError("drafter", kind, "sizes drafts automatically but was given no cost model (draftbench calibrate measures one)");
  if (!k->needs_weights) return k->make(nullptr, options, target, pool);
  if (options.weights_dir.empty())
    throw InputError("drafter", kind, "needs its weights directory (--drafter-weights DIR; `draftbench drafter init` writes random ones)");
  auto owned = std::make_unique<DrafterCheckpoint>(options.weights_dir);
  DrafterCheckpoint& checkpoint = *owned;
  if (checkpoint.kind() != kind)
    throw InputError(checkpoint.config_path(), "", fmt::format("holds a {} drafter (expected {})", checkpoint.kind(), kind));
  std::unique_ptr<Drafter> drafter = k->make(&checkpoint, options, target, pool);
  checkpoint.reject_unused();
  return std::make_unique<CheckpointedDrafter>(std::move(owned), std::move(drafter));
}

void write_random_drafter(const RandomDrafterSpec& spec, const Model& target, const std::string& dir) {
  const DrafterKind* k = find_drafter_kind(spec.kind);
  if (!k || !k->write_random)
    throw InputError("drafter", fmt::format("'{}'", spec.kind),
                     fmt::format("{} (expected one of {})", k ? "has no weights" : "unknown", known_drafters(true)));
  k->write_random(spec, target, dir);
}

}  // namespace draftbench
