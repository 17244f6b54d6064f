#include "engine/model/model.h"

#include <filesystem>

#include "engine/common/error.h"
#include "engine/model/gguf_vocab.h"

namespace draftbench {

std::unique_ptr<Model> Model::load(const std::string& path) {
  if (!std::filesystem::exists(path))
    throw InputError(path, "", "model file not found (the default model is fetched by scripts/setup.sh)");
  auto m = std::make_unique<Model>();
  m->path_ = path;
  m->gguf_.emplace(GgufFile::open(path));
  m->config_ = model_config_from_gguf(*m->gguf_);
  m->weights_ = model_weights_from_gguf(*m->gguf_, m->config_);
  VocabSpec vocab = vocab_spec_from_gguf(*m->gguf_);
  if (static_cast<int64_t>(vocab.pieces.size()) != m->config_.n_vocab)
    throw InputError(path, "key 'tokenizer.ggml.tokens'",
                     std::to_string(vocab.pieces.size()) + " tokens but token_embd has " + std::to_string(m->config_.n_vocab) + " rows");
  m->tokenizer_.emplace(Tokenizer::from_vocab(vocab));
  return m;
}

}  // namespace draftbench
