// A loaded model: the mapped file, its validated config, weight views and tokenizer.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/model/gguf_file.h"
#include "engine/model/model_config.h"
#include "engine/model/model_weights.h"
#include "engine/tokenizer/tokenizer.h"

namespace draftbench {

class Model {
 public:
  // A .gguf file. Throws InputError naming the file and the offending key or tensor.
  static std::unique_ptr<Model> load(const std::string& path);

  const std::string& path() const { return path_; }
  const ModelConfig& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const GgufFile* gguf() const { return gguf_ ? &*gguf_ : nullptr; }

 private:
  std::string path_;
  std::optional<GgufFile> gguf_;
  ModelConfig config_;
  ModelWeights weights_;
  std::optional<Tokenizer> tokenizer_;
};

}  // namespace draftbench
