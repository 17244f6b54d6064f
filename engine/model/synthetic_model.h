// Random-weight GGUF models with the architecture and tokenizer keys, tensor names, shapes
// and types of a named model (`draftbench make-model`): a machine that cannot fetch the
// real file still runs the whole model path, on the CPU or a GPU, with the real model's
// kernels and sizes.
// The weights are random (random_weights.h), scaled per role so that the forward pass
// stays finite and greedy decoding does not collapse onto one token; the vocabulary is
// made up except for the special tokens, which keep their real texts (and, for Gemma,
// their real ids). The same recipe and seed always give the same bytes.
// Each recipe names its architecture (synthetic_architecture.h): Gemma 3's tensors,
// metadata and vocabulary are in synthetic_model.cpp, Qwen 2's in synthetic_qwen2.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/gguf_writer.h"
#include "engine/model/random_weights.h"
#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/tokenizer.h"

namespace draftbench {

// What a recipe writes under <architecture>.*. Qwen 2 files have no key_length, so a
// qwen2 recipe's head_dim must be n_embd / n_heads, and it has no sliding window.
struct RecipeShape {
  int64_t n_vocab = 0, n_embd = 0, n_layers = 0, n_ff = 0;
  int64_t n_heads = 0, n_kv_heads = 0, head_dim = 0;
  int64_t context_length = 0, sliding_window = 0;
  int64_t sliding_window_pattern = 0;  // 0: no key, as in the real files (the engine's default of 6 applies)
  float rms_eps = 1e-6f, rope_base = 10000.0f;
};

struct SyntheticArchitecture;  // synthetic_architecture.h

struct ModelRecipe {
  std::string_view name;         // --like
  std::string_view description;  // one line, for --list
  std::string_view model_name;   // general.name, before " (draftbench make-model ...)"
  const SyntheticArchitecture* architecture;
  RecipeShape shape;
};

struct SyntheticTensor {
  std::string name;
  std::vector<int64_t> ne;  // GGUF order: ne[0] is the row length
  GgmlType type = GgmlType::F32;
  WeightDistribution distribution;
};

std::span<const ModelRecipe> model_recipes();
const ModelRecipe* find_model_recipe(std::string_view name);  // null if there is none
std::string model_recipe_names();                             // "a, b, c": for error messages

// Every tensor of the recipe's file, in the file's order.
std::vector<SyntheticTensor> synthetic_tensors(const ModelRecipe& recipe);
// general.architecture of the recipe's file ("gemma3", "qwen2").
std::string_view recipe_architecture(const ModelRecipe& recipe);
// The made-up vocabulary of `n_vocab` pieces (tokenizer.ggml.*): Gemma's special tokens
// and its 256 byte tokens at their real ids, every other id a distinct made-up piece.
VocabSpec synthetic_vocabulary(int64_t n_vocab);
// Qwen 2's byte-level BPE vocabulary in miniature (synthetic_qwen2.cpp): the 256
// byte-level symbols at ids 0-255 in the real file's order, made-up merged pieces with a
// merges list that builds each of them, then Qwen's 22 special tokens in their real
// order and types, then unused "[PADn]" tokens as the real file ends with.
BpeVocabSpec synthetic_qwen2_vocabulary(int64_t n_vocab);

// The whole file: metadata, vocabulary, and tensors whose bytes are generated when the
// writer lays the file out.
GgufWriter synthetic_model(const ModelRecipe& recipe, uint64_t seed);
// synthetic_model(recipe, seed).write(path): written under a temporary name and renamed.
void write_synthetic_model(const ModelRecipe& recipe, uint64_t seed, const std::string& path);

}  // namespace draftbench
