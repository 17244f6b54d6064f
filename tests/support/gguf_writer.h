// Writes GGUF files for tests: synthetic headers for the parser's error paths and tiny
// random models. Only the tests use it; the engine never writes GGUF.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "kernels/quant/ggml_type.h"

namespace draftbench::test {

class GgufWriter {
 public:
  using Scalar = std::variant<uint32_t, int32_t, float, bool, std::string, uint64_t>;
  void kv(const std::string& key, Scalar value);
  void kv_strings(const std::string& key, const std::vector<std::string>& values);
  void kv_floats(const std::string& key, const std::vector<float>& values);
  void kv_ints(const std::string& key, const std::vector<int32_t>& values);
  // `data` must hold the tensor in `type`'s layout (ggml_row_bytes * rows bytes).
  void tensor(const std::string& name, GgmlType type, std::vector<int64_t> ne, std::vector<uint8_t> data);
  void tensor_f32(const std::string& name, std::vector<int64_t> ne, const std::vector<float>& values);

  std::vector<uint8_t> bytes(uint32_t version = 3, uint32_t alignment = 32) const;
  void write(const std::string& path, uint32_t version = 3) const;

 private:
  struct Tensor {
    std::string name;
    GgmlType type;
    std::vector<int64_t> ne;
    std::vector<uint8_t> data;
  };
  std::vector<uint8_t> kv_bytes_;
  uint64_t n_kv_ = 0;
  std::vector<Tensor> tensors_;
};

}  // namespace draftbench::test
