#include "engine/model/model.h"

#include <fmt/format.h>

#include <filesystem>

#include "engine/common/error.h"
#include "engine/model/gguf_vocab.h"
#include "engine/model/hf_checkpoint.h"

namespace draftbench {

std::unique_ptr<Model> Model::load(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InputError(path, "", "model file not found (the default model is fetched by scripts/setup.sh)");
  auto m = std::make_unique<Model>();
  m->path_ = path;
  if (std::filesystem::is_directory(path)) {
    if (!is_hf_checkpoint_dir(path))
      throw InputError(path, "config.json", "missing: a model directory must be a Hugging Face checkpoint (config.json, *.safetensors, tokenizer.model)");
    HfCheckpoint checkpoint = load_hf_checkpoint(path);
    m->config_ = checkpoint.config;
    // Moving keeps every view valid: the mappings are held by shared_ptr and the owned
    // vectors' buffers do not move.
    m->weights_ = std::move(checkpoint.weights);
    m->safetensors_ = std::move(checkpoint.shards);
    const std::string tokenizer_path = (std::filesystem::path(path) / "tokenizer.model").string();
    if (!std::filesystem::exists(tokenizer_path))
      throw InputError(path, "tokenizer.model", "missing (only SentencePiece tokenizers are supported, not tokenizer.json alone)");
    m->tokenizer_.emplace(Tokenizer::from_model_file(tokenizer_path));
    if (m->tokenizer_->vocab_size() != m->config_.n_vocab)
      throw InputError(tokenizer_path, "pieces",
                       fmt::format("{} pieces but config.json has vocab_size {} (added tokens outside tokenizer.model are not supported)",
                                   m->tokenizer_->vocab_size(), m->config_.n_vocab));
    return m;
  }
  m->gguf_.emplace(GgufFile::open(path));
  m->config_ = model_config_from_gguf(*m->gguf_);
  m->weights_ = model_weights_from_gguf(*m->gguf_, m->config_);
  Tokenizer tokenizer = tokenizer_from_gguf(*m->gguf_);
  if (tokenizer.vocab_size() != m->config_.n_vocab)
    throw InputError(path, "key 'tokenizer.ggml.tokens'",
                     std::to_string(tokenizer.vocab_size()) + " tokens but token_embd has " + std::to_string(m->config_.n_vocab) + " rows");
  m->tokenizer_.emplace(std::move(tokenizer));
  return m;
}

ChatTemplate Model::chat_template() const {
  if (chat_template_) return *chat_template_;
  const std::optional<std::string> file_template = gguf_ ? gguf_->find_string("tokenizer.chat_template") : std::nullopt;
  return chat_template_for_model(config_.arch_name, file_template, path_);
}

}  // namespace draftbench
