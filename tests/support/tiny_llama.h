// A tiny random Llama model that tests write out twice: as a Hugging Face checkpoint
// directory and as the GGUF file llama.cpp's converter would make from it. Loading both
// must give the same model, which checks the safetensors loader, RoPE styles and the
// converter's q/k permutation against each other.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/tokenizer/sentencepiece_model_proto.h"
#include "kernels/quant/ggml_type.h"

namespace draftbench {
class GgufWriter;
}

namespace draftbench::test {

struct TinyLlamaShape {
  int64_t hidden = 64, layers = 2, heads = 4, kv_heads = 2, head_dim = 16, ff = 128, context = 256;
  float rms_eps = 1e-5f, rope_theta = 10000.0f;
  bool tied_embeddings = false;
  bool qkv_bias = false;  // qwen2: self_attn.{q,k,v}_proj.bias, random
  uint64_t seed = 1;
};

struct NamedTensor {
  std::string name;            // the HF name
  std::vector<int64_t> shape;  // HF (row-major) shape
  std::vector<float> values;
};

struct TinyLlama {
  TinyLlamaShape shape;
  SentencePieceModel tokenizer;      // byte fallback BPE, about 300 pieces
  std::vector<NamedTensor> tensors;  // HF names and layout, in checkpoint order
  int64_t vocab() const { return static_cast<int64_t>(tokenizer.pieces.size()); }
  NamedTensor& tensor(const std::string& name);  // throws std::out_of_range
};

TinyLlama make_tiny_llama(const TinyLlamaShape& shape = {});
// Every value rounded to what `type` can hold, so that a file of `type` and an F32 file
// of the result hold the same numbers.
TinyLlama rounded_to(const TinyLlama& model, GgmlType type);

// config.json text for the model.
std::string hf_config_json(const TinyLlama& model);

struct HfWriteOptions {
  GgmlType dtype = GgmlType::F32;
  int shards = 1;  // > 1: model-0000k-of-0000n.safetensors plus model.safetensors.index.json
  bool write_tokenizer = true;
  // Unpadded header with data starting at an odd offset, as no current writer makes it:
  // every tensor's bytes are misaligned for its element type.
  bool misaligned_data = false;
};
// Creates `dir` if needed and writes config.json, the safetensors file(s), tokenizer.model.
void write_hf_checkpoint(const TinyLlama& model, const std::string& dir, const HfWriteOptions& options = {});

// The GGUF file llama.cpp's convert_hf_to_gguf.py writes for the model: llama.* keys,
// tokenizer.ggml.* from the same vocabulary, blk.N.* names, q/k rows permuted for
// interleaved RoPE pairs, matrices in `matrix_type` (F32, F16, BF16 or Q8_0) except those
// whose HF name ends in a key of `types_by_suffix` ("mlp.up_proj.weight": F16), and norm
// vectors in F32.
void write_llama_gguf(const TinyLlama& model, const std::string& path, GgmlType matrix_type = GgmlType::F32,
                      const std::map<std::string, GgmlType>& types_by_suffix = {});

// The GGUF file llama.cpp's converter writes for a Qwen 2 model of the same tensors:
// qwen2.* keys, q/k rows as they are (Qwen 2 pairs RoPE dimensions rotate-half), biases
// in F32 (make the model with qkv_bias). Its tokenizer is the SentencePiece vocabulary:
// the forward pass, not the tokenizer, is what the tiny qwen2 tests check.
void write_qwen2_gguf(const TinyLlama& model, const std::string& path, GgmlType matrix_type = GgmlType::F32);

// Logits of every position of `tokens`, [n][n_vocab], from a plain float64 forward pass over
// the model's HF tensors (rotate-half RoPE, GQA, biases where present, SwiGLU): the
// reference the engine's pass over the GGUF is compared with.
std::vector<double> naive_forward_logits(const TinyLlama& model, const std::vector<int32_t>& tokens);

// The tokenizer.ggml.* keys of a SentencePiece vocabulary, as llama.cpp's converter writes
// them (every tiny GGUF the tests write shares its vocabulary this way).
void write_sentencepiece_vocab(GgufWriter& w, const SentencePieceModel& vocab);

// llama.cpp's permute(): rows of each head reordered from (half, pair) to (pair, half),
// i.e. new row h*d + 2j + s = old row h*d + s*d/2 + j. `weights` is [n_head * d][n_in].
std::vector<float> permute_for_interleaved_rope(const std::vector<float>& weights, int64_t n_head, int64_t n_in);

}  // namespace draftbench::test
