#include "engine/model/gguf_vocab.h"

#include <fmt/format.h>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"

namespace draftbench {
namespace {

constexpr const char* kModelKey = "tokenizer.ggml.model";

// A special token id, or -1 when the key is absent. Throws for an id outside the vocabulary.
int32_t token_id(const GgufFile& f, const char* key, size_t n) {
  const auto value = f.find_int(key);
  if (!value) return -1;
  if (*value < 0 || static_cast<size_t>(*value) >= n)
    throw InputError(f.path(), std::string("key '") + key + "'", fmt::format("token id {} outside the vocabulary of {}", *value, n));
  return static_cast<int32_t>(*value);
}

void require_model(const GgufFile& f, std::string_view expected, std::string_view what) {
  const std::string model = f.get_string(kModelKey);
  if (model != expected)
    throw InputError(f.path(), fmt::format("key '{}'", kModelKey), fmt::format("tokenizer '{}' is not {} (expected '{}')", model, what, expected));
}

// The special token ids both vocabulary kinds read (absent: -1).
template <class Spec>
void read_special_ids(const GgufFile& f, size_t n, Spec& v) {
  v.bos_id = token_id(f, "tokenizer.ggml.bos_token_id", n);
  v.eos_id = token_id(f, "tokenizer.ggml.eos_token_id", n);
  v.unk_id = token_id(f, "tokenizer.ggml.unknown_token_id", n);
  v.pad_id = token_id(f, "tokenizer.ggml.padding_token_id", n);
  v.eot_id = token_id(f, "tokenizer.ggml.eot_token_id", n);
}

}  // namespace

VocabSpec vocab_spec_from_gguf(const GgufFile& f) {
  require_model(f, "llama", "SentencePiece");
  VocabSpec v;
  v.pieces = f.get_string_array("tokenizer.ggml.tokens");
  const size_t n = v.pieces.size();
  for (double s : f.get_float_array("tokenizer.ggml.scores")) v.scores.push_back(static_cast<float>(s));
  for (int64_t t : f.get_int_array("tokenizer.ggml.token_type")) v.types.push_back(static_cast<int32_t>(t));
  if (v.scores.size() != n || v.types.size() != n)
    throw InputError(f.path(), "key 'tokenizer.ggml.scores'", fmt::format("{} scores and {} types for {} tokens", v.scores.size(), v.types.size(), n));
  v.add_space_prefix = f.get_bool("tokenizer.ggml.add_space_prefix", true);
  v.add_bos = f.get_bool("tokenizer.ggml.add_bos_token", true);
  v.add_eos = f.get_bool("tokenizer.ggml.add_eos_token", false);
  read_special_ids(f, n, v);
  return v;
}

BpeVocabSpec bpe_vocab_spec_from_gguf(const GgufFile& f) {
  require_model(f, "gpt2", "byte-level BPE");
  BpeVocabSpec v;
  v.pieces = f.get_string_array("tokenizer.ggml.tokens");
  const size_t n = v.pieces.size();
  for (int64_t t : f.get_int_array("tokenizer.ggml.token_type")) v.types.push_back(static_cast<int32_t>(t));
  if (v.types.size() != n) throw InputError(f.path(), "key 'tokenizer.ggml.token_type'", fmt::format("{} types for {} tokens", v.types.size(), n));
  const std::vector<std::string> merges = f.get_string_array("tokenizer.ggml.merges");
  v.merges.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) v.merges.push_back(parse_merge_line(merges[i], i, f.path(), "key 'tokenizer.ggml.merges'"));
  // llama.cpp's default for a gpt2 vocabulary without the key.
  v.pre = f.find_string("tokenizer.ggml.pre").value_or("default");
  // GPT-2-style vocabularies add no BOS unless the file says so (llama.cpp's default).
  v.add_bos = f.get_bool("tokenizer.ggml.add_bos_token", false);
  v.add_eos = f.get_bool("tokenizer.ggml.add_eos_token", false);
  read_special_ids(f, n, v);
  return v;
}

Tokenizer tokenizer_from_gguf(const GgufFile& f) {
  const std::string model = f.get_string(kModelKey);
  if (model == "llama") return Tokenizer::from_vocab(vocab_spec_from_gguf(f), f.path());
  if (model == "gpt2") return Tokenizer::from_bpe_vocab(bpe_vocab_spec_from_gguf(f), f.path());
  throw InputError(f.path(), fmt::format("key '{}'", kModelKey),
                   fmt::format("tokenizer '{}' is not supported (expected 'llama', SentencePiece, or 'gpt2', byte-level BPE)", model));
}

}  // namespace draftbench
