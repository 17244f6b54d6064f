// Qwen 2 for `draftbench make-model` (synthetic_architecture.h): the tensors, metadata
// keys and byte-level BPE vocabulary of Qwen2.5-Coder-1.5B-Instruct Q4_K_M
// (models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf), at a recipe's shape.
#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/model/synthetic_architecture.h"

namespace draftbench {
namespace {

// How a tensor's random values are scaled. Qwen 2 has no q/k norms and no post-norms, and
// its LM head (output.weight) is its own matrix, so nothing rescales a layer's output and
// there is no tied-embedding bonus for repeating the current token (which made the Gemma
// recipes collapse). Fan-in scaling keeps every projection's output near the RMS of its
// normalised input; the embedding's unit RMS makes the current token about as loud as
// one layer's attention or FFN output, so the next token depends on both the token and
// its context. The q/k biases are of the order of the projections' outputs, as Qwen's
// are, and only shift attention scores. The v bias goes through attention unaveraged, so
// it adds the same vector at every position: at 0.5 it outweighed the token-dependent
// part and greedy decoding collapsed (seed 1, "The capital of France is": 9 distinct
// tokens in 32, ending in one repeated token); at 0.05 seeds 1-8 gave 11-32 distinct
// tokens on three prompts. The final norm's weight sets the logits' standard deviation.
enum class WeightRole { embedding, projection, qk_bias, v_bias, norm, output_norm };

constexpr float kEmbeddingRms = 1.0f;
constexpr float kQkBiasScale = 0.5f;  // q/k biases' stddev relative to their projection's output
constexpr float kVBiasScale = 0.05f;  // v biases' likewise
constexpr float kLogitSpread = 2.0f;  // logits' stddev
constexpr float kNormJitter = 0.1f;   // norm weights' stddev relative to their mean

WeightDistribution distribution_for(WeightRole role, int64_t n_in) {
  const auto around = [](float mean) { return WeightDistribution{mean, kNormJitter * mean}; };
  switch (role) {
    case WeightRole::embedding: return {0.0f, kEmbeddingRms};
    case WeightRole::projection: return {0.0f, 1.0f / std::sqrt(static_cast<float>(n_in))};
    case WeightRole::qk_bias: return {0.0f, kQkBiasScale};
    case WeightRole::v_bias: return {0.0f, kVBiasScale};
    case WeightRole::norm: return around(1.0f);
    case WeightRole::output_norm: return around(kLogitSpread);
  }
  return {};
}

// A layer's tensors in the real file's order, with the types llama.cpp's Q4_K_M gives
// them for Qwen 2.5 1.5B (its rows, 1536 and 8960 values, are multiples of 256, so every
// matrix is a K-quant): Q4_K, and Q6_K for attn_v and ffn_down in the layers
// use_more_bits() picks; norms and biases F32. A recipe's row lengths must be multiples
// of 256 too, so the same quantised products run.
enum class Dim { none, embd, q_dim, kv_dim, ff };

int64_t dim_size(Dim dim, const RecipeShape& s) {
  switch (dim) {
    case Dim::none: return 0;
    case Dim::embd: return s.n_embd;
    case Dim::q_dim: return s.n_heads * s.head_dim;
    case Dim::kv_dim: return s.n_kv_heads * s.head_dim;
    case Dim::ff: return s.n_ff;
  }
  return 0;
}

struct LayerTensor {
  std::string_view name;  // with its ".weight" or ".bias"
  Dim in, out;            // out == none: a vector of `in` values
  GgmlType type, more_bits_type;
  WeightRole role;
};
constexpr GgmlType kF32 = GgmlType::F32, kQ4K = GgmlType::Q4_K, kQ6K = GgmlType::Q6_K;
constexpr LayerTensor kQwen2LayerTensors[] = {
    {"attn_norm.weight", Dim::embd, Dim::none, kF32, kF32, WeightRole::norm},
    {"ffn_down.weight", Dim::ff, Dim::embd, kQ4K, kQ6K, WeightRole::projection},
    {"ffn_gate.weight", Dim::embd, Dim::ff, kQ4K, kQ4K, WeightRole::projection},
    {"ffn_up.weight", Dim::embd, Dim::ff, kQ4K, kQ4K, WeightRole::projection},
    {"ffn_norm.weight", Dim::embd, Dim::none, kF32, kF32, WeightRole::norm},
    {"attn_k.bias", Dim::kv_dim, Dim::none, kF32, kF32, WeightRole::qk_bias},
    {"attn_k.weight", Dim::embd, Dim::kv_dim, kQ4K, kQ4K, WeightRole::projection},
    {"attn_output.weight", Dim::q_dim, Dim::embd, kQ4K, kQ4K, WeightRole::projection},
    {"attn_q.bias", Dim::q_dim, Dim::none, kF32, kF32, WeightRole::qk_bias},
    {"attn_q.weight", Dim::embd, Dim::q_dim, kQ4K, kQ4K, WeightRole::projection},
    {"attn_v.bias", Dim::kv_dim, Dim::none, kF32, kF32, WeightRole::v_bias},
    {"attn_v.weight", Dim::embd, Dim::kv_dim, kQ4K, kQ6K, WeightRole::projection},
};

// The real file's tensors: output.weight (Q6_K, not tied to the embedding) and
// token_embd.weight (Q4_K) first, the layers, output_norm.weight last.
std::vector<SyntheticTensor> qwen2_tensors(const RecipeShape& s) {
  if (s.n_heads * s.head_dim != s.n_embd) throw std::logic_error("qwen2 recipe: head_dim must be n_embd / n_heads (the file has no key_length)");
  std::vector<SyntheticTensor> tensors;
  tensors.push_back({"output.weight", {s.n_embd, s.n_vocab}, kQ6K, distribution_for(WeightRole::projection, s.n_embd)});
  tensors.push_back({"token_embd.weight", {s.n_embd, s.n_vocab}, kQ4K, distribution_for(WeightRole::embedding, s.n_embd)});
  for (int64_t il = 0; il < s.n_layers; ++il) {
    const bool more_bits = use_more_bits(il, s.n_layers);
    for (const LayerTensor& t : kQwen2LayerTensors) {
      const int64_t n_in = dim_size(t.in, s);
      std::vector<int64_t> ne = {n_in};
      if (t.out != Dim::none) ne.push_back(dim_size(t.out, s));
      // A bias's scale is relative to its projection's output, whose RMS is about 1.
      tensors.push_back({fmt::format("blk.{}.{}", il, t.name), std::move(ne), more_bits ? t.more_bits_type : t.type, distribution_for(t.role, n_in)});
    }
  }
  tensors.push_back({"output_norm.weight", {s.n_embd}, kF32, distribution_for(WeightRole::output_norm, s.n_embd)});
  return tensors;
}

// Qwen 2.5's added tokens after its ordinary vocabulary, in the real order and types
// (3 control, 4 user-defined). The engine finds them by text: ChatML's markers, and
// <|endoftext|> and <|im_end|> as stop tokens.
constexpr int32_t kNormal = 1, kControl = 3, kUserDefined = 4, kUnused = 5;
struct AddedToken {
  std::string_view text;
  int32_t type;
};
constexpr AddedToken kQwen2AddedTokens[] = {
    {"<|endoftext|>", kControl},      {"<|im_start|>", kControl},     {"<|im_end|>", kControl},      {"<|object_ref_start|>", kControl},
    {"<|object_ref_end|>", kControl}, {"<|box_start|>", kControl},    {"<|box_end|>", kControl},     {"<|quad_start|>", kControl},
    {"<|quad_end|>", kControl},       {"<|vision_start|>", kControl}, {"<|vision_end|>", kControl},  {"<|vision_pad|>", kControl},
    {"<|image_pad|>", kControl},      {"<|video_pad|>", kControl},    {"<tool_call>", kUserDefined}, {"</tool_call>", kUserDefined},
    {"<|fim_prefix|>", kControl},     {"<|fim_middle|>", kControl},   {"<|fim_suffix|>", kControl},  {"<|fim_pad|>", kControl},
    {"<|repo_name|>", kControl},      {"<|file_sep|>", kControl},
};
constexpr int kAddedEndOfText = 0, kAddedImEnd = 2;  // indexes into kQwen2AddedTokens
constexpr int64_t kUnusedTokens = 8;                 // "[PADn]" rows after the added tokens

// The 256 bytes in GPT-2's bytes_to_unicode() order, which is the order of the real
// vocabulary's first 256 tokens: the printable bytes ('!'-'~', '¡'-'¬', '®'-'ÿ'), then
// the others in byte order.
std::vector<uint8_t> bytes_in_vocabulary_order() {
  const auto printable = [](int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); };
  std::vector<uint8_t> order;
  for (int pass = 0; pass < 2; ++pass)
    for (int b = 0; b < 256; ++b)
      if (printable(b) == (pass == 0)) order.push_back(static_cast<uint8_t>(b));
  return order;
}

// Made-up merged pieces in order: words over a-z by length and alphabetically, each as
// "Ġword" (with its leading space) and, from two letters on, "word". Each piece is a
// shorter piece (an earlier one, or a byte symbol) plus one letter, and that split is its
// merge, so the merges list is consistent with the vocabulary and BPE can build every
// piece.
class MadeUpMerges {
 public:
  // The next piece's merge: {left, right}; the piece is left + right.
  std::pair<std::string, std::string> next() {
    const std::string last(1, word_.back()), stem = word_.substr(0, word_.size() - 1);
    if (bare_pending_) {
      bare_pending_ = false;
      advance();
      return {stem, last};
    }
    bare_pending_ = word_.size() > 1;
    std::pair<std::string, std::string> merge{std::string(kSpace) + stem, last};
    if (!bare_pending_) advance();
    return merge;
  }

 private:
  static constexpr std::string_view kSpace = "\xC4\xA0";  // "Ġ": the byte-level symbol of ' '
  void advance() {                                        // "az" -> "ba", "zz" -> "aaa"
    for (size_t i = word_.size(); i-- > 0;) {
      if (word_[i] != 'z') {
        ++word_[i];
        return;
      }
      word_[i] = 'a';
    }
    word_.push_back('a');
  }
  std::string word_ = "a";
  bool bare_pending_ = false;  // "Ġ" + word_ given, word_ alone next
};

// The real file's tokenizer.chat_template, verbatim: the engine recognises Qwen 2.5's
// ChatML template (and its default system prompt) from this text.
constexpr std::string_view kQwen2ChatTemplate = R"jinja(
{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
)jinja";

void write_qwen2_vocabulary(GgufWriter& w, const BpeVocabSpec& v) {
  w.kv("tokenizer.ggml.model", std::string("gpt2"));
  w.kv("tokenizer.ggml.pre", v.pre);
  w.kv_strings("tokenizer.ggml.tokens", v.pieces);
  w.kv_ints("tokenizer.ggml.token_type", v.types);
  std::vector<std::string> merges;
  merges.reserve(v.merges.size());
  for (const auto& [left, right] : v.merges) merges.push_back(left + " " + right);
  w.kv_strings("tokenizer.ggml.merges", merges);
  w.kv("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(v.eos_id));
  w.kv("tokenizer.ggml.padding_token_id", static_cast<uint32_t>(v.pad_id));
  w.kv("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(v.bos_id));
  w.kv("tokenizer.ggml.add_bos_token", v.add_bos);
  // The raw literal starts with a newline after its delimiter, which is not the file's.
  w.kv("tokenizer.chat_template", std::string(kQwen2ChatTemplate.substr(1)));
}

// The keys after general.name in the real file's order (it has no key_length, no
// rope.dimension_count and no unknown_token_id; the descriptive general.* keys are left
// out).
void write_qwen2_metadata(GgufWriter& w, const RecipeShape& s) {
  const std::string a = "qwen2";
  const auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
  w.kv(a + ".block_count", u32(s.n_layers));
  w.kv(a + ".context_length", u32(s.context_length));
  w.kv(a + ".embedding_length", u32(s.n_embd));
  w.kv(a + ".feed_forward_length", u32(s.n_ff));
  w.kv(a + ".attention.head_count", u32(s.n_heads));
  w.kv(a + ".attention.head_count_kv", u32(s.n_kv_heads));
  w.kv(a + ".rope.freq_base", s.rope_base);
  w.kv(a + ".attention.layer_norm_rms_epsilon", s.rms_eps);
  w.kv("general.file_type", kFileTypeQ4_K_M);
  write_qwen2_vocabulary(w, synthetic_qwen2_vocabulary(s.n_vocab));
  w.kv("general.quantization_version", uint32_t{2});
}

}  // namespace

const SyntheticArchitecture kSyntheticQwen2 = {"qwen2", qwen2_tensors, write_qwen2_metadata};

BpeVocabSpec synthetic_qwen2_vocabulary(int64_t n_vocab) {
  const int64_t n_added = std::size(kQwen2AddedTokens), n_merged = n_vocab - 256 - n_added - kUnusedTokens;
  if (n_merged < 0) throw std::logic_error("synthetic_qwen2_vocabulary: a vocabulary needs at least 286 tokens");
  BpeVocabSpec v;
  v.pieces.reserve(static_cast<size_t>(n_vocab));
  for (uint8_t b : bytes_in_vocabulary_order()) v.pieces.emplace_back(byte_to_unicode(b));
  MadeUpMerges made_up;
  for (int64_t i = 0; i < n_merged; ++i) {
    auto merge = made_up.next();
    v.pieces.push_back(merge.first + merge.second);
    v.merges.push_back(std::move(merge));
  }
  v.types.assign(v.pieces.size(), kNormal);
  const auto first_added = static_cast<int32_t>(v.pieces.size());
  for (const AddedToken& t : kQwen2AddedTokens) {
    v.pieces.emplace_back(t.text);
    v.types.push_back(t.type);
  }
  while (static_cast<int64_t>(v.pieces.size()) < n_vocab) {
    v.pieces.push_back(fmt::format("[PAD{}]", v.pieces.size()));
    v.types.push_back(kUnused);
  }
  v.pre = "qwen2";
  v.bos_id = v.pad_id = first_added + kAddedEndOfText;  // as the real file sets them
  v.eos_id = first_added + kAddedImEnd;
  v.add_bos = false;
  return v;
}

}  // namespace draftbench
