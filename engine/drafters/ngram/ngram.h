// The n-gram drafter (prompt lookup): training-free. It finds the most recent earlier
// places where the context's last n tokens (root included) occurred, for n from
// ngram_max down to ngram_min, and proposes the tokens that followed them. Several
// matches with different continuations form a tree: continuations are merged into a trie
// under the root, longest matches and then the most recent first, so equal prefixes share
// nodes, until `branches` distinct continuations or `draft_tokens` nodes; each
// continuation is cut to ceil(draft_tokens / branches) tokens. Deterministic:
// at temperature > 0 exact verification accepts or rejects its drafts without changing
// the tokens sampled. No weights. Its budget is fixed;
// `--drafter ngram` with draft_tokens = 0 (auto) is this drafter inside a SizedDrafter
// (sized_drafter.h), which trims each step's draft to what pays on the machine.
#pragma once

#include "engine/decoding/drafter.h"
#include "engine/drafters/make_drafter.h"

namespace draftbench {

class NgramDrafter final : public Drafter {
 public:
  // Throws InputError for options out of range (DrafterOptions' ngram fields; draft_tokens
  // at least 1).
  explicit NgramDrafter(const DrafterOptions& options);
  std::string name() const override { return "ngram"; }
  int32_t max_tree_nodes() const override { return 1 + draft_tokens_; }
  void reset(int) override {}
  void propose(const DraftContext& ctx, Draft& out) override;

 private:
  // Adds the continuations to `out` (root only).
  void lookup(int32_t budget, Draft& out);

  int ngram_min_, ngram_max_, draft_tokens_, branches_;
  std::vector<int32_t> text_;  // scratch: context + root
};

}  // namespace draftbench
