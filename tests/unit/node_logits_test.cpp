// NodeLogits (engine/decoding/node_logits.h), the LM head at the nodes verification visits.
// Against a counting fake pass: a step's first pass holds every tree's root and first-child
// path; a node outside it costs one more pass, with its own first-child path; root copies'
// children count as the root's; argmaxes and rows are exactly the pass's, and handed-out rows
// stay put; the lookahead grows and shrinks with the first children verification takes.
// Through the Decoder on the tiny random Llama, the lookahead changes no token: greedy
// decoding stays the autoregressive reference, and sampled decoding the same sample for the
// same seed.
#include <catch2/catch.hpp>

#include <optional>
#include <random>
#include <span>
#include <vector>

#include "engine/decoding/decoder.h"
#include "engine/decoding/node_logits.h"
#include "engine/model/transformer.h"
#include "tests/support/greedy_reference.h"
#include "tests/support/replay_drafter.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;
using namespace draftbench::test;

namespace {

constexpr int64_t kVocab = 50, kEmbd = 4;

// logits[j] = hidden[j % 4] * (1 + j / 4): a fixed function of the hidden state, recording
// every pass it is asked for.
class CountingHead final : public ForwardPass {
 public:
  void forward(const ForwardBatch&, KvCache&, ForwardResult&) override { FAIL("NodeLogits never runs a forward"); }
  void logits_from_hidden(const float* hidden, int64_t n, float* logits) override {
    logit_passes.push_back(n);
    fill(hidden, n, logits);
  }
  void argmax_from_hidden(const float* hidden, int64_t n, int32_t* ids) override {
    argmax_passes.push_back(n);
    std::vector<float> logits(static_cast<size_t>(n * kVocab));
    fill(hidden, n, logits.data());
    for (int64_t r = 0; r < n; ++r) ids[r] = argmax(std::span<const float>(logits.data() + r * kVocab, kVocab));
  }
  std::string describe() const override { return "counting"; }
  static void fill(const float* hidden, int64_t n, float* logits) {
    for (int64_t r = 0; r < n; ++r)
      for (int64_t j = 0; j < kVocab; ++j) logits[r * kVocab + j] = hidden[r * kEmbd + j % kEmbd] * static_cast<float>(1 + j / kEmbd);
  }
  std::vector<int64_t> logit_passes, argmax_passes;
};

std::vector<float> random_hidden(int32_t n_nodes, std::mt19937& rng) {
  std::normal_distribution<float> normal;
  std::vector<float> h(static_cast<size_t>(n_nodes * kEmbd));
  for (float& v : h) v = normal(rng);
  return h;
}

std::vector<float> expected_row(const std::vector<float>& hidden, int32_t node) {
  std::vector<float> row(kVocab);
  CountingHead::fill(hidden.data() + node * kEmbd, 1, row.data());
  return row;
}

}  // namespace

TEST_CASE("NodeLogits: roots and first-child paths in one pass, other nodes with their own path", "[node_logits]") {
  std::mt19937 rng(41);
  // Node 1 is the root's first child, 3 its first child, 5 below 3; 2 and 4 are siblings.
  const TokenTree deep = TokenTree::from_parents(std::vector<int32_t>{-1, 0, 0, 1, 1, 3});
  const TokenTree single = TokenTree::chain(1);
  const std::vector<float> h_deep = random_hidden(deep.size(), rng), h_single = random_hidden(1, rng);
  for (const int32_t lookahead : {0, 1, 2}) {
    CountingHead head;
    NodeLogits logits(head, kVocab, kEmbd, lookahead);
    logits.begin_step(HeadOutput::argmax);
    REQUIRE(logits.add_tree(h_deep.data(), deep) == 0);
    REQUIRE(logits.add_tree(h_single.data(), single) == 1);
    logits.compute_predicted_paths();
    // The root of each tree and `lookahead` nodes of the deep tree's path 0-1-3-5.
    REQUIRE(head.argmax_passes == std::vector<int64_t>{2 + lookahead});
    const LazyLogits& tree = logits.tree(0);
    for (int32_t node = 0; node < deep.size(); ++node) {
      INFO("lookahead " << lookahead << " node " << node);
      REQUIRE(tree.argmax(node) == argmax(std::span<const float>(expected_row(h_deep, node))));
    }
    REQUIRE(logits.tree(1).argmax(0) == argmax(std::span<const float>(expected_row(h_single, 0))));
    // Greedy steps never make logit rows. Asked in node order, the nodes outside the first
    // pass came in passes of their own, each with its first-child path: lookahead 0 one node
    // at a time; 1: then 2, then 3 with 5, then 4; 2: then 2, 4 and 5 (below 0-1-3).
    REQUIRE(head.logit_passes.empty());
    const std::vector<std::vector<int64_t>> passes_by_lookahead = {{2, 1, 1, 1, 1, 1}, {3, 1, 2, 1}, {4, 1, 1, 1}};
    REQUIRE(head.argmax_passes == passes_by_lookahead[static_cast<size_t>(lookahead)]);
    REQUIRE(logits.passes() == static_cast<int64_t>(head.argmax_passes.size()));
    REQUIRE(logits.rows_computed() == 7);
  }
}

TEST_CASE("NodeLogits: logit rows are the pass's bits and stay put while later passes run", "[node_logits]") {
  std::mt19937 rng(42);
  const TokenTree tree = TokenTree::from_parents(std::vector<int32_t>{-1, 0, 0, 2, 2, 4, 1});
  const std::vector<float> hidden = random_hidden(tree.size(), rng);
  CountingHead head;
  NodeLogits logits(head, kVocab, kEmbd, 1);
  for (int step = 0; step < 2; ++step) {  // the second step reuses the first one's blocks
    head.logit_passes.clear();
    logits.begin_step(HeadOutput::logits);
    logits.add_tree(hidden.data(), tree);
    logits.compute_predicted_paths();
    REQUIRE(head.logit_passes == std::vector<int64_t>{2});
    const LazyLogits& view = logits.tree(0);
    std::vector<std::span<const float>> rows;
    for (int32_t node = 0; node < tree.size(); ++node) rows.push_back(view.row(node));
    REQUIRE(head.logit_passes == std::vector<int64_t>{2, 2, 2, 1});  // 0 1 | 2 3 | 4 5 | 6
    for (int32_t node = 0; node < tree.size(); ++node) {
      const std::vector<float> expected = expected_row(hidden, node);
      INFO("step " << step << " node " << node);
      REQUIRE(std::equal(rows[static_cast<size_t>(node)].begin(), rows[static_cast<size_t>(node)].end(), expected.begin(), expected.end()));
      REQUIRE(view.argmax(node) == argmax(std::span<const float>(expected)));
    }
    REQUIRE(head.argmax_passes.empty());  // a sampling step reads argmaxes from its rows
  }
}

TEST_CASE("NodeLogits: the children of root copies are the root's", "[node_logits]") {
  std::mt19937 rng(43);
  // Unpacked beams: nodes 1 and 3 copy the root (parent -1), and their children 2 and 4
  // count as the root's; its first child is the lower, 2, which has no child of its own.
  const TokenTree beams = TokenTree::from_parents(std::vector<int32_t>{-1, -1, 1, -1, 3});
  const std::vector<float> hidden = random_hidden(beams.size(), rng);
  CountingHead head;
  NodeLogits logits(head, kVocab, kEmbd, 2);
  logits.begin_step(HeadOutput::argmax);
  logits.add_tree(hidden.data(), beams);
  logits.compute_predicted_paths();
  REQUIRE(head.argmax_passes == std::vector<int64_t>{2});  // nodes 0 and 2
  logits.tree(0).argmax(2);
  REQUIRE(head.argmax_passes.size() == 1);
  logits.tree(0).argmax(4);
  REQUIRE(head.argmax_passes == std::vector<int64_t>{2, 1});
}

TEST_CASE("NodeLogits: the lookahead follows how often verification takes the first child", "[node_logits]") {
  std::mt19937 rng(44);
  const TokenTree chain = TokenTree::chain(10);
  const std::vector<float> hidden = random_hidden(chain.size(), rng);
  std::vector<int32_t> whole(10);
  for (int32_t i = 0; i < 10; ++i) whole[static_cast<size_t>(i)] = i;
  const std::vector<int32_t> root_only = {0};
  CountingHead head;
  NodeLogits logits(head, kVocab, kEmbd);
  REQUIRE(logits.lookahead() == 0);  // the prior, below the break-even share
  auto step = [&](std::span<const int32_t> accepted) {
    head.argmax_passes.clear();
    logits.begin_step(HeadOutput::argmax);
    logits.add_tree(hidden.data(), chain);
    logits.compute_predicted_paths();
    logits.observe_path(0, accepted);
    return head.argmax_passes.front();
  };
  // Whole chains accepted: the first pass grows to the whole tree.
  REQUIRE(step(whole) == 1);
  REQUIRE(logits.lookahead() == 2);  // p = (2 + 9) / (8 + 9)
  for (int i = 0; i < 20; ++i) step(whole);
  REQUIRE(logits.lookahead() == 16);
  REQUIRE(step(whole) == 10);
  // Then nothing accepted, again and again: down to the root alone.
  for (int i = 0; i < 1000; ++i) step(root_only);
  REQUIRE(logits.lookahead() == 0);
  REQUIRE(step(root_only) == 1);
}

TEST_CASE("NodeLogits: cheaper head rows buy a deeper lookahead at the same acceptance", "[node_logits]") {
  CountingHead head;
  const TokenTree chain = TokenTree::chain(4);
  std::mt19937 rng(45);
  const std::vector<float> hidden = random_hidden(chain.size(), rng);
  const std::vector<int32_t> path = {0, 1};  // the first child taken, then not its own
  auto lookahead_at = [&](double row_cost) {
    NodeLogits logits(head, kVocab, kEmbd, std::nullopt, row_cost);
    for (int i = 0; i < 30; ++i) {
      logits.begin_step(HeadOutput::argmax);
      logits.add_tree(hidden.data(), chain);
      logits.observe_path(0, path);  // two chances a step, one taken: p = 32 / 68 = 0.47 with the prior
    }
    return logits.lookahead();
  };
  CHECK(lookahead_at(0.3) == 1);   // 0.47 >= 0.3 > 0.47^2
  CHECK(lookahead_at(0.08) == 3);  // 0.47^3 = 0.104 >= 0.08 > 0.47^4
  CHECK(lookahead_at(1.0) == 0);
}

TEST_CASE("Decoder: the LM-head lookahead changes no token, greedy or sampled", "[node_logits][decoder]") {
  TempDir dir("node_logits");
  write_llama_gguf(make_tiny_llama(), dir / "tiny.gguf");
  const auto model = Model::load(dir / "tiny.gguf");
  const Model& m = *model;
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  const std::vector<std::vector<int32_t>> prompts = tiny_prompts(m);
  constexpr int kNew = 24;
  std::vector<std::vector<int32_t>> truth;
  std::vector<size_t> lengths;
  for (const auto& p : prompts) {
    truth.push_back(greedy_reference(m, tf, p, kNew));
    lengths.push_back(p.size());
  }
  DecodeOptions opt;
  opt.max_new_tokens = kNew;
  opt.ignore_eos = true;
  const int32_t vocab_hi = static_cast<int32_t>(m.config().n_vocab) - 1;
  for (const std::optional<int32_t> lookahead : {std::optional<int32_t>{}, {0}, {1}, {2}, {7}}) {  // {}: adaptive
    opt.head_lookahead = lookahead;
    opt.sampling = SamplingParams{};
    CorruptedReplayDrafter greedy_drafter(truth, lengths, 5, 3, vocab_hi);
    const auto greedy = Decoder(m, tf, greedy_drafter).generate(prompts, opt);
    for (size_t i = 0; i < prompts.size(); ++i) {
      INFO("lookahead " << lookahead.value_or(-1) << " prompt " << i);
      REQUIRE(greedy[i].tokens == truth[i]);
    }
  }
  // Sampled: the same draws whatever the lookahead (rows are bit-identical whichever pass
  // computes them), with drafts that are often accepted at a low temperature.
  std::vector<std::vector<int32_t>> first;
  for (const std::optional<int32_t> lookahead : {std::optional<int32_t>{}, {0}, {1}, {3}}) {
    opt.head_lookahead = lookahead;
    opt.sampling = SamplingParams{0.3f, 0, 1.0f};
    opt.seed = 9;
    CorruptedReplayDrafter drafter(truth, lengths, 6, 3, vocab_hi);
    const auto sampled = Decoder(m, tf, drafter).generate(prompts, opt);
    std::vector<std::vector<int32_t>> tokens;
    for (const auto& r : sampled) tokens.push_back(r.tokens);
    if (first.empty()) first = tokens;
    INFO("lookahead " << lookahead.value_or(-1));
    REQUIRE(tokens == first);
  }
}
