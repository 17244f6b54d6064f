#include "engine/drafters/make_drafter.h"

#include <fmt/format.h>

#include "engine/common/error.h"
#include "engine/drafters/drafter_checkpoint.h"
#include "engine/drafters/eagle.h"
#include "engine/drafters/medusa.h"
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

const char* known_drafters() { return "autoregressive, medusa, eagle, redrafter"; }

std::unique_ptr<Drafter> make_drafter(const DrafterOptions& options, const Model& target, ThreadPool& pool) {
  const std::string& kind = options.kind;
  if (kind == "autoregressive") return std::make_unique<AutoregressiveDrafter>();
  if (kind != "medusa" && kind != "eagle" && kind != "redrafter")
    throw InputError("drafter", fmt::format("'{}'", kind), fmt::format("unknown (expected one of {})", known_drafters()));
  if (options.weights_dir.empty())
    throw InputError("drafter", kind, "needs its weights directory (--drafter-weights DIR; `draftbench drafter init` writes random ones)");
  auto owned = std::make_unique<DrafterCheckpoint>(options.weights_dir);
  DrafterCheckpoint& checkpoint = *owned;
  if (checkpoint.kind() != kind)
    throw InputError(checkpoint.config_path(), "", fmt::format("holds a {} drafter (expected {})", checkpoint.kind(), kind));
  std::unique_ptr<Drafter> drafter;
  if (kind == "medusa") drafter = make_medusa_drafter(checkpoint, options, target, pool);
  else if (kind == "eagle") drafter = make_eagle_drafter(checkpoint, options, target, pool);
  else drafter = make_redrafter(checkpoint, options, target, pool);
  checkpoint.reject_unused();
  return std::make_unique<CheckpointedDrafter>(std::move(owned), std::move(drafter));
}

void write_random_drafter(const RandomDrafterSpec& spec, const Model& target, const std::string& dir) {
  if (spec.kind == "medusa") return write_random_medusa(spec, target, dir);
  if (spec.kind == "eagle") return write_random_eagle(spec, target, dir);
  if (spec.kind == "redrafter") return write_random_redrafter(spec, target, dir);
  throw InputError("drafter", fmt::format("'{}'", spec.kind), "unknown (expected one of medusa, eagle, redrafter)");
}

}  // namespace draftbench
