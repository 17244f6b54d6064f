// Writes GGUF files (little-endian, version 3 unless asked otherwise): metadata keys and
// tensors, laid out as llama.cpp lays them out (tensor data aligned to `alignment`). Used
// by `draftbench make-model` (synthetic_model.h) and by the tests, which also corrupt its
// bytes() to reach the reader's error paths.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "kernels/quant/ggml_type.h"

namespace draftbench {

class GgufWriter {
 public:
  using Scalar = std::variant<uint32_t, int32_t, float, bool, std::string, uint64_t>;
  // Fills a tensor's bytes in place (the span is exactly ggml_row_bytes * rows long), so
  // large tensors are generated straight into the file image instead of being copied in.
  using TensorFill = std::function<void(std::span<uint8_t> data)>;

  void kv(const std::string& key, Scalar value);
  void kv_strings(const std::string& key, const std::vector<std::string>& values);
  void kv_floats(const std::string& key, const std::vector<float>& values);
  void kv_ints(const std::string& key, const std::vector<int32_t>& values);
  // `data` must hold the tensor in `type`'s layout (ggml_row_bytes * rows bytes).
  void tensor(const std::string& name, GgmlType type, std::vector<int64_t> ne, std::vector<uint8_t> data);
  void tensor_f32(const std::string& name, std::vector<int64_t> ne, const std::vector<float>& values);
  // The bytes come from `fill`, called once by bytes() or write() with the tensor's place.
  void tensor_filled(const std::string& name, GgmlType type, std::vector<int64_t> ne, TensorFill fill);

  std::vector<uint8_t> bytes(uint32_t version = 3, uint32_t alignment = 32) const;
  // Writes bytes() under a temporary name beside `path` and renames it, so `path` is
  // either the whole file or untouched. Throws InputError naming the path.
  void write(const std::string& path, uint32_t version = 3) const;

 private:
  struct Tensor {
    std::string name;
    GgmlType type;
    std::vector<int64_t> ne;
    size_t n_bytes = 0;
    std::vector<uint8_t> data;  // empty when `fill` provides the bytes
    TensorFill fill;
  };
  void add_tensor(Tensor t);

  std::vector<uint8_t> kv_bytes_;
  uint64_t n_kv_ = 0;
  std::vector<Tensor> tensors_;
};

}  // namespace draftbench
