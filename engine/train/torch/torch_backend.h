// The boundary between the trainer (engine side, torch-free) and libtorch.
//
// Why a boundary at all: Debian's libsentencepiece (the engine's tokenizer) exports its own
// bundled protobuf-lite 3.14, and libtorch loads libprotobuf 3.21; in one symbol namespace
// one of them binds to the other's functions and the process dies at start-up (or on the
// version check). So libtorch lives in a module of its own, `libdraftbench_torch.so`,
// opened with RTLD_LOCAL | RTLD_DEEPBIND: it and its dependencies bind to their own
// protobuf, the engine keeps sentencepiece's. A side effect worth having: `draftbench` does
// not load libtorch (hundreds of MB) for commands other than `train`.
//
// Everything that crosses is plain data: the engine computes embeddings, draft-vocabulary
// rows and labels (it owns the target model); the module owns the drafter's parameters,
// the optimiser and the autograd graph. Only engine/train/torch/*.cpp files in the module
// include torch headers.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/train/torch/training_log.h"

namespace draftbench {

// The frozen target as the module needs it.
struct TargetRows {
  int64_t n_embd = 0, n_draft_vocab = 0;
  std::vector<float> rows;        // [n_draft_vocab][n_embd]: LM-head rows of the draft vocabulary, dequantised
  float final_logit_softcap = 0;  // the target's own (EAGLE's teacher distribution); drafters apply none
};

// EAGLE's draft layer: the target's block type and sizes (eagle.cpp draft_config).
struct EagleLayerSpec {
  bool gemma = false;  // QK-norm, post-attention and post-feed-forward norms, GeGLU-tanh (else Llama: SwiGLU)
  int64_t n_heads = 0, n_kv_heads = 0, head_dim = 0, n_ff = 0;
  float rope_base = 10000.0f, rms_eps = 1e-6f;
  bool rope_neox = true;        // pairs (j, j + d/2); else (2j, 2j + 1)
  bool previous_token = false;  // fc also reads embed(x_i): [H][3H] (eagle.h, the copy input)
};

struct SessionSpec {
  std::string kind;    // redrafter | medusa | eagle
  int64_t steps = 1;   // ReDrafter draft steps, Medusa heads (EAGLE: 1)
  int64_t layers = 0;  // residual blocks (ReDrafter, Medusa)
  EagleLayerSpec eagle;
  double eagle_noise = 0.0;
  // Optimiser: AdamW.
  double beta1 = 0.9, beta2 = 0.999, weight_decay = 0.0;
  double grad_clip = 0.0;
  bool clip_by_value = false;  // else by global norm
  uint64_t seed = 0;
  int threads = 1;
  bool bf16_head = false;  // TrainOptions::head_precision == "bf16"
};

// One batch, every input precomputed by the engine.
//   ReDrafter / Medusa: `hidden` [B][H]; `input_embeddings` [B][T][H] (ReDrafter: step i
//     reads the root's, then label i-1's embedding); `targets` [B][T] draft-vocabulary
//     indices, -1 = ignored (no label, or outside the draft vocabulary).
//   EAGLE: sequences end to end (`lengths` pairs each): `hidden` = f_i [n][H],
//     `input_embeddings` = embed(x_{i+1}) [n][H], `target_features` = f_{i+1} [n][H],
//     `trained` [n] (loss rows); with the copy input also `previous_embeddings` =
//     embed(x_i) [n][H].
struct BackendBatch {
  int64_t size = 0, steps = 0;
  std::vector<float> hidden, input_embeddings, target_features, previous_embeddings;
  std::vector<int32_t> targets;
  std::vector<uint8_t> trained;
  std::vector<int64_t> lengths;
};

struct BatchReport {
  double loss = 0;  // the minimised scalar
  std::vector<StepTally> steps;
  std::map<std::string, double> extra_sums;
  double forward_seconds = 0, backward_seconds = 0, optimizer_seconds = 0;  // where a train step's time went
};

struct NamedFloats {
  std::string name;  // the engine's tensor name
  std::vector<int64_t> shape;
  std::vector<float> values;
};

// What a forward returns (tests compare it with the engine's drafters).
//   ReDrafter: logits [B][T][Vd]; Medusa: logits [K][B][Vd]; EAGLE: logits [n][Vd] of the
//   predicted features, and those features [n][H].
struct ForwardOutput {
  std::vector<float> logits, features;
};

class TorchSession {
 public:
  virtual ~TorchSession() = default;
  virtual int64_t n_steps() const = 0;
  virtual BatchReport train_step(const BackendBatch& batch, double lr) = 0;
  virtual BatchReport evaluate(const BackendBatch& batch) = 0;
  virtual ForwardOutput forward(const BackendBatch& batch) = 0;
  // drafter.json's drafter fields (the format header is added by the caller).
  virtual nlohmann::json config() const = 0;
  virtual std::vector<NamedFloats> weights() const = 0;
  // Every parameter random, none of the identity starts (tests).
  virtual void randomize(uint64_t seed) = 0;
  // The BLAS library torch's products run on, as loaded ("" when not found).
  virtual std::string blas_library() const = 0;
  // Everything a resumed run needs to continue bit for bit (train_checkpoint.h): the
  // drafter's parameters, AdamW's moments and step counts, torch's CPU generator (EAGLE's
  // noise), as one opaque torch archive. load_state replaces them with what save_state wrote
  // for a session of the same spec; false and `error` set when the bytes do not fit it.
  virtual std::string save_state() const = 0;
  virtual bool load_state(const std::string& bytes, std::string* error) = 0;
};

// Opens libdraftbench_torch.so (the path in DRAFTBENCH_TORCH_MODULE, else beside the
// executable, else where the build put it) and starts a session. Throws InputError when the
// module cannot be loaded (naming the path and dlerror) or the spec is invalid.
std::unique_ptr<TorchSession> open_torch_session(const SessionSpec& spec, const TargetRows& target);
// Whether the module loads here (not in sanitizer builds); `why` gets the reason if not.
bool torch_backend_available(std::string* why = nullptr);

// The module's entry point (extern "C", versioned by name).
inline constexpr const char* kTorchSessionEntry = "draftbench_torch_session_v2";
using TorchSessionFactory = TorchSession* (*)(const SessionSpec* spec, const TargetRows* target, std::string* error);

}  // namespace draftbench
