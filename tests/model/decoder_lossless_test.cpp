// The decoding loop on the real model is lossless at temperature 0: whatever tree a
// drafter proposes — right, wrong, or partly right, deep or bushy, in a batch with other
// sequences — the generated tokens are exactly those of autoregressive greedy decoding.
// The drafter here replays the true continuation with deliberate corruption
// (tests/support/replay_drafter.h).
#include <catch2/catch.hpp>

#include "engine/decoding/autoregressive.h"
#include "engine/decoding/decoder.h"
#include "engine/model/model.h"
#include "engine/model/transformer.h"
#include "tests/support/default_model.h"
#include "tests/support/replay_drafter.h"

using namespace draftbench;
using draftbench::test::CorruptedReplayDrafter;
using draftbench::test::default_model;

TEST_CASE("greedy speculative decoding reproduces autoregressive decoding token for token", "[model][lossless]") {
  const Model& m = default_model();
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  const std::vector<std::string> texts = {"The history of the printing press", "def fibonacci(n):", "Three facts about octopuses:\n1.",
                                          "In 1969, the first humans"};
  DecodeOptions opt;
  opt.max_new_tokens = 40;
  opt.ignore_eos = true;

  std::vector<std::vector<int32_t>> prompts, truth;
  std::vector<size_t> lengths;
  for (const auto& t : texts) {
    prompts.push_back(m.tokenizer().encode(t, true, false));
    lengths.push_back(prompts.back().size());
    KvCache cache(m.config(), 1, static_cast<int64_t>(prompts.back().size()) + opt.max_new_tokens);
    GenerationOptions g;
    g.max_new_tokens = opt.max_new_tokens;
    g.ignore_eos = true;
    truth.push_back(generate_autoregressive(m, tf, cache, 0, prompts.back(), g, false, nullptr).tokens);
  }

  for (uint64_t seed : {1u, 2u}) {
    CorruptedReplayDrafter drafter(truth, lengths, seed, 1000, 30000);
    Decoder decoder(m, tf, drafter);
    const auto results = decoder.generate(prompts, opt);
    double steps = 0;
    for (size_t i = 0; i < prompts.size(); ++i) {
      INFO("prompt " << i << " seed " << seed);
      REQUIRE(results[i].tokens == truth[i]);
      steps += static_cast<double>(results[i].steps.size());
    }
    // The replay drafter is right often enough that the loop must have accepted drafts.
    REQUIRE(steps < 0.8 * static_cast<double>(prompts.size() * opt.max_new_tokens));
  }

  // The baseline through the same loop is the same decoding.
  AutoregressiveDrafter ar;
  Decoder baseline(m, tf, ar);
  const auto base = baseline.generate(prompts, opt);
  for (size_t i = 0; i < prompts.size(); ++i) {
    REQUIRE(base[i].tokens == truth[i]);
    REQUIRE(base[i].tokens_per_step() == 1.0);
  }
}

TEST_CASE("with an empty draft, sampled decoding through the loop is autoregressive sampling bit for bit", "[model][sampling]") {
  const Model& m = default_model();
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  const auto prompt = m.tokenizer().encode("Once upon a time", true, false);
  DecodeOptions opt;
  opt.max_new_tokens = 24;
  opt.ignore_eos = true;
  opt.seed = 77;
  opt.sampling = SamplingParams{0.9f, 40, 0.95f};
  KvCache cache(m.config(), 1, static_cast<int64_t>(prompt.size()) + opt.max_new_tokens);
  GenerationOptions g;
  g.max_new_tokens = opt.max_new_tokens;
  g.ignore_eos = true;
  g.seed = opt.seed;
  g.sampling = opt.sampling;
  const auto expected = generate_autoregressive(m, tf, cache, 0, prompt, g, false, nullptr).tokens;
  AutoregressiveDrafter ar;
  Decoder decoder(m, tf, ar);
  const std::vector<std::vector<int32_t>> prompts = {prompt};
  REQUIRE(decoder.generate(prompts, opt)[0].tokens == expected);
  // A different seed gives a different sample (the draws are really used).
  opt.seed = 78;
  REQUIRE(decoder.generate(prompts, opt)[0].tokens != expected);
}
