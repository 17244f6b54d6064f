// Fixtures for the trainer tests (torch-free): a tiny Gemma 3 GGUF (the Llama one is in
// tests/support/tiny_llama.h) and small `draftbench distill` directories with a learnable
// pattern.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/model.h"
#include "engine/train/drafter_training.h"
#include "engine/train/torch/torch_backend.h"
#include "tests/support/temp_dir.h"

// Sanitizer builds cannot load libtorch's module (torch_backend.h): a test that needs it
// reports itself skipped there and returns.
#define SKIP_WITHOUT_TORCH()                           \
  do {                                                 \
    std::string why_;                                  \
    if (!draftbench::torch_backend_available(&why_)) { \
      WARN("skipped: " << why_);                       \
      return;                                          \
    }                                                  \
  } while (0)

namespace draftbench::test {

// A random Gemma 3 model in F32 with QK-norm, post-norms, head_dim != n_embd / n_heads and a
// final logit soft-cap, so every Gemma-only branch of the EAGLE layer is exercised.
struct TinyGemmaShape {
  int64_t hidden = 64, layers = 2, heads = 4, kv_heads = 2, head_dim = 24, ff = 96, context = 256;
  float rms_eps = 1e-6f, rope_base = 1000000.0f, rope_base_local = 10000.0f, softcap = 30.0f;
  uint64_t seed = 3;
};
void write_tiny_gemma_gguf(const std::string& path, const TinyGemmaShape& shape = {});

// Sequences that walk one fixed random cycle of `cycle` tokens, so every label is a function
// of the token before it; the first `prompt` tokens of each are untrained, the rest form the
// response. Hidden states are the target's own (the engine's forward); continuations are the
// sequence itself (a greedy response), -1 past its end.
struct SyntheticCorpus {
  int n_sequences = 40, length = 32, prompt = 6, cycle = 24, continuation_length = 6, shards = 2;
  uint64_t seed = 11;
  std::string input_sha256;  // non-empty: the manifest lists one input file with this checksum
};
// Writes dir/manifest.json and dir/shard-0000k.safetensors.
void write_synthetic_distill(const Model& target, const std::string& target_path, const std::string& dir, const SyntheticCorpus& spec = {});

// A tiny Llama target, synthetic distill data from it in dir/data, and training options
// that learn the data's pattern in a few seconds (one thread, f32 export, a log entry per
// step).
struct TrainSetup {
  TempDir dir;
  std::unique_ptr<Model> model;
  std::string model_path;
  explicit TrainSetup(const std::string& name, const SyntheticCorpus& corpus = {});
  TrainOptions options(const std::string& drafter, const std::string& out) const;
};

std::string file_bytes(const std::string& path);
nlohmann::json read_json(const std::string& path);

}  // namespace draftbench::test
