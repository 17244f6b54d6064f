// A loaded model: the mapped file(s), its validated config, weight views and tokenizer.
// Two sources give the same Model: a .gguf file, or a Hugging Face Llama-family
// checkpoint directory (config.json, *.safetensors, tokenizer.model; hf_checkpoint.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/gguf_file.h"
#include "engine/model/model_config.h"
#include "engine/model/model_weights.h"
#include "engine/model/safetensors_file.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"

namespace draftbench {

class Model {
 public:
  // A .gguf file, or a directory holding an HF checkpoint. Throws InputError naming the
  // file and the offending key, field or tensor.
  static std::unique_ptr<Model> load(const std::string& path);

  const std::string& path() const { return path_; }
  const ModelConfig& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const GgufFile* gguf() const { return gguf_ ? &*gguf_ : nullptr; }                // null for HF checkpoints
  const std::vector<SafetensorsFile>& safetensors() const { return safetensors_; }  // empty for GGUF

  // The chat template prompts are wrapped in: the one set with use_chat_template, else the
  // one the file's tokenizer.chat_template names (chat_template_for_model). Throws
  // InputError, naming the file, when neither gives one.
  ChatTemplate chat_template() const;
  void use_chat_template(ChatTemplate chat_template) { chat_template_ = chat_template; }

 private:
  std::string path_;
  std::optional<GgufFile> gguf_;
  std::vector<SafetensorsFile> safetensors_;  // the shards weights_ points into
  ModelConfig config_;
  ModelWeights weights_;
  std::optional<Tokenizer> tokenizer_;
  std::optional<ChatTemplate> chat_template_;
};

}  // namespace draftbench
