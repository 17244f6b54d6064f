// The continuation tree on the real model, past Gemma's 512-token sliding window: the
// branches' continuations are those of autoregressive greedy decoding from each position.
#include <catch2/catch.hpp>

#include "engine/train/continuation_tree.h"
#include "tests/support/default_model.h"
#include "tests/support/greedy_reference.h"

using namespace draftbench;
using draftbench::test::default_model;

TEST_CASE("continuation tree on Gemma: branches past the sliding window equal greedy decoding", "[distill]") {
  const Model& m = default_model();
  REQUIRE(m.config().sliding_window > 0);
  DistillSequence seq;
  std::string text;
  for (int i = 0; text.size() < 3000; ++i) text += "Paragraph " + std::to_string(i) + ": the committee met again and the minutes were read aloud. ";
  seq.tokens = m.tokenizer().encode(text, true, false);
  const int32_t L = static_cast<int32_t>(m.config().sliding_window) + 24;
  REQUIRE(static_cast<int32_t>(seq.tokens.size()) >= L);
  seq.tokens.resize(static_cast<size_t>(L));
  seq.trained.assign(seq.tokens.size(), 0);
  const std::vector<int32_t> checked{5, L - 20, L - 2};
  for (int32_t t : checked) seq.trained[static_cast<size_t>(t)] = 1;

  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  constexpr int64_t C = 6;
  ContinuationTree tree(m, tf, C);
  tree.run(seq, true);
  for (int32_t t : checked) {
    INFO("position " << t);
    const std::vector<int32_t> prefix(seq.tokens.begin(), seq.tokens.begin() + t + 1);
    const std::vector<int32_t> want = test::greedy_reference(m, prefix, static_cast<int>(C));
    const std::vector<int32_t> got(seq.continuation.begin() + t * C, seq.continuation.begin() + (t + 1) * C);
    REQUIRE(got == want);
  }
}
