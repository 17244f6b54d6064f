// Hugging Face Llama-family checkpoints (Vicuna, Llama 2, Llama 3 with GQA, Mistral
// without sliding windows): a directory with
//   config.json                     hyperparameters (LlamaConfig)
//   model.safetensors               the weights, or shards listed by
//   model.safetensors.index.json    {"weight_map": {tensor name: shard file name}}
//   tokenizer.model                 SentencePiece (loaded by Model, not here)
//
// The result is the same ModelConfig/ModelWeights the GGUF loader builds, with two
// differences that the forward pass reads from the config:
//   - RopeStyle::neox (rotate_half): HF q/k weights are not permuted the way llama.cpp's
//     converter permutes them for GGUF (which is why GGUF llama uses RopeStyle::norm);
//   - weights stay F32/F16/BF16 as stored; an HF Linear weight [out, in] row-major is
//     exactly WeightMatrix{n_in = in, n_out = out}, so nothing is copied. Tensors whose
//     bytes are not aligned to their element size, and norm vectors not in F32, are
//     copied into weights.owned_vectors.
#pragma once

#include <string>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/model/model_weights.h"
#include "engine/model/safetensors_file.h"

namespace draftbench {

struct HfCheckpoint {
  ModelConfig config;
  ModelWeights weights;                 // views into `shards` (keep them alive together)
  std::vector<SafetensorsFile> shards;  // each mapped file once
};

// A directory holding config.json: what Model::load treats as an HF checkpoint.
bool is_hf_checkpoint_dir(const std::string& path);

// Reads and validates `config_path` (a config.json). Throws InputError naming the file and
// field: missing or mistyped fields, a model_type other than llama (or mistral without a
// sliding window), rope_scaling, biases, or an activation other than silu.
ModelConfig model_config_from_hf_config(const std::string& config_path);

// Config, then every tensor bound with its shape checked against the config. Throws
// InputError naming the file and tensor for a missing, misshapen, duplicated or
// unexpected tensor, a non-float dtype, or a broken index.
HfCheckpoint load_hf_checkpoint(const std::string& dir);

}  // namespace draftbench
