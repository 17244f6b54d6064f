// The n-gram drafter's proposals on hand-made contexts: the longest suffix first, the most
// recent match first, continuations merged into a trie, the token budget and branch limit,
// and nothing proposed where nothing matches.
#include <catch2/catch.hpp>

#include "engine/drafters/make_drafter.h"
#include "engine/drafters/ngram/ngram.h"

using namespace draftbench;

namespace {

Draft propose(const std::vector<int32_t>& context, int32_t root, DrafterOptions o) {
  o.kind = "ngram";
  NgramDrafter drafter(o);
  Draft d;
  drafter.propose(DraftContext{0, context, root, {}}, d);
  return d;
}

DrafterOptions options(int min, int max, int tokens, int branches) {
  DrafterOptions o;
  o.ngram_min = min;
  o.ngram_max = max;
  o.draft_tokens = tokens;
  o.ngram_branches = branches;
  return o;
}

}  // namespace

TEST_CASE("ngram: a chain from the most recent match of the longest suffix", "[ngram]") {
  // ... 1 2 3 4 5 ... 9 2 3 7 8 ... root 3 after 2: suffix "2 3" last seen before "7 8".
  const Draft d = propose({1, 2, 3, 4, 5, 6, 9, 2, 3, 7, 8, 0, 2}, 3, options(1, 3, 3, 1));
  CHECK(d.tree.tokens == std::vector<int32_t>{3, 7, 8, 0});
  CHECK(d.tree.parents == std::vector<int32_t>{-1, 0, 1, 2});
}

TEST_CASE("ngram: a longer suffix wins over a more recent shorter one", "[ngram]") {
  // "5 6" occurs once (followed by 1); "6" alone more recently (followed by 9).
  const Draft d = propose({5, 6, 1, 2, 6, 9, 4, 5}, 6, options(1, 2, 2, 1));
  CHECK(d.tree.tokens == std::vector<int32_t>{6, 1, 2});
}

TEST_CASE("ngram: several continuations form a trie within the budget", "[ngram]") {
  // After "1": 2 3 (twice: the second adds nothing) and 4 5, each cut to ceil(4 / 3) = 2.
  const Draft d = propose({1, 4, 5, 1, 2, 3, 1, 2, 3}, 1, options(1, 1, 4, 3));
  CHECK(d.tree.tokens == std::vector<int32_t>{1, 2, 3, 4, 5});
  CHECK(d.tree.parents == std::vector<int32_t>{-1, 0, 1, 0, 3});
  CHECK(d.tree.size() <= 1 + 4);
  const Draft small = propose({1, 4, 5, 1, 2, 3, 1, 2, 3}, 1, options(1, 1, 3, 3));  // depth 1
  CHECK(small.tree.tokens == std::vector<int32_t>{1, 2, 4});
}

TEST_CASE("ngram: no match, or a suffix shorter than ngram_min, proposes the root alone", "[ngram]") {
  CHECK(propose({1, 2, 3}, 4, options(1, 3, 8, 2)).tree.size() == 1);
  CHECK(propose({}, 4, options(1, 3, 8, 2)).tree.size() == 1);
  CHECK(propose({7, 8, 1, 9}, 7, options(2, 3, 8, 2)).tree.size() == 1);  // only "7" matches
}

TEST_CASE("ngram: options out of range are one-line errors", "[ngram]") {
  CHECK_THROWS_WITH(NgramDrafter(options(3, 2, 8, 1)), Catch::Contains("--ngram-min"));
  CHECK_THROWS_WITH(NgramDrafter(options(1, 3, -1, 1)), Catch::Contains("--draft-tokens"));
  CHECK_THROWS_WITH(NgramDrafter(options(1, 3, 0, 1)), Catch::Contains("--draft-tokens"));  // auto is the sized drafter's
  CHECK(std::string(known_drafters()).find("ngram") != std::string::npos);
  CHECK_FALSE(find_drafter_kind("ngram")->needs_weights);
}
