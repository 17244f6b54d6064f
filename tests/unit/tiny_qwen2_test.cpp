// A tiny random Qwen 2 (the tiny Llama's shape plus Q/K/V biases, q/k unpermuted) written
// as the GGUF llama.cpp's converter makes: its logits against a plain float64 forward pass
// of the same tensors, and the exactness properties speculative decoding stands on (tree ==
// chains, batch invariance, the emulated device pass == the CPU pass) with biases in play.
// The real Qwen2.5-Coder-1.5B is checked by scripts/check_model.sh.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "engine/model/device_transformer.h"
#include "engine/model/model.h"
#include "engine/model/transformer.h"
#include "tests/support/greedy_reference.h"
#include "tests/support/logit_compare.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;
using namespace draftbench::test;

namespace {

TinyLlama tiny_qwen2() {
  TinyLlamaShape shape;
  shape.qkv_bias = true;
  shape.rope_theta = 1e6f;  // Qwen 2.5's base
  return make_tiny_llama(shape);
}

const std::vector<int32_t> kTokens = {5, 17, 200, 33, 4, 150, 99, 250, 7, 64, 12, 301};

double max_abs_difference(const std::vector<float>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]));
  return worst;
}

}  // namespace

TEST_CASE("tiny qwen2: the GGUF's logits are the float64 forward pass's, biases included", "[tiny_qwen2]") {
  TempDir dir("tiny_qwen2");
  const TinyLlama model = tiny_qwen2();
  write_qwen2_gguf(model, dir / "qwen2.gguf");
  const auto m = Model::load(dir / "qwen2.gguf");
  CHECK(m->config().arch == Architecture::qwen2);
  CHECK(m->config().qkv_bias);
  CHECK(m->config().rope_style == RopeStyle::neox);
  REQUIRE(m->weights().layers[0].bq != nullptr);

  ThreadPool pool(2);
  Transformer tf(m->config(), m->weights(), pool, HeadLayout::kFile);
  const std::vector<float> ours = chain_logits(m->config(), tf, kTokens);
  const double error = max_abs_difference(ours, naive_forward_logits(model, kTokens));
  INFO("max |ours - float64| = " << error);
  CHECK(error < 1e-3);

  // The check can fail: without the biases the reference is far from the engine.
  TinyLlama unbiased = model;
  for (NamedTensor& t : unbiased.tensors)
    if (t.name.ends_with(".bias")) std::fill(t.values.begin(), t.values.end(), 0.0f);
  CHECK(max_abs_difference(ours, naive_forward_logits(unbiased, kTokens)) > 100 * error);
}

TEST_CASE("tiny qwen2: a tree's nodes get their paths' logits, whatever the batch (Q8_0)", "[tiny_qwen2][tree]") {
  TempDir dir("tiny_qwen2");
  write_qwen2_gguf(tiny_qwen2(), dir / "qwen2.gguf", GgmlType::Q8_0);
  const auto m = Model::load(dir / "qwen2.gguf");
  ThreadPool pool(2);
  Transformer tf(m->config(), m->weights(), pool);
  const std::vector<int32_t> prompt(kTokens.begin(), kTokens.begin() + 6);
  const std::vector<int32_t> tokens = {40, 41, 42, 43, 44, 45};
  const std::vector<int32_t> parents = {-1, 0, 0, 1, 3, 2};

  KvCache cache(m->config(), 2, 64);
  ForwardBatch batch;
  batch.sequences.push_back(SequenceInput{0, prompt, TokenTree::chain(static_cast<int32_t>(prompt.size())), {}, {}});
  batch.sequences.push_back(SequenceInput{1, kTokens, TokenTree::chain(static_cast<int32_t>(kTokens.size())), {}, {}});
  ForwardResult r;
  tf.forward(batch, cache, r);
  cache.commit_prefix(0, static_cast<int64_t>(prompt.size()));
  cache.commit_prefix(1, static_cast<int64_t>(kTokens.size()));

  ForwardBatch tree;
  tree.sequences.push_back(SequenceInput{1, {3}, TokenTree::chain(1), {0}, {}});  // another sequence in the batch
  tree.sequences.push_back(SequenceInput{0, tokens, TokenTree::from_parents(parents), {0, 1, 2, 3, 4, 5}, {}});
  tf.forward(tree, cache, r);
  const TokenTree& t = tree.sequences[1].tree;
  for (int32_t node = 0; node < t.size(); ++node) {
    std::vector<int32_t> chain = prompt;
    for (int32_t p : t.path_to(node)) chain.push_back(tokens[p]);
    const std::vector<float> alone = chain_logits(m->config(), tf, chain);
    INFO("node " << node);
    REQUIRE(same_bits(r.logits_row(1 + node), std::vector<float>(alone.end() - m->config().n_vocab, alone.end())));
  }
}

TEST_CASE("tiny qwen2: the emulated device pass gives the CPU pass's logits (Q8_0)", "[tiny_qwen2][cuda-emulation]") {
  TempDir dir("tiny_qwen2");
  write_qwen2_gguf(tiny_qwen2(), dir / "qwen2.gguf", GgmlType::Q8_0);
  const auto m = Model::load(dir / "qwen2.gguf");
  ThreadPool pool(2);
  Transformer cpu(m->config(), m->weights(), pool, HeadLayout::kFile);
  DeviceTransformer device(m->config(), m->weights(), cuda::make_emulated_kernels());
  REQUIRE(same_bits(chain_logits(m->config(), device, kTokens), chain_logits(m->config(), cpu, kTokens)));
}
