// A directory of safetensors weights with a JSON config, as Hugging Face writes it — the
// shared plumbing of the HF model loader (hf_checkpoint.h) and the drafter loader
// (drafters/drafter_checkpoint.h):
//   - read_json_file / ConfigFields: typed config access, errors naming file and field;
//   - TensorSource: `model.safetensors`, or the shards listed by
//     `model.safetensors.index.json`, every tensor name in exactly one file;
//   - WeightBinder: tensors as WeightMatrix / f32 vectors with shape and dtype checked.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/safetensors_file.h"
#include "kernels/matmul/matmul.h"

namespace draftbench {

// Throws InputError naming `path` when it cannot be read or is not JSON.
nlohmann::json read_json_file(const std::string& path, const char* what);

// "[4096, 11008]"
std::string shape_str(const std::vector<int64_t>& shape);

// Typed access to a JSON object's fields. `null` counts as absent, as transformers treats it.
class ConfigFields {
 public:
  ConfigFields(const nlohmann::json& j, const std::string& path) : j_(j), path_(path) {}

  const nlohmann::json* find(const char* key) const;
  int64_t integer(const char* key) const;
  int64_t integer_or(const char* key, int64_t fallback) const;
  double number_or(const char* key, double fallback) const;
  bool boolean_or(const char* key, bool fallback) const;
  std::string string_or(const char* key, const std::string& fallback) const;
  static std::string field(const char* key);

 private:
  const nlohmann::json& j_;
  const std::string& path_;
};

// Where each tensor of a checkpoint directory lives: every shard opened once, every tensor
// name in exactly one shard.
class TensorSource {
 public:
  explicit TensorSource(const std::string& dir);

  struct Found {
    const SafetensorsFile* file;
    const SafetensorsTensor* tensor;
  };
  // Marks the tensor as used; nullptr tensor if the checkpoint has none of that name.
  Found find(const std::string& name);
  // Names `where` (the one file or the index) for messages about absent tensors.
  const std::string& where() const { return where_label_; }
  // Every tensor must have been bound, apart from buffers transformers recomputes;
  // `kind` completes "unexpected in a ... checkpoint".
  void reject_unused(const std::string& kind) const;
  std::vector<std::string> names() const;
  // The named tensor's shape, or empty when there is none; does not mark it used.
  std::vector<int64_t> shape_of(const std::string& name) const;

  std::vector<SafetensorsFile> take_shards() { return std::move(shards_); }

 private:
  void open_sharded(const std::string& dir, const std::string& index_path);
  void add_shard(const std::string& path);

  std::vector<SafetensorsFile> shards_;
  std::map<std::string, size_t> where_;
  std::set<std::string> used_;
  std::string where_label_;
};

// Binds tensors, checking shape and dtype. Converted or realigned copies go to `owned`.
// With `check_finite`, every float tensor bound is scanned once for NaN and infinities (a
// bit test per element, no conversion): an InputError names the file, the tensor and the
// first bad element. Drafters turn it on (small weights, often from a user's own training
// run); a target model's gigabytes are not scanned.
class WeightBinder {
 public:
  WeightBinder(TensorSource& source, std::deque<std::vector<float>>& owned, bool check_finite = false)
      : source_(source), owned_(owned), check_finite_(check_finite) {}

  // An HF Linear weight [n_out, n_in]; `dims` spells the expected shape for messages.
  WeightMatrix matrix(const std::string& name, int64_t n_out, int64_t n_in, const char* dims);
  // A vector [n] as f32: the file's bytes when they are F32 and aligned, else a converted copy.
  const float* vector(const std::string& name, int64_t n, const char* dims);
  // An integer vector (I32 or I64) of any length, values as stored.
  std::vector<int64_t> integers(const std::string& name);
  bool has(const std::string& name) { return source_.find(name).tensor != nullptr; }
  // The tensor's shape without marking it used; empty when there is no such tensor.
  std::vector<int64_t> shape_of(const std::string& name) const { return source_.shape_of(name); }

 private:
  TensorSource::Found require(const std::string& name);
  static void check_shape(const SafetensorsFile& file, const SafetensorsTensor& t, const std::vector<int64_t>& expected, const char* dims);
  const uint8_t* aligned(const SafetensorsTensor& t, GgmlType type);
  void check_finite(const SafetensorsFile& file, const SafetensorsTensor& t, GgmlType type) const;

  TensorSource& source_;
  std::deque<std::vector<float>>& owned_;
  bool check_finite_ = false;
};

}  // namespace draftbench
