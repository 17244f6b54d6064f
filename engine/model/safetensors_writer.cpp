#include "engine/model/safetensors_writer.h"

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "kernels/quant/blocks.h"

namespace draftbench {
namespace {

uint16_t fp32_to_bf16_nearest_even(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);  // round half to even (inputs are finite)
  return static_cast<uint16_t>(u >> 16);
}

}  // namespace

std::vector<uint8_t> encode_floats(GgmlType type, const std::vector<float>& values) {
  std::vector<uint8_t> out;
  if (type == GgmlType::F32) {
    out.resize(values.size() * 4);
    std::memcpy(out.data(), values.data(), out.size());
    return out;
  }
  if (type != GgmlType::F16 && type != GgmlType::BF16) throw std::logic_error("encode_floats: F32, F16 or BF16 only");
  out.resize(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t h = type == GgmlType::F16 ? fp32_to_fp16(values[i]) : fp32_to_bf16_nearest_even(values[i]);
    std::memcpy(out.data() + 2 * i, &h, 2);
  }
  return out;
}

float round_to_type(GgmlType type, float value) {
  if (type == GgmlType::F16) return fp16_to_fp32(fp32_to_fp16(value));
  if (type == GgmlType::BF16) return bf16_to_fp32(fp32_to_bf16_nearest_even(value));
  return value;
}

std::string safetensors_dtype(GgmlType type) {
  switch (type) {
    case GgmlType::F32: return "F32";
    case GgmlType::F16: return "F16";
    case GgmlType::BF16: return "BF16";
    default: throw std::logic_error("safetensors_dtype: F32, F16 or BF16 only");
  }
}

void SafetensorsWriter::tensor(const std::string& name, const std::string& dtype, std::vector<int64_t> shape, std::vector<uint8_t> data) {
  tensors_.push_back({name, dtype, std::move(shape), std::move(data)});
}

void SafetensorsWriter::tensor_floats(const std::string& name, GgmlType type, std::vector<int64_t> shape, const std::vector<float>& values) {
  tensor(name, safetensors_dtype(type), std::move(shape), encode_floats(type, values));
}

void SafetensorsWriter::metadata(const std::string& key, const std::string& value) { metadata_[key] = value; }

std::string SafetensorsWriter::header() const {
  nlohmann::json h = nlohmann::json::object();
  if (!metadata_.empty()) h["__metadata__"] = metadata_;
  size_t offset = 0;
  for (const Tensor& t : tensors_) {
    h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.data.size()}}};
    offset += t.data.size();
  }
  return h.dump();
}

std::vector<uint8_t> SafetensorsWriter::bytes_with_header(const std::string& header) const {
  size_t data_bytes = 0;
  for (const Tensor& t : tensors_) data_bytes += t.data.size();
  std::vector<uint8_t> out(8 + header.size() + data_bytes);
  const uint64_t n = header.size();
  std::memcpy(out.data(), &n, 8);
  std::memcpy(out.data() + 8, header.data(), header.size());
  size_t at = 8 + header.size();
  for (const Tensor& t : tensors_) {
    if (!t.data.empty()) std::memcpy(out.data() + at, t.data.data(), t.data.size());
    at += t.data.size();
  }
  return out;
}

std::vector<uint8_t> SafetensorsWriter::bytes(bool pad_header) const {
  std::string h = header();
  if (pad_header) h.resize((8 + h.size() + 7) / 8 * 8 - 8, ' ');
  return bytes_with_header(h);
}

void SafetensorsWriter::write(const std::string& path, bool pad_header) const { write_file(path, bytes(pad_header)); }

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

void write_file(const std::string& path, const std::string& text) { write_file(path, std::vector<uint8_t>(text.begin(), text.end())); }

}  // namespace draftbench
