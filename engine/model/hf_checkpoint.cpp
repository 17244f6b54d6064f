#include "engine/model/hf_checkpoint.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/common/error.h"
#include "engine/model/safetensors_checkpoint.h"

namespace draftbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kConfigFile = "config.json";

struct HfConfig {
  ModelConfig model;
  bool tie_word_embeddings = false;
};

HfConfig read_hf_config(const std::string& path) {
  const json j = read_json_file(path, "config.json");
  if (!j.is_object()) throw InputError(path, "", fmt::format("holds {} (expected a JSON object)", printable_json(j)));
  const ConfigFields f(j, path);

  HfConfig hf;
  hf.tie_word_embeddings = f.boolean_or("tie_word_embeddings", false);  // LlamaConfig's default
  ModelConfig& c = hf.model;
  c.arch = Architecture::llama;
  c.arch_name = "llama";
  const std::string model_type = f.string_or("model_type", "");
  if (model_type.empty()) throw InputError(path, "field 'model_type'", "missing (expected llama, or mistral without a sliding window)");
  if (model_type != "llama" && model_type != "mistral")
    throw InputError(path, "field 'model_type'",
                     fmt::format("'{}' is not supported (expected llama, or mistral without a sliding window)", printable_text(model_type)));

  c.n_embd = f.integer("hidden_size");
  c.n_ff = f.integer("intermediate_size");
  c.n_layers = f.integer("num_hidden_layers");
  c.n_heads = f.integer("num_attention_heads");
  c.n_kv_heads = f.integer_or("num_key_value_heads", c.n_heads);  // absent = multi-head attention
  c.head_dim = f.integer_or("head_dim", c.n_heads > 0 ? c.n_embd / c.n_heads : 0);
  c.n_vocab = f.integer("vocab_size");
  c.context_length = f.integer("max_position_embeddings");
  c.rms_eps = static_cast<float>(f.number_or("rms_norm_eps", 1e-6));  // LlamaConfig's default
  c.rope_base = static_cast<float>(f.number_or("rope_theta", 10000.0));
  c.rope_base_local = c.rope_base;
  c.rope_style = RopeStyle::neox;  // unpermuted q/k: rotate_half pairs (x[j], x[j + head_dim/2])
  c.activation = MlpActivation::swiglu;
  c.attention_scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim > 0 ? c.head_dim : 1));

  // Fields whose non-default values change the maths we would otherwise get silently wrong.
  if (const json* scaling = f.find("rope_scaling")) {
    std::string kind = printable_json(*scaling);
    for (const char* key : {"type", "rope_type"})  // older and newer transformers
      if (scaling->is_object() && scaling->contains(key) && (*scaling)[key].is_string()) kind = printable_text((*scaling)[key].get<std::string>());
    throw InputError(path, "field 'rope_scaling'", fmt::format("RoPE scaling '{}' is not supported (expected null)", kind));
  }
  if (const std::string act = f.string_or("hidden_act", "silu"); act != "silu")
    throw InputError(path, "field 'hidden_act'", fmt::format("'{}' is not supported (expected silu)", printable_text(act)));
  for (const char* bias : {"attention_bias", "mlp_bias"})
    if (f.boolean_or(bias, false)) throw InputError(path, ConfigFields::field(bias), "true is not supported (Llama has no biases)");
  if (model_type == "mistral") {
    // MistralConfig defaults sliding_window to 4096, so only an explicit null is safe.
    const auto it = j.find("sliding_window");
    if (it == j.end() || (!it->is_null() && !(it->is_number_integer() && it->get<int64_t>() >= c.context_length)))
      throw InputError(path, "field 'sliding_window'", "sliding-window attention on every layer is not supported (expected null)");
  }
  validate_model_config(c, path);
  if (!std::isfinite(c.rope_base) || c.rope_base <= 1.0f)
    throw InputError(path, "field 'rope_theta'", fmt::format("{} is out of range (expected a number above 1)", c.rope_base));
  return hf;
}

}  // namespace

bool is_hf_checkpoint_dir(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::is_regular_file(fs::path(path) / kConfigFile, ec);
}

ModelConfig model_config_from_hf_config(const std::string& path) { return read_hf_config(path).model; }

HfCheckpoint load_hf_checkpoint(const std::string& dir) {
  const HfConfig hf = read_hf_config((fs::path(dir) / kConfigFile).string());
  HfCheckpoint ckpt;
  ckpt.config = hf.model;
  const ModelConfig& c = ckpt.config;

  TensorSource source(dir);
  ModelWeights& w = ckpt.weights;
  WeightBinder bind(source, w.owned_vectors);
  w.token_embd = bind.matrix("model.embed_tokens.weight", c.n_vocab, c.n_embd, "[vocab_size, hidden_size]");
  if (hf.tie_word_embeddings) {
    bind.has("lm_head.weight");  // transformers overwrites it with the embedding: ignore it
    w.output = w.token_embd;
  } else {
    if (!bind.has("lm_head.weight")) throw InputError(source.where(), "tensor 'lm_head.weight'", "missing (config.json has tie_word_embeddings false)");
    w.output = bind.matrix("lm_head.weight", c.n_vocab, c.n_embd, "[vocab_size, hidden_size]");
  }
  w.output_norm = bind.vector("model.norm.weight", c.n_embd, "[hidden_size]");
  for (int64_t il = 0; il < c.n_layers; ++il) {
    const std::string p = fmt::format("model.layers.{}.", il);
    LayerWeights l;
    l.attn_norm = bind.vector(p + "input_layernorm.weight", c.n_embd, "[hidden_size]");
    l.wq = bind.matrix(p + "self_attn.q_proj.weight", c.q_dim(), c.n_embd, "[num_attention_heads * head_dim, hidden_size]");
    l.wk = bind.matrix(p + "self_attn.k_proj.weight", c.kv_dim(), c.n_embd, "[num_key_value_heads * head_dim, hidden_size]");
    l.wv = bind.matrix(p + "self_attn.v_proj.weight", c.kv_dim(), c.n_embd, "[num_key_value_heads * head_dim, hidden_size]");
    l.wo = bind.matrix(p + "self_attn.o_proj.weight", c.n_embd, c.q_dim(), "[hidden_size, num_attention_heads * head_dim]");
    l.ffn_norm = bind.vector(p + "post_attention_layernorm.weight", c.n_embd, "[hidden_size]");
    l.w_gate = bind.matrix(p + "mlp.gate_proj.weight", c.n_ff, c.n_embd, "[intermediate_size, hidden_size]");
    l.w_up = bind.matrix(p + "mlp.up_proj.weight", c.n_ff, c.n_embd, "[intermediate_size, hidden_size]");
    l.w_down = bind.matrix(p + "mlp.down_proj.weight", c.n_embd, c.n_ff, "[hidden_size, intermediate_size]");
    w.layers.push_back(l);
  }
  source.reject_unused("Llama");
  ckpt.shards = source.take_shards();
  return ckpt;
}

}  // namespace draftbench
