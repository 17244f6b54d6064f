// Architecture hyperparameters, read once from the model file and validated; every other
// component takes them from here (one home per default).
#pragma once

#include <cstdint>
#include <string>

namespace draftbench {

class GgufFile;

enum class Architecture { gemma3, llama, qwen2 };
enum class RopeStyle { neox, norm };  // see kernels/ops/rope.h
enum class MlpActivation { geglu_tanh, swiglu };

struct ModelConfig {
  Architecture arch = Architecture::llama;
  std::string arch_name;
  int64_t n_vocab = 0, n_embd = 0, n_layers = 0, n_ff = 0;
  int64_t n_heads = 0, n_kv_heads = 0, head_dim = 0;
  int64_t context_length = 0;
  float rms_eps = 1e-6f;
  float rope_base = 10000.0f;        // global (full-attention) layers
  float rope_base_local = 10000.0f;  // sliding-window layers
  RopeStyle rope_style = RopeStyle::norm;
  int64_t sliding_window = 0;     // 0 = every layer is global
  int swa_period = 0;             // layer il is local iff il % swa_period < swa_period - 1
  float attention_scale = 1.0f;   // multiplies q.k
  bool scale_embeddings = false;  // Gemma: embeddings times sqrt(n_embd)
  bool qk_norm = false, post_norms = false;
  bool qkv_bias = false;             // biases on the Q, K and V projections (qwen2)
  float final_logit_softcap = 0.0f;  // 0 = none
  MlpActivation activation = MlpActivation::swiglu;

  bool is_local_layer(int64_t il) const { return sliding_window > 0 && swa_period > 0 && il % swa_period < swa_period - 1; }
  int64_t q_dim() const { return n_heads * head_dim; }
  int64_t kv_dim() const { return n_kv_heads * head_dim; }
  bool operator==(const ModelConfig&) const = default;  // every field
};

// One row per supported `general.architecture` (kArchitectures in model_config.cpp): what
// sets it apart, as data. model_config_from_gguf copies it into the config, from which the
// weight loader and the layer (transformer_layer.h, through the weights present) read it.
struct ArchitectureTraits {
  const char* name;
  Architecture arch;
  RopeStyle rope_style;
  MlpActivation activation;
  bool scale_embeddings, qk_norm, post_norms, qkv_bias;
  bool sliding_window;  // reads the sliding-window keys and a base of its own for local layers
};

ModelConfig model_config_from_gguf(const GgufFile& file);
// Range checks shared by every loader; throws InputError naming `where` and the field.
void validate_model_config(const ModelConfig& c, const std::string& where);

}  // namespace draftbench
