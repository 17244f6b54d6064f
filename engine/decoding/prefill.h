// Running prompts into the KV cache in chunks (llama.cpp's micro-batches): activation
// buffers then hold at most chunk x batch rows whatever the prompt length, so memory is the
// weights plus the KV cache plus a constant. The result is bit-identical to one forward over
// the whole prompt: a row's computation never depends on the other rows, and attention
// reduces a chain's keys in position order whether they sit in the committed region or in
// the chunk being run.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/model/kv_cache.h"
#include "engine/model/forward_pass.h"

namespace draftbench {

inline constexpr int32_t kPrefillChunk = 512;  // llama.cpp's default n_ubatch

struct PrefillInput {
  int seq = 0;                      // KV cache sequence, empty before the call
  std::span<const int32_t> tokens;  // the prompt, >= 1 token
  bool all_hidden = false;          // hidden states of every position, not just the last
};

struct PrefillOutput {
  int64_t n_vocab = 0, n_embd = 0;
  std::vector<float> logits;          // [n_inputs][n_vocab]: at each prompt's last token
  std::vector<float> hidden;          // per input in order: [len or 1][n_embd] after the final norm
  std::vector<int64_t> hidden_start;  // [n_inputs + 1]: row offsets into `hidden`
  std::span<const float> logits_of(size_t i) const { return {logits.data() + static_cast<int64_t>(i) * n_vocab, static_cast<size_t>(n_vocab)}; }
  std::span<const float> hidden_of(size_t i) const {
    return {hidden.data() + hidden_start[i] * n_embd, static_cast<size_t>((hidden_start[i + 1] - hidden_start[i]) * n_embd)};
  }
};

// Runs and commits every prompt, `chunk` tokens per sequence per forward call.
void prefill(ForwardPass& target, KvCache& cache, std::span<const PrefillInput> inputs, PrefillOutput& out, int32_t chunk = kPrefillChunk);

}  // namespace draftbench
