// A drafter that replays the true greedy continuation with deliberate corruption: random
// depth, a wrong token now and then, wrong siblings before and after the right branch. Tests
// of the decoding loop use it to exercise partial acceptance, rejection at every depth,
// sibling order and KV compaction, independently of any real drafter's quality.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "engine/decoding/drafter.h"

namespace draftbench::test {

class CorruptedReplayDrafter final : public Drafter {
 public:
  // truth[s]: sequence s's greedy continuation; wrong tokens are drawn from [token_lo, token_hi].
  CorruptedReplayDrafter(std::vector<std::vector<int32_t>> truth, std::vector<size_t> prompt_lengths, uint64_t seed, int32_t token_lo, int32_t token_hi)
      : truth_(std::move(truth)), prompt_lengths_(std::move(prompt_lengths)), rng_(seed), any_token_(token_lo, token_hi) {}
  std::string name() const override { return "corrupted-replay"; }
  int32_t max_tree_nodes() const override { return 16; }
  void reset(int) override {}
  void propose(const DraftContext& ctx, Draft& draft) override {
    DraftTree& out = draft.tree;
    out.reset_to_root(ctx.root);
    const auto& truth = truth_[ctx.seq];
    const size_t k = ctx.tokens.size() - prompt_lengths_[ctx.seq];  // truth[k] is the root
    std::uniform_int_distribution<int> depth_d(0, 5), coin(0, 3);
    const int depth = depth_d(rng_);
    // A wrong first child now and then, so the right branch is not always the first path.
    if (coin(rng_) == 0) out.add(0, any_token_(rng_));
    int32_t parent = 0;
    for (int d = 1; d <= depth && k + d < truth.size(); ++d) {
      const bool corrupt = coin(rng_) == 0;
      const int32_t node = out.add(parent, corrupt ? any_token_(rng_) : truth[k + d]);
      if (coin(rng_) == 0) out.add(parent, any_token_(rng_));  // a sibling after the main branch
      parent = node;
    }
  }

 private:
  std::vector<std::vector<int32_t>> truth_;
  std::vector<size_t> prompt_lengths_;
  std::mt19937_64 rng_;
  std::uniform_int_distribution<int32_t> any_token_;
};

}  // namespace draftbench::test
