// A drafter's weights on disk: a directory with a JSON config beside `model.safetensors`
// (or shards with `model.safetensors.index.json`).
//
// Two kinds of directory load:
//   - draftbench's own: `drafter.json` ({"format": "draftbench-drafter", "version": 1,
//     "drafter": <kind>, ...the kind's config_keys (drafter_registry.h)});
//   - the public reference layouts, for GPU users who bring them: the reference's own
//     `config.json` beside the safetensors conversion of its checkpoint (Medusa's and
//     EAGLE's public files are PyTorch pickles: convert them with safetensors' torch API).
// Tensor names are the references' in both cases (see each drafter's header).
//
// The optional draft vocabulary (engine/DESIGN.md §6) is the I32/I64 tensor `draft_vocab`:
// [n_draft_vocab] distinct target token ids; row i of a draft output layer is token
// draft_vocab[i].
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/safetensors_checkpoint.h"
#include "engine/model/safetensors_writer.h"

namespace draftbench {

inline constexpr const char* kDrafterFormat = "draftbench-drafter";
inline constexpr int kDrafterFormatVersion = 1;
inline constexpr const char* kDrafterConfigFile = "drafter.json";

class Model;

// A draft vocabulary for untrained drafters: the target's stop tokens, then the lowest ids
// (BPE vocabularies number merges roughly by frequency) up to n in all; n <= 0 or n >=
// n_vocab gives the whole vocabulary in order.
std::vector<int32_t> default_draft_vocab(const Model& target, int64_t n);

// The first `cap` ids of a draft vocabulary, then the stop ids among the rest, in order;
// the whole vocabulary when cap is 0 or covers it (DrafterOptions::draft_vocab):
// a prefix of a trained, frequency-ordered vocabulary is a smaller one of the same kind.
std::vector<int32_t> capped_draft_vocab(std::vector<int32_t> vocab, int64_t cap, std::span<const int32_t> stop_ids);

// drafter.json's common header: format, version and kind, to which a writer adds its fields.
nlohmann::json native_drafter_config(const std::string& kind);

// Writes a drafter in draftbench's format: `dir` (created if needed) gets drafter.json
// and model.safetensors, the latter with the I32 `draft_vocab` tensor added unless the
// vocabulary is the target's whole one in order. Throws InputError naming `dir`.
void write_native_drafter(const std::string& dir, const nlohmann::json& config, SafetensorsWriter& tensors, const std::vector<int32_t>& draft_vocab,
                          int64_t target_vocab);

class DrafterCheckpoint;

// A size from the config in [lo, hi] (the fallback when absent, or a required field without
// one); else InputError naming the config file and the field, never the weights.
int64_t drafter_size_field(const DrafterCheckpoint& checkpoint, const char* key, std::optional<int64_t> fallback, int64_t lo, int64_t hi);
// When the checkpoint holds `tensor` and its dimension `dim` is not `value`, the config's field
// `key` disagrees with the weights: InputError naming the field, with the tensor's shape. A
// size that decides which tensors exist (a layer count) is blamed this way on the field.
void check_size_against_tensor(const DrafterCheckpoint& checkpoint, const char* key, int64_t value, const std::string& tensor, size_t dim);

// Native drafter.json is checked key by key: an unknown key is an InputError naming the file
// and the key (a reference config.json carries many keys the drafters do not read).
class DrafterCheckpoint {
 public:
  // Throws InputError naming the directory or file and what is missing or malformed.
  explicit DrafterCheckpoint(const std::string& dir);

  const std::string& dir() const { return dir_; }
  const std::string& config_path() const { return config_path_; }
  bool native() const { return native_; }  // drafter.json rather than a reference config.json
  // One of checkpoint_kinds() (drafter_registry.h): drafter.json's "drafter", else
  // inferred from the reference config's keys and the tensor names.
  const std::string& kind() const { return kind_; }
  const ConfigFields& fields() const { return *fields_; }
  const nlohmann::json& config() const { return config_; }

  // Binding checks every float tensor for NaN and infinities (WeightBinder's check_finite).
  WeightBinder& bind() { return binder_; }
  // The tensor's shape without marking it used; empty when the checkpoint has none.
  std::vector<int64_t> shape_of(const std::string& name) const { return source_.shape_of(name); }
  // The draft vocabulary checked against the target's vocabulary (in range, distinct), or
  // every target id in order when the checkpoint has none.
  std::vector<int32_t> draft_vocab(int64_t n_vocab);
  // After binding: every tensor must have been used.
  void reject_unused() const { source_.reject_unused(kind_); }
  // A bound matrix as Q8_0 (kernels/matmul/requantize.h), kept alive with the checkpoint;
  // w as it is where it cannot be. For the products a drafter runs on every draft pass.
  WeightMatrix requantized_q8_0(const WeightMatrix& w);

 private:
  std::string dir_, config_path_, kind_;
  nlohmann::json config_;
  bool native_ = false;
  std::unique_ptr<ConfigFields> fields_;
  TensorSource source_;
  std::deque<std::vector<float>> owned_;  // converted vectors, realigned matrices
  std::deque<std::vector<uint8_t>> requantized_;
  WeightBinder binder_;
};

}  // namespace draftbench
