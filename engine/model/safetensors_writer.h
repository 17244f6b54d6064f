// Writes safetensors files (drafter exports, test fixtures): valid files (header padded to 8 bytes with spaces,
// tensors packed in insertion order, as huggingface/safetensors writes them) and, through
// bytes_with_header, files with any header a test wants to corrupt.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernels/quant/ggml_type.h"

namespace draftbench {

// `values` in F32, F16 (IEEE, round to nearest) or BF16 (round to nearest even) bytes.
std::vector<uint8_t> encode_floats(GgmlType type, const std::vector<float>& values);
// The value that survives encoding to `type` and back: what a loader will compute with.
float round_to_type(GgmlType type, float value);
// "F32", "F16" or "BF16".
std::string safetensors_dtype(GgmlType type);

class SafetensorsWriter {
 public:
  // `data` is written as given, so a test can make it disagree with shape and dtype.
  void tensor(const std::string& name, const std::string& dtype, std::vector<int64_t> shape, std::vector<uint8_t> data);
  void tensor_floats(const std::string& name, GgmlType type, std::vector<int64_t> shape, const std::vector<float>& values);
  void metadata(const std::string& key, const std::string& value);

  std::string header() const;  // the JSON, unpadded
  std::vector<uint8_t> bytes(bool pad_header = true) const;
  void write(const std::string& path, bool pad_header = true) const;

  // u64 length + `header` as given + the tensor data of this writer.
  std::vector<uint8_t> bytes_with_header(const std::string& header) const;

 private:
  struct Tensor {
    std::string name, dtype;
    std::vector<int64_t> shape;
    std::vector<uint8_t> data;
  };
  std::vector<Tensor> tensors_;
  std::map<std::string, std::string> metadata_;
};

void write_file(const std::string& path, const std::vector<uint8_t>& bytes);
void write_file(const std::string& path, const std::string& text);

}  // namespace draftbench
