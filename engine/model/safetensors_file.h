// safetensors reader over a memory mapping (Hugging Face checkpoints).
//
// Layout: u64 little-endian header length N, N bytes of JSON, then the data region.
// The JSON is an object: "__metadata__" (optional, string -> string) and, per tensor,
//   "name": {"dtype": "F16", "shape": [rows, cols], "data_offsets": [begin, end]}
// with offsets relative to the data region. Shapes are row-major (the last dimension is
// contiguous), so an HF Linear weight [out, in] is already our WeightMatrix layout.
//
// Everything is validated at open: the header length, the JSON, every field's type, each
// tensor's byte range against the data region and against shape x element size, and that
// no two tensors overlap. Problems are one-line InputErrors naming the file and tensor.
// Every dtype of the format is accepted at open (so a checkpoint carrying, say, an I64
// buffer still opens); only F32, F16 and BF16 can be used as weights (float_type()).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/model/mapped_file.h"
#include "kernels/quant/ggml_type.h"

namespace draftbench {

struct SafetensorsTensor {
  std::string name;
  std::string dtype;             // as written: "F32", "BF16", "I64", ...
  std::optional<GgmlType> type;  // set for F32, F16 and BF16 only
  std::vector<int64_t> shape;    // row-major: shape.back() is contiguous
  size_t n_bytes = 0;
  const uint8_t* data = nullptr;  // inside the mapping; alignment is not guaranteed
  int64_t n_elements() const;
};

class SafetensorsFile {
 public:
  static SafetensorsFile open(const std::string& path);
  // Parse bytes that the caller keeps alive (tests).
  static SafetensorsFile parse(std::span<const uint8_t> bytes, const std::string& name);

  const std::string& path() const { return name_; }
  size_t file_size() const { return size_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }  // by data offset

  const SafetensorsTensor* find_tensor(const std::string& name) const;
  const SafetensorsTensor& tensor(const std::string& name) const;  // throws if absent
  // The tensor's element type as a weight: throws InputError naming the tensor and its
  // dtype unless it is F32, F16 or BF16.
  GgmlType float_type(const SafetensorsTensor& tensor) const;

 private:
  std::shared_ptr<MappedFile> mapping_;  // null when parsing caller-owned bytes
  std::string name_;
  size_t size_ = 0;
  std::map<std::string, std::string> metadata_;
  std::vector<SafetensorsTensor> tensors_;
  std::map<std::string, size_t> tensor_index_;
};

// Text taken from a file (a tensor name, a dtype) made fit for a one-line message: control
// bytes escaped as \xNN, anything past 80 bytes cut.
std::string printable_text(std::string_view text);
// A JSON value from a file, for a one-line message: scalars as JSON, containers only named
// ("an array of 3") because dumping a hostile, deeply nested one would recurse.
std::string printable_json(const nlohmann::json& value);

}  // namespace draftbench
