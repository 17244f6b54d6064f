#include "tests/support/tiny_llama.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "engine/model/gguf_writer.h"
#include "engine/model/safetensors_writer.h"
#include "kernels/quant/quantize_activation.h"

namespace draftbench::test {
namespace {

constexpr const char* kSpace = "\xE2\x96\x81";  // "▁", SentencePiece's space

// Llama's layout: <unk>, <s>, </s>, the 256 byte pieces, then text pieces. Single
// characters score below every merge, and merges score in the order they apply.
SentencePieceModel tiny_vocabulary() {
  SentencePieceModel m;
  m.pieces.push_back({"<unk>", 0.0f, SentencePieceType::unknown});
  m.pieces.push_back({"<s>", 0.0f, SentencePieceType::control});
  m.pieces.push_back({"</s>", 0.0f, SentencePieceType::control});
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) m.pieces.push_back({std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">", 0.0f, SentencePieceType::byte});
  const std::string s = kSpace;
  const std::vector<std::string> merges = {s + "t", "he", "in",    "er", "an", s + "a",   "on",  "re",    s + "the", "at",    "en",
                                           s + "s", "or", s + "w", "ll", "nd", s + "and", "ing", s + "o", "ou",      s + "c", "is"};
  float score = -1.0f;
  for (const std::string& piece : merges) m.pieces.push_back({piece, score--, SentencePieceType::normal});
  score = -1000.0f;
  m.pieces.push_back({s, score--, SentencePieceType::normal});
  for (char ch = 'a'; ch <= 'z'; ++ch) m.pieces.push_back({std::string(1, ch), score--, SentencePieceType::normal});
  m.model_type = SentencePieceModelType::bpe;
  m.byte_fallback = true;
  m.unk_id = 0;
  m.bos_id = 1;
  m.eos_id = 2;
  m.pad_id = -1;
  m.add_dummy_prefix = true;
  m.remove_extra_whitespaces = false;
  return m;
}

std::string gguf_name(const std::string& hf) {
  static const std::pair<std::string, std::string> kGlobal[] = {
      {"model.embed_tokens.weight", "token_embd.weight"}, {"model.norm.weight", "output_norm.weight"}, {"lm_head.weight", "output.weight"}};
  for (const auto& [from, to] : kGlobal)
    if (hf == from) return to;
  static const std::pair<std::string, std::string> kLayer[] = {
      {"input_layernorm", "attn_norm"}, {"post_attention_layernorm", "ffn_norm"}, {"self_attn.q_proj", "attn_q"}, {"self_attn.k_proj", "attn_k"},
      {"self_attn.v_proj", "attn_v"},   {"self_attn.o_proj", "attn_output"},      {"mlp.gate_proj", "ffn_gate"},  {"mlp.up_proj", "ffn_up"},
      {"mlp.down_proj", "ffn_down"}};
  // model.layers.<N>.<module>.{weight,bias} -> blk.<N>.<gguf module>.{weight,bias}
  const std::string prefix = "model.layers.", suffix = hf.ends_with(".bias") ? ".bias" : ".weight";
  const size_t dot = hf.find('.', prefix.size());
  if (hf.starts_with(prefix) && hf.ends_with(suffix) && dot != std::string::npos) {
    const std::string layer = hf.substr(prefix.size(), dot - prefix.size());
    const std::string module = hf.substr(dot + 1, hf.size() - suffix.size() - dot - 1);
    for (const auto& [from, to] : kLayer)
      if (module == from) return "blk." + layer + "." + to + suffix;
  }
  throw std::logic_error("tiny_llama: no GGUF name for " + hf);
}

}  // namespace

NamedTensor& TinyLlama::tensor(const std::string& name) {
  for (NamedTensor& t : tensors)
    if (t.name == name) return t;
  throw std::out_of_range("tiny_llama: no tensor " + name);
}

TinyLlama make_tiny_llama(const TinyLlamaShape& shape) {
  TinyLlama m;
  m.shape = shape;
  m.tokenizer = tiny_vocabulary();
  std::mt19937_64 rng(shape.seed);
  const auto add = [&](std::string name, std::vector<int64_t> dims, float mean, float stddev) {
    std::normal_distribution<float> dist(mean, stddev);
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<float> values(static_cast<size_t>(n));
    for (float& v : values) v = dist(rng);
    m.tensors.push_back({std::move(name), std::move(dims), std::move(values)});
  };
  const int64_t H = shape.hidden, Q = shape.heads * shape.head_dim, KV = shape.kv_heads * shape.head_dim, V = m.vocab();
  const auto fan_in = [](int64_t n) { return 1.0f / std::sqrt(static_cast<float>(n)); };
  add("model.embed_tokens.weight", {V, H}, 0.0f, 1.0f);
  for (int64_t il = 0; il < shape.layers; ++il) {
    const std::string p = "model.layers." + std::to_string(il) + ".";
    // Norm weights away from 1, so a mistake in converting them shows.
    add(p + "input_layernorm.weight", {H}, 1.0f, 0.2f);
    add(p + "self_attn.q_proj.weight", {Q, H}, 0.0f, fan_in(H));
    add(p + "self_attn.k_proj.weight", {KV, H}, 0.0f, fan_in(H));
    add(p + "self_attn.v_proj.weight", {KV, H}, 0.0f, fan_in(H));
    if (shape.qkv_bias) {
      add(p + "self_attn.q_proj.bias", {Q}, 0.0f, 0.5f);
      add(p + "self_attn.k_proj.bias", {KV}, 0.0f, 0.5f);
      add(p + "self_attn.v_proj.bias", {KV}, 0.0f, 0.5f);
    }
    add(p + "self_attn.o_proj.weight", {H, Q}, 0.0f, fan_in(Q));
    add(p + "post_attention_layernorm.weight", {H}, 1.0f, 0.2f);
    add(p + "mlp.gate_proj.weight", {shape.ff, H}, 0.0f, fan_in(H));
    add(p + "mlp.up_proj.weight", {shape.ff, H}, 0.0f, fan_in(H));
    add(p + "mlp.down_proj.weight", {H, shape.ff}, 0.0f, fan_in(shape.ff));
  }
  add("model.norm.weight", {H}, 1.0f, 0.2f);
  // Logits with a spread of a few units: greedy choices are far from ties.
  if (!shape.tied_embeddings) add("lm_head.weight", {V, H}, 0.0f, 3.0f * fan_in(H));
  return m;
}

TinyLlama rounded_to(const TinyLlama& model, GgmlType type) {
  TinyLlama out = model;
  for (NamedTensor& t : out.tensors)
    for (float& v : t.values) v = round_to_type(type, v);
  return out;
}

std::string hf_config_json(const TinyLlama& model) {
  const TinyLlamaShape& s = model.shape;
  const nlohmann::json config = {
      {"architectures", {"LlamaForCausalLM"}},
      {"model_type", "llama"},
      {"hidden_size", s.hidden},
      {"intermediate_size", s.ff},
      {"num_hidden_layers", s.layers},
      {"num_attention_heads", s.heads},
      {"num_key_value_heads", s.kv_heads},
      {"head_dim", s.head_dim},
      {"hidden_act", "silu"},
      {"max_position_embeddings", s.context},
      {"rms_norm_eps", s.rms_eps},
      {"rope_theta", s.rope_theta},
      {"rope_scaling", nullptr},
      {"attention_bias", false},
      {"vocab_size", model.vocab()},
      {"tie_word_embeddings", s.tied_embeddings},
      {"bos_token_id", model.tokenizer.bos_id},
      {"eos_token_id", model.tokenizer.eos_id},
      {"torch_dtype", "float32"},
  };
  return config.dump(2);
}

void write_hf_checkpoint(const TinyLlama& model, const std::string& dir, const HfWriteOptions& options) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  write_file((fs::path(dir) / "config.json").string(), hf_config_json(model));
  if (options.write_tokenizer) write_file((fs::path(dir) / "tokenizer.model").string(), serialize_sentencepiece_model(model.tokenizer));

  const size_t n = model.tensors.size(), shards = static_cast<size_t>(std::max(1, options.shards));
  if (shards == 1) {
    SafetensorsWriter w;
    w.metadata("format", "pt");
    for (const NamedTensor& t : model.tensors) w.tensor_floats(t.name, options.dtype, t.shape, t.values);
    if (options.misaligned_data)
      for (size_t fill = 1; (8 + w.header().size()) % 2 == 0; ++fill) w.metadata("fill", std::string(fill, 'x'));
    w.write((fs::path(dir) / "model.safetensors").string(), /*pad_header=*/!options.misaligned_data);
    return;
  }
  nlohmann::json weight_map = nlohmann::json::object();
  for (size_t shard = 0; shard < shards; ++shard) {
    char file[64];
    std::snprintf(file, sizeof file, "model-%05zu-of-%05zu.safetensors", shard + 1, shards);
    SafetensorsWriter w;
    w.metadata("format", "pt");
    for (size_t i = shard * n / shards; i < (shard + 1) * n / shards; ++i) {
      const NamedTensor& t = model.tensors[i];
      w.tensor_floats(t.name, options.dtype, t.shape, t.values);
      weight_map[t.name] = file;
    }
    w.write((fs::path(dir) / file).string());
  }
  const nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}};
  write_file((fs::path(dir) / "model.safetensors.index.json").string(), index.dump(2));
}

std::vector<float> permute_for_interleaved_rope(const std::vector<float>& w, int64_t n_head, int64_t n_in) {
  const int64_t rows = static_cast<int64_t>(w.size()) / n_in, d = rows / n_head, half = d / 2;
  std::vector<float> out(w.size());
  for (int64_t h = 0; h < n_head; ++h)
    for (int64_t j = 0; j < half; ++j)
      for (int64_t s = 0; s < 2; ++s) {
        const float* from = w.data() + (h * d + s * half + j) * n_in;
        std::copy(from, from + n_in, out.data() + (h * d + 2 * j + s) * n_in);
      }
  return out;
}

void write_sentencepiece_vocab(GgufWriter& w, const SentencePieceModel& vocab) {
  std::vector<std::string> pieces;
  std::vector<float> scores;
  std::vector<int32_t> types;
  for (const SentencePiecePiece& p : vocab.pieces) {
    pieces.push_back(p.piece);
    scores.push_back(p.score);
    types.push_back(static_cast<int32_t>(p.type));
  }
  w.kv("tokenizer.ggml.model", std::string("llama"));
  w.kv("tokenizer.ggml.pre", std::string("default"));
  w.kv_strings("tokenizer.ggml.tokens", pieces);
  w.kv_floats("tokenizer.ggml.scores", scores);
  w.kv_ints("tokenizer.ggml.token_type", types);
  w.kv("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(vocab.bos_id));
  w.kv("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(vocab.eos_id));
  w.kv("tokenizer.ggml.unknown_token_id", static_cast<uint32_t>(vocab.unk_id));
  w.kv("tokenizer.ggml.add_bos_token", true);
  w.kv("tokenizer.ggml.add_eos_token", false);
}

namespace {
// A matrix's bytes in `type`: floats as they are, Q8_0 rows quantised as llama.cpp's
// quantiser does it (per 32 values, scale max|x| / 127, fp16): the layout and rounding of
// the Q8_0 activation rows the products already consume.
std::vector<uint8_t> encode_matrix(GgmlType type, const std::vector<float>& values, int64_t row_length) {
  if (type != GgmlType::Q8_0) return encode_floats(type, values);
  const int64_t rows = static_cast<int64_t>(values.size()) / row_length;
  const size_t row_bytes = activation_row_bytes(type, row_length);
  std::vector<uint8_t> out(row_bytes * static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) quantize_activation_row(type, values.data() + r * row_length, out.data() + r * row_bytes, row_length);
  return out;
}
}  // namespace

namespace {

// `arch` "llama" permutes q/k rows for interleaved RoPE pairs, as the converter does;
// "qwen2" keeps them.
void write_gguf(const TinyLlama& model, const std::string& path, const std::string& arch, GgmlType matrix_type,
                const std::map<std::string, GgmlType>& types_by_suffix) {
  const TinyLlamaShape& s = model.shape;
  GgufWriter w;
  w.kv("general.architecture", arch);
  w.kv("general.name", "tiny-" + arch);
  w.kv("general.file_type", uint32_t{matrix_type == GgmlType::F32 ? 0u : matrix_type == GgmlType::F16 ? 1u : matrix_type == GgmlType::Q8_0 ? 7u : 32u});
  w.kv(arch + ".vocab_size", static_cast<uint32_t>(model.vocab()));
  w.kv(arch + ".context_length", static_cast<uint32_t>(s.context));
  w.kv(arch + ".embedding_length", static_cast<uint32_t>(s.hidden));
  w.kv(arch + ".block_count", static_cast<uint32_t>(s.layers));
  w.kv(arch + ".feed_forward_length", static_cast<uint32_t>(s.ff));
  w.kv(arch + ".rope.dimension_count", static_cast<uint32_t>(s.head_dim));
  w.kv(arch + ".attention.head_count", static_cast<uint32_t>(s.heads));
  w.kv(arch + ".attention.head_count_kv", static_cast<uint32_t>(s.kv_heads));
  if (s.head_dim * s.heads != s.hidden) {
    w.kv(arch + ".attention.key_length", static_cast<uint32_t>(s.head_dim));
    w.kv(arch + ".attention.value_length", static_cast<uint32_t>(s.head_dim));
  }
  w.kv(arch + ".attention.layer_norm_rms_epsilon", s.rms_eps);
  w.kv(arch + ".rope.freq_base", s.rope_theta);

  write_sentencepiece_vocab(w, model.tokenizer);
  w.kv("tokenizer.ggml.add_space_prefix", model.tokenizer.add_dummy_prefix);

  const bool permute = arch == "llama";
  for (const NamedTensor& t : model.tensors) {
    std::vector<float> values = t.values;
    if (permute && t.name.ends_with("self_attn.q_proj.weight")) values = permute_for_interleaved_rope(values, s.heads, t.shape[1]);
    if (permute && t.name.ends_with("self_attn.k_proj.weight")) values = permute_for_interleaved_rope(values, s.kv_heads, t.shape[1]);
    const std::vector<int64_t> ne(t.shape.rbegin(), t.shape.rend());    // GGUF lists the contiguous dimension first
    GgmlType type = t.shape.size() == 1 ? GgmlType::F32 : matrix_type;  // the converter keeps 1-D tensors in F32
    for (const auto& [suffix, suffix_type] : types_by_suffix)
      if (t.shape.size() > 1 && t.name.ends_with(suffix)) type = suffix_type;
    w.tensor(gguf_name(t.name), type, ne, encode_matrix(type, values, ne[0]));
  }
  w.write(path);
}

}  // namespace

void write_llama_gguf(const TinyLlama& model, const std::string& path, GgmlType matrix_type, const std::map<std::string, GgmlType>& types_by_suffix) {
  write_gguf(model, path, "llama", matrix_type, types_by_suffix);
}

void write_qwen2_gguf(const TinyLlama& model, const std::string& path, GgmlType matrix_type) { write_gguf(model, path, "qwen2", matrix_type, {}); }

}  // namespace draftbench::test
