#include "engine/model/synthetic_model.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "engine/model/synthetic_architecture.h"

namespace draftbench {
namespace {

// One entry per `--like` name. The Gemma 3 recipes' tensors, metadata and vocabulary are
// below; qwen2-tiny's are in synthetic_qwen2.cpp. gemma3-270m-q4_k_m has the tensors of
// the default model (models/gemma-3-270m-q4_k_m.gguf) and every key of it the engine
// reads, with the same values (the model test "make-model's gemma3-270m-q4_k_m recipe is
// the default model's shape" holds it to that). gemma3-tiny keeps the architecture and
// the quantisation types per tensor role at sizes that decode fast even on the emulated
// device: both global and sliding-window layers, and a window a 64-token run crosses.
// qwen2-tiny is Qwen2.5-Coder-1.5B-Instruct Q4_K_M
// (models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf) in miniature: its head_dim of 128 and
// grouped-query attention, Q/K/V biases, separate output matrix, rope base and tensor
// types, and a byte-level BPE vocabulary with its special tokens and chat template; 4
// layers so both use_more_bits() types occur.
// A recipe's hyperparameters stay on two lines, read as one row.
// clang-format off
constexpr ModelRecipe kRecipes[] = {
    {"gemma3-270m-q4_k_m", "Gemma 3 270M as the default model's Q4_K_M GGUF: 18 layers, hidden 640, vocabulary 262,144 (240 MiB)",
     "Gemma 3 270m", &kSyntheticGemma3,
     {.n_vocab = 262144, .n_embd = 640, .n_layers = 18, .n_ff = 2048, .n_heads = 4, .n_kv_heads = 1, .head_dim = 256,
      .context_length = 32768, .sliding_window = 512, .sliding_window_pattern = 0, .rms_eps = 1e-6f, .rope_base = 1e6f}},
    {"gemma3-tiny", "Gemma 3 in miniature, same tensor types: 4 layers (2 sliding-window of 16 tokens, 2 global), hidden 256, vocabulary 4,096 (2.6 MiB)",
     "Gemma 3 tiny", &kSyntheticGemma3,
     {.n_vocab = 4096, .n_embd = 256, .n_layers = 4, .n_ff = 512, .n_heads = 4, .n_kv_heads = 1, .head_dim = 64,
      .context_length = 32768, .sliding_window = 16, .sliding_window_pattern = 2, .rms_eps = 1e-6f, .rope_base = 1e6f}},
    {"qwen2-tiny", "Qwen 2.5 Coder 1.5B Q4_K_M in miniature, same tensor types and tokenizer kind: 4 layers, hidden 256, 2 heads of 128, vocabulary 4,096 (3 MiB)",
     "Qwen2.5 Coder tiny", &kSyntheticQwen2,
     {.n_vocab = 4096, .n_embd = 256, .n_layers = 4, .n_ff = 512, .n_heads = 2, .n_kv_heads = 1, .head_dim = 128,
      .context_length = 32768, .sliding_window = 0, .sliding_window_pattern = 0, .rms_eps = 1e-6f, .rope_base = 1e6f}},
};
// clang-format on

// A tensor's dimensions, named by what they are in the recipe's shape.
enum class Dim { none, embd, q_dim, kv_dim, ff, head_dim };

int64_t dim_size(Dim dim, const RecipeShape& s) {
  switch (dim) {
    case Dim::none: return 0;
    case Dim::embd: return s.n_embd;
    case Dim::q_dim: return s.n_heads * s.head_dim;
    case Dim::kv_dim: return s.n_kv_heads * s.head_dim;
    case Dim::ff: return s.n_ff;
    case Dim::head_dim: return s.head_dim;
  }
  return 0;
}

// How a tensor's random values are scaled. Every projection's output goes through an
// RMSNorm (q/k norms, Gemma's post-attention and post-FFN norms) except the FFN gate's,
// so fan-in scaling only has to keep the gate's GELU input near unit variance. The LM
// head is the embedding (tied), so the final state's share of its own token's embedding
// is a logit bonus for repeating that token: with the layers adding outputs of norm 1,
// greedy decoding fell into repeating one token within a few steps. The post-norms'
// gain of 8 makes the layers' sum dominate (15-26 distinct tokens in 32 greedy steps on
// both recipes, seed 1). The final norm's weight then spreads the logits to a standard
// deviation of about 2.
enum class WeightRole { embedding, projection, norm, residual_norm, output_norm };

constexpr float kEmbeddingScale = 0.25f;  // embedding stddev * sqrt(n_embd): the scaled embedding's RMS
constexpr float kResidualGain = 8.0f;     // post-attention and post-FFN norm weights
constexpr float kLogitSpread = 2.0f;      // logits' stddev
constexpr float kNormJitter = 0.1f;       // norm weights' stddev relative to their mean

WeightDistribution distribution_for(WeightRole role, int64_t n_in) {
  const float root_in = std::sqrt(static_cast<float>(n_in));
  const auto around = [](float mean) { return WeightDistribution{mean, kNormJitter * mean}; };
  switch (role) {
    case WeightRole::embedding: return {0.0f, kEmbeddingScale / root_in};
    case WeightRole::projection: return {0.0f, 1.0f / root_in};
    case WeightRole::norm: return around(1.0f);
    case WeightRole::residual_norm: return around(kResidualGain);
    case WeightRole::output_norm: return around(kLogitSpread / kEmbeddingScale);
  }
  return {};
}

// A layer's tensors in file order, with their types as llama.cpp's Q4_K_M gives them for
// Gemma 3 270M: K-quants where rows are a multiple of 256 values, Q5_0 (for Q4_K) and Q8_0
// (for Q6_K) on its 640-wide rows. `more_bits_type` applies to the layers use_more_bits()
// picks. The tiny recipe keeps these types whatever its row lengths allow, so it runs
// the same products.
struct LayerTensor {
  std::string_view name;
  Dim in, out;  // out == none: a vector of `in` values
  GgmlType type, more_bits_type;
  WeightRole role;
};
constexpr LayerTensor kGemma3LayerTensors[] = {
    {"attn_k", Dim::embd, Dim::kv_dim, GgmlType::Q5_0, GgmlType::Q5_0, WeightRole::projection},
    {"attn_k_norm", Dim::head_dim, Dim::none, GgmlType::F32, GgmlType::F32, WeightRole::norm},
    {"attn_norm", Dim::embd, Dim::none, GgmlType::F32, GgmlType::F32, WeightRole::norm},
    {"attn_output", Dim::q_dim, Dim::embd, GgmlType::Q4_K, GgmlType::Q4_K, WeightRole::projection},
    {"attn_q", Dim::embd, Dim::q_dim, GgmlType::Q5_0, GgmlType::Q5_0, WeightRole::projection},
    {"attn_q_norm", Dim::head_dim, Dim::none, GgmlType::F32, GgmlType::F32, WeightRole::norm},
    {"attn_v", Dim::embd, Dim::kv_dim, GgmlType::Q5_0, GgmlType::Q8_0, WeightRole::projection},
    {"ffn_down", Dim::ff, Dim::embd, GgmlType::Q4_K, GgmlType::Q6_K, WeightRole::projection},
    {"ffn_gate", Dim::embd, Dim::ff, GgmlType::Q5_0, GgmlType::Q5_0, WeightRole::projection},
    {"ffn_norm", Dim::embd, Dim::none, GgmlType::F32, GgmlType::F32, WeightRole::norm},
    {"ffn_up", Dim::embd, Dim::ff, GgmlType::Q5_0, GgmlType::Q5_0, WeightRole::projection},
    {"post_attention_norm", Dim::embd, Dim::none, GgmlType::F32, GgmlType::F32, WeightRole::residual_norm},
    {"post_ffw_norm", Dim::embd, Dim::none, GgmlType::F32, GgmlType::F32, WeightRole::residual_norm},
};

// Gemma's tokens that the engine finds by id (bos, eos, unk, pad) or by text (the chat
// template's turn markers; "</s>", which stops generation as in llama.cpp), at their
// real ids, with their real texts and types.
struct FixedToken {
  int32_t id;
  std::string_view text;
  int32_t type;  // GGUF token type: 3 control, 4 user-defined
};
constexpr int32_t kControl = 3, kUserDefined = 4, kNormal = 1, kByte = 6;
constexpr FixedToken kGemmaFixedTokens[] = {
    {0, "<pad>", kControl},           {1, "<eos>", kControl},      {2, "<bos>", kControl},
    {3, "<unk>", kControl},           {4, "<mask>", kControl},     {105, "<start_of_turn>", kControl},
    {106, "<end_of_turn>", kControl}, {212, "</s>", kUserDefined},
};
constexpr int32_t kPadId = 0, kEosId = 1, kBosId = 2, kUnkId = 3;
constexpr int32_t kFirstByteToken = 238;  // <0x00>; <0xFF> is 493
constexpr float kSpecialScore = -1000.0f;

// Made-up pieces in order: SentencePiece's space "▁" and printable ASCII, then words over
// a-z by length and alphabetically, each as "▁word" and (from two letters on) "word".
// Every piece longer than one character is a shorter piece plus a letter, so BPE can
// merge up to it.
class MadeUpPieces {
 public:
  std::string next() {
    if (single_ <= 94) {
      const int k = single_++;
      return k == 0 ? std::string(kSpace) : std::string(1, static_cast<char>('!' + k - 1));
    }
    if (bare_pending_) {
      bare_pending_ = false;
      std::string piece = word_;
      advance();
      return piece;
    }
    std::string piece = std::string(kSpace) + word_;
    bare_pending_ = word_.size() > 1;
    if (!bare_pending_) advance();
    return piece;
  }

 private:
  static constexpr std::string_view kSpace = "\xE2\x96\x81";
  void advance() {  // "az" -> "ba", "zz" -> "aaa"
    for (size_t i = word_.size(); i-- > 0;) {
      if (word_[i] != 'z') {
        ++word_[i];
        return;
      }
      word_[i] = 'a';
    }
    word_.push_back('a');
  }
  int single_ = 0;
  std::string word_ = "a";
  bool bare_pending_ = false;  // "▁" + word_ given, word_ alone next
};

void write_vocabulary(GgufWriter& w, const VocabSpec& v) {
  w.kv("tokenizer.ggml.model", std::string("llama"));
  w.kv("tokenizer.ggml.pre", std::string("default"));
  w.kv_strings("tokenizer.ggml.tokens", v.pieces);
  w.kv_floats("tokenizer.ggml.scores", v.scores);
  w.kv_ints("tokenizer.ggml.token_type", v.types);
  w.kv("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(v.bos_id));
  w.kv("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(v.eos_id));
  w.kv("tokenizer.ggml.unknown_token_id", static_cast<uint32_t>(v.unk_id));
  w.kv("tokenizer.ggml.padding_token_id", static_cast<uint32_t>(v.pad_id));
  w.kv("tokenizer.ggml.add_bos_token", v.add_bos);
  w.kv("tokenizer.ggml.add_sep_token", false);
  w.kv("tokenizer.ggml.add_eos_token", v.add_eos);
  w.kv("tokenizer.ggml.add_space_prefix", v.add_space_prefix);
}

// The keys after general.name in the real file's order.
void write_gemma3_metadata(GgufWriter& w, const RecipeShape& s) {
  const std::string a = "gemma3";
  const auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
  w.kv(a + ".context_length", u32(s.context_length));
  w.kv(a + ".embedding_length", u32(s.n_embd));
  w.kv(a + ".block_count", u32(s.n_layers));
  w.kv(a + ".feed_forward_length", u32(s.n_ff));
  w.kv(a + ".attention.head_count", u32(s.n_heads));
  w.kv(a + ".attention.layer_norm_rms_epsilon", s.rms_eps);
  w.kv(a + ".attention.key_length", u32(s.head_dim));
  w.kv(a + ".attention.value_length", u32(s.head_dim));
  w.kv(a + ".rope.freq_base", s.rope_base);
  w.kv(a + ".attention.sliding_window", u32(s.sliding_window));
  if (s.sliding_window_pattern > 0) w.kv(a + ".attention.sliding_window_pattern", u32(s.sliding_window_pattern));
  w.kv(a + ".attention.head_count_kv", u32(s.n_kv_heads));
  write_vocabulary(w, synthetic_vocabulary(s.n_vocab));
  w.kv("general.quantization_version", uint32_t{2});
  w.kv("general.file_type", kFileTypeQ4_K_M);
}

std::vector<SyntheticTensor> gemma3_tensors(const RecipeShape& s) {
  std::vector<SyntheticTensor> tensors;
  tensors.push_back({"output_norm.weight", {s.n_embd}, GgmlType::F32, distribution_for(WeightRole::output_norm, s.n_embd)});
  tensors.push_back({"token_embd.weight", {s.n_embd, s.n_vocab}, GgmlType::Q8_0, distribution_for(WeightRole::embedding, s.n_embd)});
  for (int64_t il = 0; il < s.n_layers; ++il) {
    const bool more_bits = use_more_bits(il, s.n_layers);
    for (const LayerTensor& t : kGemma3LayerTensors) {
      const int64_t n_in = dim_size(t.in, s);
      std::vector<int64_t> ne = {n_in};
      if (t.out != Dim::none) ne.push_back(dim_size(t.out, s));
      tensors.push_back({fmt::format("blk.{}.{}.weight", il, t.name), std::move(ne), more_bits ? t.more_bits_type : t.type, distribution_for(t.role, n_in)});
    }
  }
  return tensors;
}

}  // namespace

const SyntheticArchitecture kSyntheticGemma3 = {"gemma3", gemma3_tensors, write_gemma3_metadata};

bool use_more_bits(int64_t layer, int64_t n_layers) { return layer < n_layers / 8 || layer >= 7 * n_layers / 8 || (layer - n_layers / 8) % 3 == 2; }

std::span<const ModelRecipe> model_recipes() { return kRecipes; }

const ModelRecipe* find_model_recipe(std::string_view name) {
  for (const ModelRecipe& r : kRecipes)
    if (r.name == name) return &r;
  return nullptr;
}

std::string model_recipe_names() {
  std::string names;
  for (const ModelRecipe& r : kRecipes) names += (names.empty() ? "" : ", ") + std::string(r.name);
  return names;
}

std::string_view recipe_architecture(const ModelRecipe& recipe) { return recipe.architecture->name; }

std::vector<SyntheticTensor> synthetic_tensors(const ModelRecipe& recipe) { return recipe.architecture->tensors(recipe.shape); }

VocabSpec synthetic_vocabulary(int64_t n_vocab) {
  if (n_vocab < kFirstByteToken + 256) throw std::logic_error("synthetic_vocabulary: a vocabulary needs at least 494 tokens");
  VocabSpec v;
  v.pieces.resize(static_cast<size_t>(n_vocab));
  v.scores.assign(static_cast<size_t>(n_vocab), 0.0f);
  v.types.assign(static_cast<size_t>(n_vocab), 0);
  for (const FixedToken& t : kGemmaFixedTokens) {
    v.pieces[t.id] = t.text;
    v.types[t.id] = t.type;
    v.scores[t.id] = kSpecialScore;
  }
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) {
    v.pieces[kFirstByteToken + b] = std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">";
    v.types[kFirstByteToken + b] = kByte;
  }
  // Made-up pieces are one character or letters after an optional "▁", so none repeats a
  // fixed or byte token's text.
  MadeUpPieces made_up;
  float score = 0.0f;
  for (size_t id = 0; id < v.pieces.size(); ++id) {
    if (v.types[id] != 0) continue;
    v.pieces[id] = made_up.next();
    v.types[id] = kNormal;
    v.scores[id] = score--;
  }
  v.bos_id = kBosId;
  v.eos_id = kEosId;
  v.unk_id = kUnkId;
  v.pad_id = kPadId;
  v.add_bos = true;  // the real file's flags
  v.add_eos = false;
  v.add_space_prefix = false;
  return v;
}

GgufWriter synthetic_model(const ModelRecipe& recipe, uint64_t seed) {
  GgufWriter w;
  w.kv("general.architecture", std::string(recipe.architecture->name));
  w.kv("general.type", std::string("model"));
  // general.name says what the file is.
  w.kv("general.name", fmt::format("{} (draftbench make-model --like {} --seed {}: random weights)", recipe.model_name, recipe.name, seed));
  recipe.architecture->write_metadata(w, recipe.shape);
  for (SyntheticTensor& t : synthetic_tensors(recipe)) {
    const uint64_t key = tensor_stream_key(seed, t.name);
    w.tensor_filled(t.name, t.type, t.ne, [type = t.type, dist = t.distribution, key](std::span<uint8_t> data) { fill_random_weights(type, dist, key, data); });
  }
  return w;
}

void write_synthetic_model(const ModelRecipe& recipe, uint64_t seed, const std::string& path) { synthetic_model(recipe, seed).write(path); }

}  // namespace draftbench
