// The target's input embedding of a token, exactly as the transformer feeds it to its first
// layer (dequantised row, times sqrt(n_embd) for Gemma). Drafters that read the target's
// embedding table (ReDrafter's RNN, EAGLE's fc input) use this, so "the LLM's embedding"
// means one thing everywhere.
#pragma once

#include <cstdint>
#include <span>

#include "engine/model/model_config.h"
#include "engine/model/model_weights.h"

namespace draftbench {

// out: [tokens.size()][n_embd]. Token ids must already be in range.
void embed_tokens(const ModelConfig& config, const ModelWeights& weights, std::span<const int32_t> tokens, float* out);

}  // namespace draftbench
