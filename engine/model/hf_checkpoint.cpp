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
#include "kernels/quant/dequantize.h"

namespace draftbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kConfigFile = "config.json";
constexpr const char* kSingleFile = "model.safetensors";
constexpr const char* kIndexFile = "model.safetensors.index.json";

json read_json_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", fmt::format("cannot open {}", what));
  std::stringstream text;
  text << in.rdbuf();
  try {
    return json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw InputError(path, "", fmt::format("not valid JSON (parse error at byte {})", e.byte));
  }
}

// Typed access to config.json fields. `null` counts as absent, as transformers treats it.
class ConfigFields {
 public:
  ConfigFields(const json& j, const std::string& path) : j_(j), path_(path) {}

  const json* find(const char* key) const {
    const auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }
  int64_t integer(const char* key) const {
    const json* v = find(key);
    if (!v) throw InputError(path_, field(key), "missing (expected an integer)");
    if (!v->is_number_integer()) throw InputError(path_, field(key), fmt::format("holds {} (expected an integer)", printable_json(*v)));
    return v->get<int64_t>();
  }
  int64_t integer_or(const char* key, int64_t fallback) const { return find(key) ? integer(key) : fallback; }
  double number_or(const char* key, double fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_number()) throw InputError(path_, field(key), fmt::format("holds {} (expected a number)", printable_json(*v)));
    return v->get<double>();
  }
  bool boolean_or(const char* key, bool fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) throw InputError(path_, field(key), fmt::format("holds {} (expected true or false)", printable_json(*v)));
    return v->get<bool>();
  }
  std::string string_or(const char* key, const std::string& fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_string()) throw InputError(path_, field(key), fmt::format("holds {} (expected a string)", printable_json(*v)));
    return v->get<std::string>();
  }
  static std::string field(const char* key) { return fmt::format("field '{}'", key); }

 private:
  const json& j_;
  const std::string& path_;
};

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// Where each tensor of the checkpoint lives: every shard opened once, every tensor name
// in exactly one shard.
class TensorSource {
 public:
  explicit TensorSource(const std::string& dir) {
    const fs::path index_path = fs::path(dir) / kIndexFile;
    const fs::path single_path = fs::path(dir) / kSingleFile;
    if (fs::exists(index_path)) open_sharded(dir, index_path.string());
    else if (fs::exists(single_path)) add_shard(single_path.string());
    else
      throw InputError(dir, kSingleFile,
                       fmt::format("missing, and no {} either (PyTorch .bin checkpoints are not supported: convert them to safetensors)", kIndexFile));
  }

  struct Found {
    const SafetensorsFile* file;
    const SafetensorsTensor* tensor;
  };
  // Marks the tensor as used; nullptr tensor if the checkpoint has none of that name.
  Found find(const std::string& name) {
    const auto it = where_.find(name);
    if (it == where_.end()) return {nullptr, nullptr};
    used_.insert(name);
    const SafetensorsFile& file = shards_[it->second];
    return {&file, file.find_tensor(name)};
  }
  // Names `where` (the one file or the index) for messages about absent tensors.
  const std::string& where() const { return where_label_; }

  // Every tensor must have been bound, apart from buffers transformers recomputes.
  void reject_unused() const {
    for (const auto& [name, shard] : where_) {
      if (used_.count(name) || name.ends_with(".rotary_emb.inv_freq")) continue;
      throw InputError(shards_[shard].path(), "tensor '" + printable_text(name) + "'",
                       "unexpected in a Llama checkpoint (biases and extra modules are not supported)");
    }
  }

  std::vector<SafetensorsFile> take_shards() { return std::move(shards_); }

 private:
  void open_sharded(const std::string& dir, const std::string& index_path) {
    where_label_ = index_path;
    const json index = read_json_file(index_path, "the shard index");
    const auto map = index.is_object() ? index.find("weight_map") : index.end();
    if (map == index.end() || !map->is_object()) throw InputError(index_path, "field 'weight_map'", "missing or not an object");
    std::map<std::string, size_t> shard_of_file;
    std::vector<std::pair<std::string, size_t>> listed;  // tensor -> shard, as the index says
    for (const auto& [tensor, file] : map->items()) {
      const std::string what = "weight_map '" + printable_text(tensor) + "'";
      if (!file.is_string()) throw InputError(index_path, what, fmt::format("holds {} (expected a file name)", printable_json(file)));
      const std::string file_name = file.get<std::string>();
      // Shards must sit in the checkpoint directory: a path here would read elsewhere.
      if (file_name.empty() || file_name.find('/') != std::string::npos || file_name == "." || file_name == "..")
        throw InputError(index_path, what, fmt::format("'{}' is not a file name in the checkpoint directory", printable_text(file_name)));
      auto [it, is_new] = shard_of_file.try_emplace(file_name, shards_.size());
      if (is_new) add_shard((fs::path(dir) / file_name).string());
      listed.emplace_back(tensor, it->second);
    }
    for (const auto& [tensor, shard] : listed) {
      if (!shards_[shard].find_tensor(tensor))
        throw InputError(index_path, "weight_map '" + printable_text(tensor) + "'",
                         fmt::format("names shard {} but the tensor is not in it", shards_[shard].path()));
    }
  }

  void add_shard(const std::string& path) {
    if (!fs::exists(path)) throw InputError(path, "", "shard not found");
    if (where_label_.empty()) where_label_ = path;
    shards_.push_back(SafetensorsFile::open(path));
    const size_t shard = shards_.size() - 1;
    for (const SafetensorsTensor& t : shards_[shard].tensors()) {
      auto [it, is_new] = where_.try_emplace(t.name, shard);
      if (!is_new) throw InputError(path, "tensor '" + printable_text(t.name) + "'", fmt::format("also in {} (each tensor must be in one shard)", shards_[it->second].path()));
    }
  }

  std::vector<SafetensorsFile> shards_;
  std::map<std::string, size_t> where_;
  std::set<std::string> used_;
  std::string where_label_;
};

// Binds tensors into ModelWeights, checking shape and dtype.
class WeightBinder {
 public:
  WeightBinder(TensorSource& source, ModelWeights& weights) : source_(source), weights_(weights) {}

  // An HF Linear weight [n_out, n_in]; `dims` spells the expected shape for messages.
  WeightMatrix matrix(const std::string& name, int64_t n_out, int64_t n_in, const char* dims) {
    const auto [file, t] = require(name);
    check_shape(*file, *t, {n_out, n_in}, dims);
    const GgmlType type = file->float_type(*t);
    return WeightMatrix{type, n_in, n_out, aligned(*t, type)};
  }

  // A norm weight [n] as f32: the file's bytes when they are F32 and aligned, else a
  // converted copy.
  const float* vector(const std::string& name, int64_t n, const char* dims) {
    const auto [file, t] = require(name);
    check_shape(*file, *t, {n}, dims);
    const GgmlType type = file->float_type(*t);
    if (type == GgmlType::F32 && reinterpret_cast<uintptr_t>(t->data) % alignof(float) == 0) return reinterpret_cast<const float*>(t->data);
    std::vector<float>& out = weights_.owned_vectors.emplace_back(static_cast<size_t>(n));
    if (type == GgmlType::F32) {
      std::memcpy(out.data(), t->data, t->n_bytes);
    } else {
      std::vector<uint16_t> raw(static_cast<size_t>(n));  // aligned for dequantize_row
      std::memcpy(raw.data(), t->data, t->n_bytes);
      dequantize_row(type, raw.data(), out.data(), n);
    }
    return out.data();
  }

  bool has(const std::string& name) { return source_.find(name).tensor != nullptr; }

 private:
  TensorSource::Found require(const std::string& name) {
    const TensorSource::Found found = source_.find(name);
    if (!found.tensor) throw InputError(source_.where(), "tensor '" + name + "'", "missing");
    return found;
  }

  static void check_shape(const SafetensorsFile& file, const SafetensorsTensor& t, const std::vector<int64_t>& expected, const char* dims) {
    if (t.shape != expected)
      throw InputError(file.path(), "tensor '" + t.name + "'", fmt::format("shape {} (expected {} = {})", shape_str(t.shape), shape_str(expected), dims));
  }

  // The kernels load elements through typed pointers, so the bytes must be aligned to the
  // element size; safetensors only guarantees that when the writer padded the header
  // (current writers pad to 8 bytes). Misaligned tensors are copied.
  const uint8_t* aligned(const SafetensorsTensor& t, GgmlType type) {
    const size_t element_bytes = type == GgmlType::F32 ? 4 : 2;
    if (reinterpret_cast<uintptr_t>(t.data) % element_bytes == 0) return t.data;
    std::vector<float>& copy = weights_.owned_vectors.emplace_back((t.n_bytes + sizeof(float) - 1) / sizeof(float));
    std::memcpy(copy.data(), t.data, t.n_bytes);
    return reinterpret_cast<const uint8_t*>(copy.data());
  }

  TensorSource& source_;
  ModelWeights& weights_;
};

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
    throw InputError(path, "field 'model_type'", fmt::format("'{}' is not supported (expected llama, or mistral without a sliding window)", printable_text(model_type)));

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
  WeightBinder bind(source, w);
  w.token_embd = bind.matrix("model.embed_tokens.weight", c.n_vocab, c.n_embd, "[vocab_size, hidden_size]");
  if (hf.tie_word_embeddings) {
    bind.has("lm_head.weight");  // transformers overwrites it with the embedding: ignore it
    w.output = w.token_embd;
  } else {
    if (!bind.has("lm_head.weight"))
      throw InputError(source.where(), "tensor 'lm_head.weight'", "missing (config.json has tie_word_embeddings false)");
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
  source.reject_unused();
  ckpt.shards = source.take_shards();
  return ckpt;
}

}  // namespace draftbench
