// GGUF reader (versions 2 and 3, little-endian) over a memory mapping.
// Everything is validated before use: a corrupt, truncated or unsupported file
// throws InputError naming the file and the key or tensor, never reads out of bounds.
//
// Layout: magic "GGUF", u32 version, u64 tensor_count, u64 kv_count, kv pairs,
// tensor infos, padding to `general.alignment` (default 32), tensor data.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "engine/model/mapped_file.h"
#include "kernels/quant/ggml_type.h"

namespace draftbench {

enum class GgufValueType : uint32_t {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
};
std::string_view gguf_value_type_name(GgufValueType t);

// One metadata value. Integers widen to 64 bits and floats to double; `type` keeps the
// type written in the file. Arrays keep their element type; flat arrays are stored
// compactly (a 262k-token vocabulary is three of them), nested arrays as values.
struct GgufValue {
  GgufValueType type = GgufValueType::UINT8;
  GgufValueType array_type = GgufValueType::UINT8;  // element type when type == ARRAY
  std::variant<uint64_t, int64_t, double, bool, std::string,
               std::vector<int64_t>,      // array of integers or bools (uint64 above INT64_MAX is refused)
               std::vector<double>,       // array of floats
               std::vector<std::string>,  // array of strings
               std::vector<GgufValue>>    // array of arrays
      data;
};

struct GgufTensor {
  std::string name;
  GgmlType type = GgmlType::F32;
  std::vector<int64_t> ne;  // ne[0] is the contiguous (fastest) dimension
  uint64_t offset = 0;      // relative to the data section
  size_t n_bytes = 0;
  const uint8_t* data = nullptr;
  int64_t n_elements() const;
  int64_t rows() const { return n_elements() / ne[0]; }
};

class GgufFile {
 public:
  static GgufFile open(const std::string& path);
  // Parse bytes that the caller keeps alive (used by the fuzzer and tests).
  static GgufFile parse(std::span<const uint8_t> bytes, const std::string& name);

  const std::string& path() const { return name_; }
  uint32_t version() const { return version_; }
  uint32_t alignment() const { return alignment_; }
  size_t file_size() const { return size_; }
  bool is_mapped() const { return mapping_ != nullptr; }  // open()ed: tensor bytes lie in a MappedFile

  const std::map<std::string, GgufValue>& metadata() const { return kv_; }
  const std::vector<GgufTensor>& tensors() const { return tensors_; }

  bool has(const std::string& key) const { return kv_.count(key) != 0; }
  // Typed getters: throw InputError naming the key and the expected type.
  const GgufValue& get(const std::string& key) const;
  int64_t get_int(const std::string& key) const;
  std::optional<int64_t> find_int(const std::string& key) const;
  double get_float(const std::string& key) const;
  std::optional<double> find_float(const std::string& key) const;
  bool get_bool(const std::string& key, bool fallback) const;
  std::string get_string(const std::string& key) const;
  std::optional<std::string> find_string(const std::string& key) const;
  std::vector<std::string> get_string_array(const std::string& key) const;
  std::vector<double> get_float_array(const std::string& key) const;
  std::vector<int64_t> get_int_array(const std::string& key) const;

  const GgufTensor* find_tensor(const std::string& name) const;
  const GgufTensor& tensor(const std::string& name) const;  // throws if absent

 private:
  std::shared_ptr<MappedFile> mapping_;  // null when parsing caller-owned bytes
  std::string name_;
  uint32_t version_ = 0;
  uint32_t alignment_ = 32;
  size_t size_ = 0;
  std::map<std::string, GgufValue> kv_;
  std::vector<GgufTensor> tensors_;
  std::map<std::string, size_t> tensor_index_;
};

}  // namespace draftbench
