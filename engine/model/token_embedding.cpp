#include "engine/model/token_embedding.h"

#include <cmath>

#include "kernels/quant/dequantize.h"

namespace draftbench {

void embed_tokens(const ModelConfig& config, const ModelWeights& weights, std::span<const int32_t> tokens, float* out) {
  const int64_t E = config.n_embd;
  const float scale = config.scale_embeddings ? std::sqrt(static_cast<float>(E)) : 1.0f;
  const size_t row_bytes = weights.token_embd.row_bytes();
  for (size_t r = 0; r < tokens.size(); ++r) {
    float* x = out + static_cast<int64_t>(r) * E;
    dequantize_row(weights.token_embd.type, weights.token_embd.data + static_cast<size_t>(tokens[r]) * row_bytes, x, E);
    if (scale != 1.0f)
      for (int64_t i = 0; i < E; ++i) x[i] *= scale;
  }
}

}  // namespace draftbench
