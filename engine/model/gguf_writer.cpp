#include "engine/model/gguf_writer.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "engine/common/error.h"

namespace draftbench {
namespace {

template <typename T>
void put(std::vector<uint8_t>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}
void put_string(std::vector<uint8_t>& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

// GGUF value type ids (gguf_file.h's GgufValueType).
constexpr uint32_t kUint32 = 4, kInt32 = 5, kFloat32 = 6, kBool = 7, kString = 8, kArray = 9, kUint64 = 10;

}  // namespace

void GgufWriter::kv(const std::string& key, Scalar value) {
  put_string(kv_bytes_, key);
  std::visit(
      [this](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, uint32_t>) {
          put<uint32_t>(kv_bytes_, kUint32);
          put(kv_bytes_, v);
        } else if constexpr (std::is_same_v<T, int32_t>) {
          put<uint32_t>(kv_bytes_, kInt32);
          put(kv_bytes_, v);
        } else if constexpr (std::is_same_v<T, float>) {
          put<uint32_t>(kv_bytes_, kFloat32);
          put(kv_bytes_, v);
        } else if constexpr (std::is_same_v<T, bool>) {
          put<uint32_t>(kv_bytes_, kBool);
          put<uint8_t>(kv_bytes_, v ? 1 : 0);
        } else if constexpr (std::is_same_v<T, std::string>) {
          put<uint32_t>(kv_bytes_, kString);
          put_string(kv_bytes_, v);
        } else {
          put<uint32_t>(kv_bytes_, kUint64);
          put(kv_bytes_, v);
        }
      },
      value);
  ++n_kv_;
}

void GgufWriter::kv_strings(const std::string& key, const std::vector<std::string>& values) {
  put_string(kv_bytes_, key);
  put<uint32_t>(kv_bytes_, kArray);
  put<uint32_t>(kv_bytes_, kString);
  put<uint64_t>(kv_bytes_, values.size());
  for (const auto& s : values) put_string(kv_bytes_, s);
  ++n_kv_;
}

void GgufWriter::kv_floats(const std::string& key, const std::vector<float>& values) {
  put_string(kv_bytes_, key);
  put<uint32_t>(kv_bytes_, kArray);
  put<uint32_t>(kv_bytes_, kFloat32);
  put<uint64_t>(kv_bytes_, values.size());
  for (float v : values) put(kv_bytes_, v);
  ++n_kv_;
}

void GgufWriter::kv_ints(const std::string& key, const std::vector<int32_t>& values) {
  put_string(kv_bytes_, key);
  put<uint32_t>(kv_bytes_, kArray);
  put<uint32_t>(kv_bytes_, kInt32);
  put<uint64_t>(kv_bytes_, values.size());
  for (int32_t v : values) put(kv_bytes_, v);
  ++n_kv_;
}

void GgufWriter::add_tensor(Tensor t) {
  if (t.ne.empty()) throw std::logic_error("GgufWriter: tensor " + t.name + " has no dimensions");
  if (t.ne[0] % ggml_type_info(t.type).block_size != 0) throw std::logic_error("GgufWriter: row length of " + t.name + " is not a multiple of its block size");
  int64_t rows = 1;
  for (size_t i = 1; i < t.ne.size(); ++i) rows *= t.ne[i];
  t.n_bytes = ggml_row_bytes(t.type, t.ne[0]) * static_cast<size_t>(rows);
  if (!t.fill && t.data.size() != t.n_bytes) throw std::logic_error("GgufWriter: data size mismatch for " + t.name);
  tensors_.push_back(std::move(t));
}

void GgufWriter::tensor(const std::string& name, GgmlType type, std::vector<int64_t> ne, std::vector<uint8_t> data) {
  add_tensor(Tensor{name, type, std::move(ne), 0, std::move(data), nullptr});
}

void GgufWriter::tensor_f32(const std::string& name, std::vector<int64_t> ne, const std::vector<float>& values) {
  std::vector<uint8_t> data(values.size() * 4);
  std::memcpy(data.data(), values.data(), data.size());
  tensor(name, GgmlType::F32, std::move(ne), std::move(data));
}

void GgufWriter::tensor_filled(const std::string& name, GgmlType type, std::vector<int64_t> ne, TensorFill fill) {
  if (!fill) throw std::logic_error("GgufWriter: no fill for " + name);
  add_tensor(Tensor{name, type, std::move(ne), 0, {}, std::move(fill)});
}

std::vector<uint8_t> GgufWriter::bytes(uint32_t version, uint32_t alignment) const {
  std::vector<uint8_t> out;
  put<uint32_t>(out, 0x46554747);
  put<uint32_t>(out, version);
  put<uint64_t>(out, tensors_.size());
  put<uint64_t>(out, n_kv_);
  out.insert(out.end(), kv_bytes_.begin(), kv_bytes_.end());
  uint64_t offset = 0;
  std::vector<uint64_t> offsets;
  for (const auto& t : tensors_) {
    put_string(out, t.name);
    put<uint32_t>(out, static_cast<uint32_t>(t.ne.size()));
    for (int64_t d : t.ne) put<uint64_t>(out, static_cast<uint64_t>(d));
    put<uint32_t>(out, static_cast<uint32_t>(t.type));
    put<uint64_t>(out, offset);
    offsets.push_back(offset);
    offset += (t.n_bytes + alignment - 1) / alignment * alignment;
  }
  out.resize((out.size() + alignment - 1) / alignment * alignment, 0);
  const size_t data_start = out.size();
  // No padding after the last tensor, so that every truncation removes real data.
  const size_t end = tensors_.empty() ? data_start : data_start + offsets.back() + tensors_.back().n_bytes;
  out.resize(end, 0);
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    uint8_t* at = out.data() + data_start + offsets[i];
    if (t.fill) t.fill(std::span<uint8_t>(at, t.n_bytes));
    else std::memcpy(at, t.data.data(), t.n_bytes);
  }
  return out;
}

void GgufWriter::write(const std::string& path, uint32_t version) const {
  const auto b = bytes(version);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    if (!f) throw InputError(tmp, "", "cannot write the GGUF file");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw InputError(path, "", "cannot write the GGUF file: " + ec.message());
}

}  // namespace draftbench
