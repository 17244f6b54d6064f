// Loading EAGLE weights (both layouts) and writing untrained ones. The drafting itself is
// in eagle_tree.cpp.
#include "engine/drafters/eagle/eagle.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "engine/common/error.h"
#include "engine/drafters/axis_table.h"
#include "engine/model/model.h"
#include "engine/model/safetensors_writer.h"

namespace draftbench {
namespace {

constexpr const char* kLayer = "layers.0.";

// The draft layer's sizes, from either config layout.
struct LayerShape {
  int64_t n_ff = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0;
  float rope_base = 10000.0f, rms_eps = 1e-6f;
  RopeStyle rope_style = RopeStyle::neox;
  bool fc_bias = true, final_norm = false, previous_token = false;
};

int64_t positive_field(const ConfigFields& f, const std::string& path, const char* key, std::optional<int64_t> fallback = std::nullopt) {
  const int64_t v = fallback ? f.integer_or(key, *fallback) : f.integer(key);
  if (v <= 0 || v > (1 << 20)) throw InputError(path, ConfigFields::field(key), fmt::format("{} is out of range (expected 1 to {})", v, 1 << 20));
  return v;
}

void check_hidden_size(const std::string& path, const char* key, int64_t value, const ModelConfig& target) {
  if (value != target.n_embd)
    throw InputError(path, ConfigFields::field(key), fmt::format("{} does not match the target's hidden size {}", value, target.n_embd));
}

// EAGLE-1/2's own config.json: a LlamaForCausalLM config of the one draft layer.
LayerShape reference_shape(const DrafterCheckpoint& checkpoint, const ModelConfig& target) {
  const ConfigFields& f = checkpoint.fields();
  const std::string& path = checkpoint.config_path();
  if (target.arch != Architecture::llama)
    throw InputError(path, "",
                     fmt::format("reference EAGLE checkpoints are Llama layers; the target is {} (use draftbench's drafter.json layout)", target.arch_name));
  check_hidden_size(path, "hidden_size", f.integer("hidden_size"), target);
  if (const int64_t v = f.integer_or("vocab_size", target.n_vocab); v != target.n_vocab)
    throw InputError(path, ConfigFields::field("vocab_size"), fmt::format("{} does not match the target's vocabulary {}", v, target.n_vocab));
  if (const int64_t v = f.integer_or("num_hidden_layers", 1); v != 1)
    throw InputError(path, ConfigFields::field("num_hidden_layers"), fmt::format("{} (expected 1: EAGLE-1/2 drafts with one layer)", v));
  if (f.boolean_or("qkv_bias", false)) throw InputError(path, ConfigFields::field("qkv_bias"), "true is not supported (expected false)");
  if (f.find("rope_scaling")) throw InputError(path, ConfigFields::field("rope_scaling"), "RoPE scaling is not supported (expected null)");
  LayerShape s;
  s.n_ff = positive_field(f, path, "intermediate_size");
  s.n_heads = positive_field(f, path, "num_attention_heads");
  s.n_kv_heads = positive_field(f, path, "num_key_value_heads", s.n_heads);
  s.head_dim = positive_field(f, path, "head_dim", target.n_embd / s.n_heads);
  s.rms_eps = static_cast<float>(f.number_or("rms_norm_eps", 1e-6));
  s.rope_base = static_cast<float>(f.number_or("rope_theta", 10000.0));
  s.rope_style = RopeStyle::neox;  // unpermuted HF q/k: rotate_half pairs
  s.fc_bias = f.boolean_or("bias", true);
  return s;
}

LayerShape native_shape(const DrafterCheckpoint& checkpoint, const ModelConfig& target) {
  const ConfigFields& f = checkpoint.fields();
  const std::string& path = checkpoint.config_path();
  check_hidden_size(path, "n_embd", f.integer_or("n_embd", target.n_embd), target);
  LayerShape s;
  s.n_ff = positive_field(f, path, "n_ff");
  s.n_heads = positive_field(f, path, "n_heads");
  s.n_kv_heads = positive_field(f, path, "n_kv_heads");
  s.head_dim = positive_field(f, path, "head_dim");
  s.rms_eps = static_cast<float>(f.number_or("rms_eps", target.rms_eps));
  s.rope_base = static_cast<float>(f.number_or("rope_base", target.rope_base));
  s.rope_style = target.rope_style;
  s.fc_bias = f.boolean_or("fc_bias", true);
  s.final_norm = f.boolean_or("final_norm", false);
  s.previous_token = f.boolean_or("previous_token", false);
  return s;
}

ModelConfig draft_config(const ModelConfig& target, const LayerShape& s, const std::string& path) {
  ModelConfig c = target;
  c.n_layers = 1;
  c.sliding_window = 0;
  c.swa_period = 0;
  c.final_logit_softcap = 0.0f;
  c.qkv_bias = false;  // the draft layer's projections have no biases, whatever the target's
  c.n_ff = s.n_ff;
  c.n_heads = s.n_heads;
  c.n_kv_heads = s.n_kv_heads;
  c.head_dim = s.head_dim;
  c.rms_eps = s.rms_eps;
  c.rope_base = c.rope_base_local = s.rope_base;
  c.rope_style = s.rope_style;
  c.attention_scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  validate_model_config(c, path);
  return c;
}

}  // namespace

std::unique_ptr<Drafter> make_eagle_drafter(DrafterCheckpoint& checkpoint, const DrafterOptions& options, const Model& target, ThreadPool& pool) {
  const ModelConfig& t = target.config();
  EagleDrafter::Parts p;
  if (options.eagle_static_tree) {
    if (options.tree_file.empty()) throw InputError("drafter eagle", "option 'tree_file'", "eagle_static_tree needs a choice tree file");
    p.static_tree = load_choice_tree(options.tree_file);
  } else {
    check_drafter_settings(options, kDynamicTree, "drafter eagle");
  }
  p.depth = options.depth;
  p.top_k = options.top_k;
  p.total_tokens = options.total_tokens;

  const LayerShape s = checkpoint.native() ? native_shape(checkpoint, t) : reference_shape(checkpoint, t);
  p.config = draft_config(t, s, checkpoint.config_path());
  const ModelConfig& c = p.config;
  const int64_t H = t.n_embd, QD = c.q_dim(), KD = c.kv_dim();
  const std::string L = kLayer;
  // Bound in place: make_drafter keeps the checkpoint (mapping and converted copies) alive
  // as long as the drafter.
  WeightBinder& keep = checkpoint.bind();
  // A wrong size in the config is the config's fault, not the weights'.
  check_size_against_tensor(checkpoint, checkpoint.native() ? "n_ff" : "intermediate_size", s.n_ff, L + "mlp.gate_proj.weight", 0);
  if (const std::vector<int64_t> q = checkpoint.shape_of(L + "self_attn.q_proj.weight"); !q.empty() && q[0] != QD)
    throw InputError(checkpoint.config_path(), checkpoint.native() ? "fields 'n_heads', 'head_dim'" : "fields 'num_attention_heads', 'head_dim'",
                     fmt::format("{} heads of {} do not match the weights: tensor '{}self_attn.q_proj.weight' is {} (expected {} rows)", c.n_heads, c.head_dim,
                                 L, shape_str(q), QD));

  p.previous_token = s.previous_token;
  p.fc = s.previous_token ? keep.matrix("fc.weight", H, 3 * H, "[hidden_size, 3 * hidden_size] (previous_token)")
                          : keep.matrix("fc.weight", H, 2 * H, "[hidden_size, 2 * hidden_size]");
  if (s.fc_bias) p.fc_bias = keep.vector("fc.bias", H, "[hidden_size]");
  LayerWeights lw;
  lw.attn_norm = nullptr;  // EAGLE's layer 0 has no input norm
  lw.wq = keep.matrix(L + "self_attn.q_proj.weight", QD, H, "[heads * head_dim, hidden_size]");
  lw.wk = keep.matrix(L + "self_attn.k_proj.weight", KD, H, "[kv_heads * head_dim, hidden_size]");
  lw.wv = keep.matrix(L + "self_attn.v_proj.weight", KD, H, "[kv_heads * head_dim, hidden_size]");
  lw.wo = keep.matrix(L + "self_attn.o_proj.weight", H, QD, "[hidden_size, heads * head_dim]");
  lw.w_gate = keep.matrix(L + "mlp.gate_proj.weight", c.n_ff, H, "[intermediate_size, hidden_size]");
  lw.w_up = keep.matrix(L + "mlp.up_proj.weight", c.n_ff, H, "[intermediate_size, hidden_size]");
  lw.w_down = keep.matrix(L + "mlp.down_proj.weight", H, c.n_ff, "[hidden_size, intermediate_size]");
  if (c.qk_norm) {
    lw.q_norm = keep.vector(L + "self_attn.q_norm.weight", c.head_dim, "[head_dim]");
    lw.k_norm = keep.vector(L + "self_attn.k_norm.weight", c.head_dim, "[head_dim]");
  }
  if (c.post_norms) {  // Gemma 3: post-attention, pre- and post-feed-forward norms
    lw.post_attn_norm = keep.vector(L + "post_attention_layernorm.weight", H, "[hidden_size]");
    lw.ffn_norm = keep.vector(L + "pre_feedforward_layernorm.weight", H, "[hidden_size]");
    lw.post_ffn_norm = keep.vector(L + "post_feedforward_layernorm.weight", H, "[hidden_size]");
  } else {  // Llama: post_attention_layernorm is the pre-MLP norm
    lw.ffn_norm = keep.vector(L + "post_attention_layernorm.weight", H, "[hidden_size]");
  }
  // The layer's products run on every draft pass: Q8_0 reads half of F16's bytes, through
  // the integer kernels (what is drafted may change in the last bits; what is generated not).
  if (options.draft_weights == "q8_0")
    for (WeightMatrix* w : {&p.fc, &lw.wq, &lw.wk, &lw.wv, &lw.wo, &lw.w_gate, &lw.w_up, &lw.w_down}) *w = checkpoint.requantized_q8_0(*w);
  p.weights.layers.push_back(lw);
  p.weights.token_embd = target.weights().token_embd;
  p.weights.output = target.weights().output;
  if (s.final_norm) p.weights.output_norm = keep.vector("norm.weight", H, "[hidden_size]");
  // The reference saves the (frozen, copied) base embedding: check it fits, use the target's.
  if (checkpoint.bind().has("embed_tokens.weight")) checkpoint.bind().matrix("embed_tokens.weight", t.n_vocab, H, "[vocab_size, hidden_size]");
  std::vector<int32_t> whole_vocab = checkpoint.draft_vocab(t.n_vocab);
  const size_t whole_size = whole_vocab.size();
  const int cap = options.draft_vocab > 0 ? options.draft_vocab : sizing_is_auto(options) ? DrafterOptions::kAutoDraftVocab : 0;
  p.draft_vocab = capped_draft_vocab(std::move(whole_vocab), cap, target.tokenizer().stop_ids());
  p.vocab_capped = p.draft_vocab.size() < whole_size;
  p.coupled = options.coupled_drafts && sizing_is_auto(options) && !p.static_tree;
  if (p.static_tree && p.static_tree->max_rank() >= static_cast<int32_t>(p.draft_vocab.size()))
    throw InputError(options.tree_file, "",
                     fmt::format("rank {} needs more tokens than the draft vocabulary's {}", p.static_tree->max_rank(), p.draft_vocab.size()));
  return std::make_unique<EagleDrafter>(std::move(p), target, pool);
}

void write_random_eagle(const RandomDrafterSpec& spec, const Model& target, const std::string& dir) {
  const ModelConfig& t = target.config();
  const int64_t H = t.n_embd, QD = t.q_dim(), KD = t.kv_dim(), F = t.n_ff;

  nlohmann::json config = native_drafter_config("eagle");
  config["n_embd"] = H;
  config["n_ff"] = F;
  config["n_heads"] = t.n_heads;
  config["n_kv_heads"] = t.n_kv_heads;
  config["head_dim"] = t.head_dim;
  config["rope_base"] = t.rope_base;
  config["rms_eps"] = t.rms_eps;
  config["fc_bias"] = true;
  config["final_norm"] = false;

  std::mt19937_64 rng(spec.seed);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  SafetensorsWriter writer;
  auto random = [&](const std::string& name, std::vector<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> values(static_cast<size_t>(n));
    for (float& v : values) v = normal(rng);
    writer.tensor_floats(name, GgmlType::F32, std::move(shape), values);
  };
  auto ones = [&](const std::string& name, int64_t n) { writer.tensor_floats(name, GgmlType::F32, {n}, std::vector<float>(static_cast<size_t>(n), 1.0f)); };
  const std::string L = kLayer;
  random("fc.weight", {H, 2 * H});
  random("fc.bias", {H});
  random(L + "self_attn.q_proj.weight", {QD, H});
  random(L + "self_attn.k_proj.weight", {KD, H});
  random(L + "self_attn.v_proj.weight", {KD, H});
  random(L + "self_attn.o_proj.weight", {H, QD});
  random(L + "mlp.gate_proj.weight", {F, H});
  random(L + "mlp.up_proj.weight", {F, H});
  random(L + "mlp.down_proj.weight", {H, F});
  ones(L + "post_attention_layernorm.weight", H);
  if (t.qk_norm) {
    ones(L + "self_attn.q_norm.weight", t.head_dim);
    ones(L + "self_attn.k_norm.weight", t.head_dim);
  }
  if (t.post_norms) {
    ones(L + "pre_feedforward_layernorm.weight", H);
    ones(L + "post_feedforward_layernorm.weight", H);
  }
  const std::vector<int32_t> vocab = default_draft_vocab(target, spec.draft_vocab);
  write_native_drafter(dir, config, writer, vocab, t.n_vocab);
}

namespace {
constexpr std::string_view kEagleConfigKeys[] = {"n_embd",    "n_ff",    "n_heads", "n_kv_heads", "head_dim",
                                                 "rope_base", "rms_eps", "fc_bias", "final_norm", "previous_token"};
constexpr TrainingNet kEagleTraining{"eagle", TrainingNet::Steps::one, 1, false, true};
}  // namespace

const DrafterKind& eagle_kind() {
  static constexpr DrafterKind kind{
      .name = "eagle",
      .needs_weights = true,
      .weights_of = "eagle",
      .with_lookup = false,
      .make = [](DrafterCheckpoint* c, const DrafterOptions& o, const Model& m, ThreadPool& p) { return make_eagle_drafter(*c, o, m, p); },
      .write_random = write_random_eagle,
      .sizes_automatically = sizing_is_auto,
      .reads = [](const DrafterOptions& o) -> uint32_t { return kEveryDrafter | kWithWeights | (o.eagle_static_tree ? kChoiceTree : kDynamicTree); },
      .estimate =
          [](const DrafterOptions& o) {
            return StepEstimate{static_cast<double>(o.total_tokens), 2};
          },
      .config_keys = kEagleConfigKeys,
      .is_reference = [](const nlohmann::json&,
                         const std::vector<std::string>& tensors) { return std::find(tensors.begin(), tensors.end(), "fc.weight") != tensors.end(); },
      .training = &kEagleTraining,
      .pairs_with_lookup = true,
  };
  return kind;
}

}  // namespace draftbench
