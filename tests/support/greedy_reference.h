// What the drafter and training tests compare against: plain autoregressive greedy decoding
// (engine/decoding/autoregressive.h) of a prompt, the target's hidden states along a
// sequence, and the tiny model's standard prompts.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/decoding/autoregressive.h"
#include "engine/decoding/prefill.h"
#include "engine/model/model.h"
#include "engine/model/transformer.h"

namespace draftbench::test {

inline std::vector<int32_t> greedy_reference(const Model& m, ForwardPass& target, const std::vector<int32_t>& prompt, int n_new) {
  KvCache cache(m.config(), 1, static_cast<int64_t>(prompt.size()) + n_new, target.device());
  GenerationOptions g;
  g.max_new_tokens = n_new;
  g.ignore_eos = true;
  return generate_autoregressive(m, target, cache, 0, prompt, g, false, nullptr).tokens;
}

// Logits of every position of `tokens` run as one chain from an empty cache, [n][n_vocab].
inline std::vector<float> chain_logits(const ModelConfig& config, ForwardPass& pass, const std::vector<int32_t>& tokens) {
  const auto n = static_cast<int32_t>(tokens.size());
  KvCache cache(config, 1, n, pass.device());
  ForwardBatch batch;
  SequenceInput s{0, tokens, TokenTree::chain(n), {}, {}};
  for (int32_t i = 0; i < n; ++i) s.logit_rows.push_back(i);
  batch.sequences.push_back(std::move(s));
  ForwardResult r;
  pass.forward(batch, cache, r);
  return r.logits;
}

// The same on the CPU pass.
inline std::vector<int32_t> greedy_reference(const Model& m, const std::vector<int32_t>& prompt, int n_new) {
  ThreadPool pool(1);
  Transformer tf(m.config(), m.weights(), pool);
  return greedy_reference(m, tf, prompt, n_new);
}

// The target's final-norm hidden state at every position of `tokens` ([n][n_embd]), by a
// plain prefill.
inline std::vector<float> target_hidden_states(const Model& m, const std::vector<int32_t>& tokens) {
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  KvCache cache(m.config(), 1, static_cast<int64_t>(tokens.size()));
  PrefillOutput out;
  const PrefillInput in{0, tokens, true};
  prefill(tf, cache, std::span(&in, 1), out);
  return std::move(out.hidden);
}

// Three prompts of different lengths for the tiny random Llama (tests/support/tiny_llama.h).
inline std::vector<std::vector<int32_t>> tiny_prompts(const Model& m) {
  return {m.tokenizer().encode("the cat and the dog", true, false), m.tokenizer().encode("once upon a time", true, false),
          m.tokenizer().encode("in the end, the answer is", true, false)};
}

}  // namespace draftbench::test
