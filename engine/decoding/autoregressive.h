// Plain autoregressive generation: prefill the prompt as one chain, then one token per
// forward pass. The baseline every speculative method is measured against.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "engine/decoding/sampling.h"
#include "engine/model/kv_cache.h"
#include "engine/model/model.h"
#include "engine/model/forward_pass.h"

namespace draftbench {

struct GenerationOptions {
  int max_new_tokens = 128;
  SamplingParams sampling;
  uint64_t seed = 0;
  uint64_t request = 0;
  bool ignore_eos = false;
};

struct GenerationResult {
  std::vector<int32_t> tokens;  // generated ids (a stop token, if hit, included)
  int64_t prompt_tokens = 0;
  double prefill_seconds = 0.0;     // prompt forward, up to the first token
  double decode_seconds = 0.0;      // everything after the first token
  std::vector<float> first_logits;  // logits that chose the first token (if requested)
  bool stopped_on_eos = false;
};

// `on_token` is called with each new token as soon as it is chosen (for streaming).
GenerationResult generate_autoregressive(const Model& model, ForwardPass& target, KvCache& cache, int seq, std::span<const int32_t> prompt,
                                         const GenerationOptions& options, bool keep_first_logits, const std::function<void(int32_t)>& on_token);

}  // namespace draftbench
