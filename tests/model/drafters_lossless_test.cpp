// Issue item: at temperature 0 every drafter, in every configuration, yields exactly the
// tokens of autoregressive greedy decoding — on the real default model, 8 prompts x 64 new
// tokens, across beam shapes, tree attention on and off, static and dynamic trees, and
// batch sizes. The drafters carry untrained weights (written by write_random_drafter),
// which is what losslessness must not depend on; tests/model/decoder_lossless_test.cpp
// covers deep partial acceptance with replayed drafts.
#include <catch2/catch.hpp>

#include "engine/decoding/autoregressive.h"
#include "engine/decoding/decoder.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/transformer.h"
#include "tests/support/cost_curves.h"
#include "tests/support/default_model.h"
#include "tests/support/shared_truth.h"
#include "tests/support/temp_dir.h"

using namespace draftbench;
using draftbench::test::default_model;
using draftbench::test::TempDir;

namespace {

constexpr int kNewTokens = 64;

const std::vector<std::string>& prompt_texts() {
  static const std::vector<std::string> texts = {"The history of the printing press",          "def fibonacci(n):",
                                                 "Three facts about octopuses:\n1.",           "In 1969, the first humans",
                                                 "Dear hiring manager, I am writing to",       "The recipe calls for two cups of flour,",
                                                 "Q: What is the boiling point of water?\nA:", "Once upon a time in a small village,"};
  return texts;
}

struct Truth {
  std::vector<std::vector<int32_t>> prompts, tokens;
};

// Autoregressive greedy decoding of every prompt: computed by the first test case's process
// and shared with the others (tests/support/shared_truth.h).
const Truth& truth() {
  static const Truth t = [] {
    const Model& m = default_model();
    Truth out;
    std::string key = "drafters_lossless_test new_tokens=" + std::to_string(kNewTokens);
    for (const auto& text : prompt_texts()) {
      out.prompts.push_back(m.tokenizer().encode(text, true, false));
      key += "|" + text;
    }
    out.tokens = test::shared_truth(test::default_model_path(), key, [&] {
      ThreadPool pool(2);
      Transformer tf(m.config(), m.weights(), pool);
      test::TokenRows tokens;
      for (const auto& prompt : out.prompts) {
        KvCache cache(m.config(), 1, static_cast<int64_t>(prompt.size()) + kNewTokens);
        GenerationOptions g;
        g.max_new_tokens = kNewTokens;
        g.ignore_eos = true;
        tokens.push_back(generate_autoregressive(m, tf, cache, 0, prompt, g, false, nullptr).tokens);
      }
      return tokens;
    });
    return out;
  }();
  return t;
}

// Decodes every prompt in batches of `batch` with the drafter and checks each sequence.
void require_lossless(const DrafterOptions& options, size_t batch, const std::string& label) {
  const size_t n_prompts = truth().prompts.size();
  const Model& m = default_model();
  const Truth& t = truth();
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  auto drafter = make_drafter(options, m, pool);
  Decoder decoder(m, tf, *drafter);
  DecodeOptions opt;
  opt.max_new_tokens = kNewTokens;
  opt.ignore_eos = true;
  for (size_t first = 0; first < n_prompts; first += batch) {
    const size_t n = std::min(batch, n_prompts - first);
    const std::vector<std::vector<int32_t>> prompts(t.prompts.begin() + static_cast<ptrdiff_t>(first), t.prompts.begin() + static_cast<ptrdiff_t>(first + n));
    opt.first_request = first;
    const auto results = decoder.generate(prompts, opt);
    for (size_t i = 0; i < n; ++i) {
      INFO(label << ", batch " << batch << ", prompt " << first + i);
      REQUIRE(results[i].tokens == t.tokens[first + i]);
    }
  }
}

std::string write_weights(const TempDir& dir, const std::string& kind, uint64_t seed) {
  RandomDrafterSpec spec;
  spec.kind = kind;
  spec.seed = seed;
  spec.draft_vocab = 8192;
  const std::string path = dir / (kind + std::to_string(seed));
  write_random_drafter(spec, default_model(), path);
  return path;
}

}  // namespace

TEST_CASE("real model: ReDrafter is lossless at temperature 0 for every beam shape, tree attention on/off, batch 1..8", "[model][lossless][redrafter]") {
  TempDir dir("lossless_redrafter");
  DrafterOptions o;
  o.kind = "redrafter";
  o.weights_dir = write_weights(dir, "redrafter", 11);
  struct Case {
    int width, length;
    bool tree_attention;
    size_t batch;
  };
  for (const Case c : {Case{1, 5, true, 8}, Case{4, 3, false, 8}, Case{8, 5, true, 3}, Case{2, 4, true, 1}}) {
    o.beam_width = c.width;
    o.beam_length = c.length;
    o.tree_attention = c.tree_attention;
    require_lossless(
        o, c.batch,
        "redrafter BW " + std::to_string(c.width) + " BL " + std::to_string(c.length) + (c.tree_attention ? " tree attention on" : " tree attention off"));
  }
}

TEST_CASE("real model: Medusa is lossless at temperature 0 with the shipped trees, batch 1..8", "[model][lossless][medusa]") {
  TempDir dir("lossless_medusa");
  DrafterOptions o;
  o.kind = "medusa";
  o.weights_dir = write_weights(dir, "medusa", 12);
  require_lossless(o, 8, "medusa, default tree");
  o.tree_file = std::string(DRAFTBENCH_SOURCE_DIR) + "/experiments/trees/medusa_63.json";
  require_lossless(o, 8, "medusa, 63-node tree");
}

TEST_CASE("real model: EAGLE is lossless at temperature 0 with dynamic trees of several sizes, batch 1..8", "[model][lossless][eagle]") {
  TempDir dir("lossless_eagle");
  DrafterOptions o;
  o.kind = "eagle";
  o.weights_dir = write_weights(dir, "eagle", 13);
  o.depth = 3;
  o.top_k = 4;
  o.total_tokens = 16;
  require_lossless(o, 8, "eagle depth 3 top-k 4 total 16");
  o.depth = 5;
  o.top_k = 10;
  o.total_tokens = 60;
  require_lossless(o, 4, "eagle depth 5 top-k 10 total 60");
}

TEST_CASE("real model: the n-gram drafter is lossless at temperature 0 for chains, trees and auto sizing, batch 1..8", "[model][lossless][ngram]") {
  DrafterOptions o;
  o.kind = "ngram";
  o.draft_tokens = 8;
  require_lossless(o, 1, "ngram 1..3, 8 tokens");
  o.ngram_min = 1;
  o.ngram_max = 4;
  o.draft_tokens = 16;
  o.ngram_branches = 4;
  require_lossless(o, 8, "ngram 1..4, 16 tokens, 4 branches");
  o.draft_tokens = 3;
  o.ngram_branches = 3;
  require_lossless(o, 3, "ngram 1..4, 3 tokens, 3 branches");
  // Auto sizing on a cost curve under which the budget moves between 0 and several tokens
  // as acceptance comes and goes.
  auto cost = std::make_shared<CostModel>(test::cost_curve(0.010, 0.005, 0.002));
  o.draft_tokens = 0;
  o.ngram_branches = 1;
  o.cost = cost;
  require_lossless(o, 1, "ngram auto");
  require_lossless(o, 4, "ngram auto");
}

TEST_CASE("real model: automatic sizing and every hybrid are lossless at temperature 0, batch 1 and 4", "[model][lossless][sizing]") {
  // The shipped (trained) drafters, so that drafts are often accepted deep and the sizer's
  // choices move: under cheap rows it keeps large trees, under CPU-like rows small ones or
  // none (autoregressive steps, the model drafter skipped).
  auto curve = [](double per_token) { return std::make_shared<CostModel>(test::cost_curve(0.004, 0.005, per_token)); };
  const auto cheap = curve(0.00002), cpu_like = curve(0.0015);
  for (const std::string kind : {"medusa", "eagle", "redrafter"}) {
    for (const std::string hybrid : {"", "+ngram"}) {
      DrafterOptions o;
      o.kind = kind + hybrid;
      o.weights_dir = std::string(DRAFTBENCH_SOURCE_DIR) + "/models/drafters/" + kind;
      o.sizing = "auto";
      o.depth = 4;
      o.top_k = 4;
      o.total_tokens = 32;
      o.beam_width = 4;
      o.beam_length = 4;
      o.cost = cheap;
      require_lossless(o, 4, o.kind + " auto, cheap rows");
      o.cost = cpu_like;
      require_lossless(o, 1, o.kind + " auto, CPU-like rows");
    }
  }
}
