#include "engine/model/gguf_vocab.h"

#include <fmt/format.h>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"

namespace draftbench {

VocabSpec vocab_spec_from_gguf(const GgufFile& f) {
  const std::string model = f.get_string("tokenizer.ggml.model");
  if (model != "llama")
    throw InputError(f.path(), "key 'tokenizer.ggml.model'", fmt::format("tokenizer '{}' is not supported (expected 'llama', SentencePiece)", model));
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
  auto id = [&](const char* key) -> int32_t {
    const auto value = f.find_int(key);
    if (!value) return -1;
    if (*value < 0 || static_cast<size_t>(*value) >= n)
      throw InputError(f.path(), std::string("key '") + key + "'", fmt::format("token id {} outside the vocabulary of {}", *value, n));
    return static_cast<int32_t>(*value);
  };
  v.bos_id = id("tokenizer.ggml.bos_token_id");
  v.eos_id = id("tokenizer.ggml.eos_token_id");
  v.unk_id = id("tokenizer.ggml.unknown_token_id");
  v.pad_id = id("tokenizer.ggml.padding_token_id");
  return v;
}

}  // namespace draftbench
