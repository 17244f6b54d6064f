// Views of a model's weights in their stored format (no dequantisation at load).
// A null vector is a weight the architecture does not have (transformer_layer.h skips it).
// Norm and bias vectors are f32; when a loader has to convert them (safetensors in f16/bf16, or
// Gemma's HF "1 + w" convention) the converted copies live in `owned_vectors`.
#pragma once

#include <deque>
#include <vector>

#include "engine/model/model_config.h"
#include "kernels/matmul/matmul.h"

namespace draftbench {

class GgufFile;

struct LayerWeights {
  const float* attn_norm = nullptr;
  WeightMatrix wq, wk, wv, wo;
  const float* bq = nullptr;  // [q_dim], [kv_dim], [kv_dim]: qkv_bias only
  const float* bk = nullptr;
  const float* bv = nullptr;
  const float* q_norm = nullptr;  // [head_dim], qk_norm only
  const float* k_norm = nullptr;
  const float* post_attn_norm = nullptr;  // post_norms only
  const float* ffn_norm = nullptr;
  WeightMatrix w_gate, w_up, w_down;
  const float* post_ffn_norm = nullptr;  // post_norms only
};

struct ModelWeights {
  WeightMatrix token_embd;  // [n_vocab rows of n_embd]
  WeightMatrix output;      // LM head; the same matrix as token_embd when tied
  const float* output_norm = nullptr;
  std::vector<LayerWeights> layers;
  std::deque<std::vector<float>> owned_vectors;  // deque: pointers stay valid as it grows
  bool in_mapped_file = false;                   // the matrices point into a MappedFile (release_mapped_pages may drop them)
};

// Binds every tensor of a GGUF file, checking names, types and shapes against `config`.
ModelWeights model_weights_from_gguf(const GgufFile& file, const ModelConfig& config);

}  // namespace draftbench
