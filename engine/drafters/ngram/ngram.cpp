#include "engine/drafters/ngram/ngram.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/common/error.h"
#include "engine/drafters/axis_table.h"

namespace draftbench {
namespace {

// The child of `parent` holding `token`, or -1. Trees here are a few dozen nodes.
int32_t child_with(const DraftTree& tree, int32_t parent, int32_t token) {
  for (int32_t v = parent + 1; v < tree.size(); ++v)
    if (tree.parents[static_cast<size_t>(v)] == parent && tree.tokens[static_cast<size_t>(v)] == token) return v;
  return -1;
}

}  // namespace

NgramDrafter::NgramDrafter(const DrafterOptions& o)
    : ngram_min_(o.ngram_min), ngram_max_(o.ngram_max), draft_tokens_(o.draft_tokens), branches_(o.ngram_branches) {
  check_drafter_settings(o, kLookup, "drafter ngram");
  const Setting &min = setting("ngram_min"), &tokens = setting("draft_tokens");
  check_setting(min, ngram_min_, "drafter ngram", min.lo, ngram_max_, "at most --ngram-max");
  check_setting(tokens, draft_tokens_, "drafter ngram", 1, tokens.hi, "auto is the sized drafter around this one");
}

void NgramDrafter::propose(const DraftContext& ctx, Draft& out) {
  out.reset_to_root(ctx.root);
  text_.assign(ctx.tokens.begin(), ctx.tokens.end());
  text_.push_back(ctx.root);
  lookup(draft_tokens_, out);
}

void NgramDrafter::lookup(int32_t budget, Draft& out) {
  const auto size = static_cast<int64_t>(text_.size());
  // Each continuation is cut to its share of the budget, so that later matches still get
  // a branch; one that runs along an earlier branch adds nothing and does not count.
  const int64_t depth = (budget + branches_ - 1) / branches_;
  auto room = [&] { return out.tree.size() <= budget; };
  int branches = 0;
  for (int64_t n = std::min<int64_t>(ngram_max_, size - 1); n >= ngram_min_ && branches < branches_ && room(); --n) {
    const int32_t* suffix = text_.data() + size - n;
    // Earlier occurrences ending at `end` (exclusive), most recent first; the suffix itself
    // (end == size) is not a match, and a match needs one token after it.
    for (int64_t end = size - 1; end >= n && branches < branches_ && room(); --end) {
      if (!std::equal(suffix, suffix + n, text_.data() + end - n)) continue;
      int32_t node = 0;
      int added = 0;
      int64_t i = end;
      for (; i < size && i - end < depth && room(); ++i) {
        const int32_t token = text_[static_cast<size_t>(i)];
        const int32_t existing = child_with(out.tree, node, token);
        if (existing >= 0) {
          node = existing;
        } else {
          node = out.tree.add(node, token);
          ++added;
        }
      }
      branches += added > 0;
    }
  }
}

const DrafterKind& ngram_kind() {
  static constexpr DrafterKind kind{
      .name = "ngram",
      .needs_weights = false,
      .weights_of = "ngram",
      .with_lookup = false,
      .make = [](DrafterCheckpoint*, const DrafterOptions& o, const Model&, ThreadPool&) -> std::unique_ptr<Drafter> {
        if (o.draft_tokens > 0) return std::make_unique<NgramDrafter>(o);
        return make_sized_drafter(true, nullptr, o);  // auto: the lookup alone, trimmed by the tree sizer
      },
      .write_random = nullptr,
      .sizes_automatically = [](const DrafterOptions& o) { return o.draft_tokens == 0; },
      .reads = [](const DrafterOptions&) -> uint32_t { return kEveryDrafter | kLookup; },
      .estimate =
          [](const DrafterOptions& o) {
            return StepEstimate{1.0 + o.draft_tokens, 2};
          },
      .config_keys = {},
      .is_reference = nullptr,
      .training = nullptr,
      .pairs_with_lookup = false,
  };
  return kind;
}

}  // namespace draftbench
