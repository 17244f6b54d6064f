// The forward pass on the real default model: sensible greedy output, and the exactness
// properties speculative decoding stands on — batch invariance and tree == chain, bit for bit.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>

#include "engine/decoding/autoregressive.h"
#include "engine/decoding/prefill.h"
#include "engine/model/model.h"
#include "tests/support/default_model.h"
#include "tests/support/logit_compare.h"
#include "engine/model/transformer.h"

using namespace draftbench;
using draftbench::test::default_model;
using draftbench::test::same_bits;

namespace {

std::vector<float> last_logits_alone(const Model& m, Transformer& tf, const std::vector<int32_t>& tokens) {
  KvCache cache(m.config(), 1, static_cast<int64_t>(tokens.size()));
  ForwardBatch b;
  b.sequences.push_back(SequenceInput{0, tokens, TokenTree::chain(static_cast<int32_t>(tokens.size())), {static_cast<int32_t>(tokens.size()) - 1}, {}});
  ForwardResult r;
  tf.forward(b, cache, r);
  return r.logits;
}

}  // namespace

TEST_CASE("greedy continuation of factual prompts is sensible", "[model]") {
  const Model& m = default_model();
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  struct Fact {
    const char* prompt;
    const char* answer;
  };
  // The default model is the base (not instruction-tuned) 270M: plain completions.
  for (const Fact& f : {Fact{"Paris is the capital city of", "France"}, Fact{"The Eiffel Tower is located in the city of", "Paris"},
                        Fact{"Question: What is the capital of Japan?\nAnswer:", "Tokyo"}, Fact{"William Shakespeare was born in the year", "1564"}}) {
    const auto prompt = m.tokenizer().encode(f.prompt, true, false);
    KvCache cache(m.config(), 1, static_cast<int64_t>(prompt.size()) + 10);
    GenerationOptions opt;
    opt.max_new_tokens = 10;
    const auto r = generate_autoregressive(m, tf, cache, 0, prompt, opt, false, nullptr);
    const std::string text = m.tokenizer().decode(r.tokens);
    INFO(f.prompt << " ->" << text);
    REQUIRE(text.find(f.answer) != std::string::npos);
  }
}

TEST_CASE("logits do not depend on the rest of the batch", "[model][invariance]") {
  const Model& m = default_model();
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  const auto a = m.tokenizer().encode("Speculative decoding verifies drafts", true, false);
  const auto b = m.tokenizer().encode("A completely different and somewhat longer prompt about cooking pasta", true, false);
  const auto alone = last_logits_alone(m, tf, a);

  KvCache cache(m.config(), 3, 64);
  ForwardBatch batch;
  batch.sequences.push_back(SequenceInput{1, b, TokenTree::chain(static_cast<int32_t>(b.size())), {0, static_cast<int32_t>(b.size()) - 1}, {}});
  batch.sequences.push_back(SequenceInput{2, a, TokenTree::chain(static_cast<int32_t>(a.size())), {static_cast<int32_t>(a.size()) - 1}, {}});
  ForwardResult r;
  tf.forward(batch, cache, r);
  REQUIRE(same_bits(r.logits_row(2), alone));
  // And with a different thread count.
  ThreadPool one(1);
  Transformer tf1(m.config(), m.weights(), one);
  REQUIRE(same_bits(last_logits_alone(m, tf1, a), alone));
}

TEST_CASE("a token tree gives every node the logits of its path run as a chain", "[model][tree]") {
  const Model& m = default_model();
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  const auto prompt = m.tokenizer().encode("Once upon a time, in a small village,", true, false);
  const auto& tok = m.tokenizer();
  // root, two branches, one of depth 3.
  const std::vector<int32_t> tokens = {tok.encode(" there", false, false)[0], tok.encode(" lived", false, false)[0], tok.encode(" was", false, false)[0],
                                       tok.encode(" a", false, false)[0],     tok.encode(" young", false, false)[0], tok.encode(" an", false, false)[0]};
  const std::vector<int32_t> parents = {-1, 0, 0, 1, 3, 2};

  KvCache cache(m.config(), 1, 64);
  ForwardBatch pre;
  pre.sequences.push_back(SequenceInput{0, prompt, TokenTree::chain(static_cast<int32_t>(prompt.size())), {}, {}});
  ForwardResult r;
  tf.forward(pre, cache, r);
  cache.commit_prefix(0, static_cast<int64_t>(prompt.size()));

  ForwardBatch tree;
  tree.sequences.push_back(SequenceInput{0, tokens, TokenTree::from_parents(parents), {0, 1, 2, 3, 4, 5}, {4}});
  tf.forward(tree, cache, r);
  const ForwardResult tree_result = r;

  const TokenTree& t = tree.sequences[0].tree;
  for (int32_t node = 0; node < t.size(); ++node) {
    std::vector<int32_t> chain = prompt;
    for (int32_t p : t.path_to(node)) chain.push_back(tokens[p]);
    INFO("node " << node);
    REQUIRE(same_bits(tree_result.logits_row(node), last_logits_alone(m, tf, chain)));
  }

  // Commit the deepest path and continue: the next step equals the chain's next step.
  const auto path = t.path_to(4);
  cache.commit(0, path);
  ForwardBatch next;
  next.sequences.push_back(SequenceInput{0, {tok.encode(" girl", false, false)[0]}, TokenTree::chain(1), {0}, {}});
  tf.forward(next, cache, r);
  std::vector<int32_t> chain = prompt;
  for (int32_t p : path) chain.push_back(tokens[p]);
  chain.push_back(next.sequences[0].tokens[0]);
  REQUIRE(same_bits(r.logits_row(0), last_logits_alone(m, tf, chain)));
}

TEST_CASE("prompts longer than the context are refused with a clear error", "[model]") {
  const Model& m = default_model();
  ThreadPool pool(1);
  Transformer tf(m.config(), m.weights(), pool);
  KvCache cache(m.config(), 1, 4);
  const auto prompt = m.tokenizer().encode("one two three four five six seven", true, false);
  GenerationOptions opt;
  opt.max_new_tokens = 4;
  REQUIRE_THROWS_WITH(generate_autoregressive(m, tf, cache, 0, prompt, opt, false, nullptr), Catch::Contains("exceed the context"));
}

TEST_CASE("chunked prefill across the sliding window equals one forward over the prompt", "[model][prefill]") {
  // 1100 tokens in 512-token chunks: the local layers' 512-position window spans chunk
  // boundaries, and the last chunk's keys come partly from the committed region.
  const Model& m = default_model();
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  std::vector<int32_t> prompt(1100);
  for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = 1000 + static_cast<int32_t>((i * 7919) % 50000);
  prompt[0] = m.tokenizer().bos_id();
  const auto n = static_cast<int32_t>(prompt.size());
  KvCache one_cache(m.config(), 1, n);
  ForwardBatch batch;
  batch.sequences.push_back(SequenceInput{0, prompt, TokenTree::chain(n), {n - 1}, {n - 1}});
  ForwardResult one;
  tf.forward(batch, one_cache, one);
  KvCache cache(m.config(), 1, n);
  const PrefillInput input{0, prompt, false};
  PrefillOutput chunked;
  prefill(tf, cache, std::span(&input, 1), chunked);
  const auto a = chunked.logits_of(0), b = one.logits_row(0);
  REQUIRE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
  const auto ha = chunked.hidden_of(0), hb = one.hidden_row(0);
  REQUIRE(std::equal(ha.begin(), ha.end(), hb.begin(), hb.end()));
}
