#include "engine/model/model_config.h"

#include <fmt/format.h>

#include <cmath>

#include "engine/common/error.h"
#include "engine/common/table_names.h"
#include "engine/model/gguf_file.h"

namespace draftbench {

namespace {

// llama: the converter permutes q/k for interleaved RoPE pairs (norm); gemma3 and qwen2 keep
// the rotate-half pairing (neox). Fields in ArchitectureTraits' order.
constexpr ArchitectureTraits kArchitectures[] = {
    {"gemma3", Architecture::gemma3, RopeStyle::neox, MlpActivation::geglu_tanh, true, true, true, false, true},
    {"llama", Architecture::llama, RopeStyle::norm, MlpActivation::swiglu, false, false, false, false, false},
    {"qwen2", Architecture::qwen2, RopeStyle::neox, MlpActivation::swiglu, false, false, false, true, false},
};

const ArchitectureTraits* find_architecture(std::string_view name) {
  for (const ArchitectureTraits& t : kArchitectures)
    if (name == t.name) return &t;
  return nullptr;
}

}  // namespace

ModelConfig model_config_from_gguf(const GgufFile& f) {
  ModelConfig c;
  c.arch_name = f.get_string("general.architecture");
  const std::string& a = c.arch_name;
  const ArchitectureTraits* traits = find_architecture(a);
  if (!traits)
    throw InputError(f.path(), "key 'general.architecture'",
                     fmt::format("architecture '{}' is not supported (expected one of {})", a, table_names(kArchitectures, &ArchitectureTraits::name)));
  c.arch = traits->arch;

  c.n_embd = f.get_int(a + ".embedding_length");
  c.n_layers = f.get_int(a + ".block_count");
  c.n_ff = f.get_int(a + ".feed_forward_length");
  c.n_heads = f.get_int(a + ".attention.head_count");
  c.n_kv_heads = f.find_int(a + ".attention.head_count_kv").value_or(c.n_heads);
  c.head_dim = f.find_int(a + ".attention.key_length").value_or(c.n_heads > 0 ? c.n_embd / c.n_heads : 0);
  c.context_length = f.get_int(a + ".context_length");
  const GgufTensor& embd = f.tensor("token_embd.weight");
  if (embd.ne.size() != 2) throw InputError(f.path(), "tensor 'token_embd.weight'", "expected 2 dimensions");
  c.n_vocab = embd.ne[1];
  c.rms_eps = static_cast<float>(f.get_float(a + ".attention.layer_norm_rms_epsilon"));
  c.rope_base = static_cast<float>(f.find_float(a + ".rope.freq_base").value_or(10000.0));
  c.final_logit_softcap = static_cast<float>(f.find_float(a + ".final_logit_softcapping").value_or(0.0));
  if (auto v = f.find_int(a + ".attention.value_length"); v && *v != c.head_dim)
    throw InputError(f.path(), "key '" + a + ".attention.value_length'", fmt::format("{} differs from key_length {} (not supported)", *v, c.head_dim));
  if (auto r = f.find_int(a + ".rope.dimension_count"); r && *r != c.head_dim)
    throw InputError(f.path(), "key '" + a + ".rope.dimension_count'", fmt::format("partial RoPE ({} of {} dims) is not supported", *r, c.head_dim));

  c.rope_style = traits->rope_style;
  c.activation = traits->activation;
  c.scale_embeddings = traits->scale_embeddings;
  c.qk_norm = traits->qk_norm;
  c.post_norms = traits->post_norms;
  c.qkv_bias = traits->qkv_bias;
  c.rope_base_local = c.rope_base;
  if (traits->sliding_window) {
    c.sliding_window = f.find_int(a + ".attention.sliding_window").value_or(0);
    c.swa_period = static_cast<int>(f.find_int(a + ".attention.sliding_window_pattern").value_or(6));
    c.rope_base_local = static_cast<float>(f.find_float(a + ".rope.freq_base_swa").value_or(10000.0));
  }
  if (auto scaling = f.find_string(a + ".rope.scaling.type"); scaling && *scaling != "none")
    throw InputError(f.path(), "key '" + a + ".rope.scaling.type'", fmt::format("RoPE scaling '{}' is not supported (expected none)", *scaling));
  c.attention_scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  validate_model_config(c, f.path());
  return c;
}

void validate_model_config(const ModelConfig& c, const std::string& where) {
  auto positive = [&](int64_t v, const char* field, int64_t max) {
    if (v <= 0 || v > max) throw InputError(where, field, fmt::format("{} is out of range (expected 1 to {})", v, max));
  };
  positive(c.n_vocab, "vocabulary size", 1 << 22);
  positive(c.n_embd, "embedding_length", 1 << 16);
  positive(c.n_layers, "block_count", 1024);
  positive(c.n_ff, "feed_forward_length", 1 << 18);
  positive(c.n_heads, "attention.head_count", 1024);
  positive(c.n_kv_heads, "attention.head_count_kv", 1024);
  positive(c.head_dim, "attention.key_length", 1024);
  positive(c.context_length, "context_length", 1 << 24);
  if (c.n_heads % c.n_kv_heads != 0)
    throw InputError(where, "attention.head_count_kv", fmt::format("{} does not divide head_count {}", c.n_kv_heads, c.n_heads));
  if (c.head_dim % 2 != 0) throw InputError(where, "attention.key_length", fmt::format("{} is odd (RoPE needs pairs)", c.head_dim));
  for (const auto& [base, field] : {std::pair{c.rope_base, "rope.freq_base"}, std::pair{c.rope_base_local, "rope.freq_base_swa"}})
    if (!(base > 1.0f && std::isfinite(base))) throw InputError(where, field, fmt::format("{} is out of range (expected a finite value > 1)", base));
  if (!(c.rms_eps > 0.0f && c.rms_eps < 1.0f)) throw InputError(where, "attention.layer_norm_rms_epsilon", fmt::format("{} is out of range", c.rms_eps));
}

}  // namespace draftbench
