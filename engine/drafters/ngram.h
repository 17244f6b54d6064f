// The n-gram drafter (prompt lookup): training-free. It finds the most recent earlier
// places where the context's last n tokens (root included) occurred, for n from
// ngram_max down to ngram_min, and proposes the tokens that followed them. Several
// matches with different continuations form a tree: continuations are merged into a trie
// under the root, longest matches and then the most recent first, so equal prefixes share
// nodes, until `branches` distinct continuations or `draft_tokens` nodes; each
// continuation is cut to ceil(draft_tokens / branches) tokens. Deterministic:
// at temperature > 0 its drafts are one-hot proposals, which exact verification accepts
// or rejects without changing the target distribution. No weights. With draft_tokens = 0
// (auto) a ChainSizer picks each step's budget from the cost model and the acceptance seen
// so far, pooled over the batch's sequences; budget 0 is an autoregressive step.
#pragma once

#include <optional>

#include "engine/decoding/draft_sizing.h"
#include "engine/drafters/drafter.h"
#include "engine/drafters/make_drafter.h"

namespace draftbench {

class NgramDrafter final : public Drafter {
 public:
  // Throws InputError for options out of range (DrafterOptions' ngram fields).
  explicit NgramDrafter(const DrafterOptions& options);
  std::string name() const override { return "ngram"; }
  int32_t max_tree_nodes() const override { return 1 + (sizer_ ? kAutoMaxTokens : draft_tokens_); }
  void reset(int n_sequences) override { offered_.assign(static_cast<size_t>(n_sequences), 0); }
  void propose(const DraftContext& ctx, Draft& out) override;
  void accept(int seq, const AcceptedPath& path) override;

  static constexpr int32_t kAutoMaxTokens = 32;  // the largest auto budget

 private:
  // Adds the continuations to `out` (root only); returns the deepest one's length.
  int32_t lookup(int32_t budget, Draft& out);

  int ngram_min_, ngram_max_, draft_tokens_, branches_;
  std::optional<ChainSizer> sizer_;  // auto sizing
  std::vector<int32_t> offered_;     // per sequence: depth of its last draft
  std::vector<int32_t> text_;        // scratch: context + root
};

}  // namespace draftbench
