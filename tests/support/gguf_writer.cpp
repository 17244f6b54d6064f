#include "tests/support/gguf_writer.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace draftbench::test {
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

}  // namespace

void GgufWriter::kv(const std::string& key, Scalar value) {
  put_string(kv_bytes_, key);
  std::visit(
      [this](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, uint32_t>) { put<uint32_t>(kv_bytes_, 4); put(kv_bytes_, v); }
        else if constexpr (std::is_same_v<T, int32_t>) { put<uint32_t>(kv_bytes_, 5); put(kv_bytes_, v); }
        else if constexpr (std::is_same_v<T, float>) { put<uint32_t>(kv_bytes_, 6); put(kv_bytes_, v); }
        else if constexpr (std::is_same_v<T, bool>) { put<uint32_t>(kv_bytes_, 7); put<uint8_t>(kv_bytes_, v ? 1 : 0); }
        else if constexpr (std::is_same_v<T, std::string>) { put<uint32_t>(kv_bytes_, 8); put_string(kv_bytes_, v); }
        else { put<uint32_t>(kv_bytes_, 10); put(kv_bytes_, v); }
      },
      value);
  ++n_kv_;
}

void GgufWriter::kv_strings(const std::string& key, const std::vector<std::string>& values) {
  put_string(kv_bytes_, key);
  put<uint32_t>(kv_bytes_, 9);
  put<uint32_t>(kv_bytes_, 8);
  put<uint64_t>(kv_bytes_, values.size());
  for (const auto& s : values) put_string(kv_bytes_, s);
  ++n_kv_;
}

void GgufWriter::kv_floats(const std::string& key, const std::vector<float>& values) {
  put_string(kv_bytes_, key);
  put<uint32_t>(kv_bytes_, 9);
  put<uint32_t>(kv_bytes_, 6);
  put<uint64_t>(kv_bytes_, values.size());
  for (float v : values) put(kv_bytes_, v);
  ++n_kv_;
}

void GgufWriter::kv_ints(const std::string& key, const std::vector<int32_t>& values) {
  put_string(kv_bytes_, key);
  put<uint32_t>(kv_bytes_, 9);
  put<uint32_t>(kv_bytes_, 5);
  put<uint64_t>(kv_bytes_, values.size());
  for (int32_t v : values) put(kv_bytes_, v);
  ++n_kv_;
}

void GgufWriter::tensor(const std::string& name, GgmlType type, std::vector<int64_t> ne, std::vector<uint8_t> data) {
  int64_t rows = 1;
  for (size_t i = 1; i < ne.size(); ++i) rows *= ne[i];
  if (data.size() != ggml_row_bytes(type, ne[0]) * static_cast<size_t>(rows)) throw std::logic_error("GgufWriter: data size mismatch for " + name);
  tensors_.push_back({name, type, std::move(ne), std::move(data)});
}

void GgufWriter::tensor_f32(const std::string& name, std::vector<int64_t> ne, const std::vector<float>& values) {
  std::vector<uint8_t> data(values.size() * 4);
  std::memcpy(data.data(), values.data(), data.size());
  tensor(name, GgmlType::F32, std::move(ne), std::move(data));
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
    offset += (t.data.size() + alignment - 1) / alignment * alignment;
  }
  out.resize((out.size() + alignment - 1) / alignment * alignment, 0);
  const size_t data_start = out.size();
  // No padding after the last tensor, so that every truncation removes real data.
  const size_t end = tensors_.empty() ? data_start : data_start + offsets.back() + tensors_.back().data.size();
  out.resize(end, 0);
  for (size_t i = 0; i < tensors_.size(); ++i) std::memcpy(out.data() + data_start + offsets[i], tensors_[i].data.data(), tensors_[i].data.size());
  return out;
}

void GgufWriter::write(const std::string& path, uint32_t version) const {
  const auto b = bytes(version);
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!f) throw std::runtime_error("GgufWriter: cannot write " + path);
}

}  // namespace draftbench::test
