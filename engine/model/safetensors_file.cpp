#include "engine/model/safetensors_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"

namespace draftbench {
namespace {

// The reference implementation (huggingface/safetensors) refuses larger headers too.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr size_t kMaxDims = 8;

struct DtypeInfo {
  std::string_view name;
  size_t bytes;
  std::optional<GgmlType> weight_type;
};

// Every dtype of the safetensors format with a whole number of bytes per element.
constexpr DtypeInfo kDtypes[] = {
    {"F32", 4, GgmlType::F32}, {"F16", 2, GgmlType::F16}, {"BF16", 2, GgmlType::BF16}, {"F64", 8, std::nullopt},     {"I64", 8, std::nullopt},
    {"U64", 8, std::nullopt},  {"I32", 4, std::nullopt},  {"U32", 4, std::nullopt},    {"I16", 2, std::nullopt},     {"U16", 2, std::nullopt},
    {"I8", 1, std::nullopt},   {"U8", 1, std::nullopt},   {"BOOL", 1, std::nullopt},   {"F8_E4M3", 1, std::nullopt}, {"F8_E5M2", 1, std::nullopt},
};

const DtypeInfo* find_dtype(std::string_view name) {
  for (const auto& d : kDtypes)
    if (d.name == name) return &d;
  return nullptr;
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

class HeaderReader {
 public:
  HeaderReader(const std::string& file, size_t data_size) : file_(file), data_size_(data_size) {}

  SafetensorsTensor tensor(const std::string& name, const nlohmann::json& entry, const uint8_t* data_region) const {
    const std::string what = "tensor '" + printable_text(name) + "'";
    if (!entry.is_object()) throw InputError(file_, what, fmt::format("header entry is {} (expected an object)", printable_json(entry)));
    SafetensorsTensor t;
    t.name = name;

    const auto dtype = entry.find("dtype");
    if (dtype == entry.end() || !dtype->is_string()) throw InputError(file_, what, "field 'dtype' is missing or not a string");
    t.dtype = dtype->get<std::string>();
    const DtypeInfo* info = find_dtype(t.dtype);
    if (!info)
      throw InputError(file_, what,
                       fmt::format("dtype '{}' is not a safetensors dtype draftbench knows (weights must be F32, F16 or BF16)", printable_text(t.dtype)));
    t.type = info->weight_type;

    const auto shape = entry.find("shape");
    if (shape == entry.end() || !shape->is_array()) throw InputError(file_, what, "field 'shape' is missing or not an array");
    if (shape->size() > kMaxDims) throw InputError(file_, what, fmt::format("shape has {} dimensions (at most {} supported)", shape->size(), kMaxDims));
    uint64_t n_elements = 1;
    bool overflow = false;
    for (const auto& dim : *shape) {
      const uint64_t d = non_negative(dim, what, "shape");
      if (d > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) overflow = true;
      overflow = overflow || __builtin_mul_overflow(n_elements, d, &n_elements);
      t.shape.push_back(static_cast<int64_t>(d));
    }
    uint64_t expected_bytes = 0;
    if (overflow || __builtin_mul_overflow(n_elements, info->bytes, &expected_bytes))
      throw InputError(file_, what, fmt::format("shape {} is too large", printable_json(*shape)));

    const auto offsets = entry.find("data_offsets");
    if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2)
      throw InputError(file_, what, "field 'data_offsets' is missing or not a [begin, end] pair");
    const uint64_t begin = non_negative((*offsets)[0], what, "data_offsets");
    const uint64_t end = non_negative((*offsets)[1], what, "data_offsets");
    if (begin > end) throw InputError(file_, what, fmt::format("data_offsets [{}, {}] end before they begin", begin, end));
    if (end > data_size_)
      throw InputError(file_, what,
                       fmt::format("data_offsets [{}, {}] run past the end of the data region ({} bytes; file truncated?)", begin, end, data_size_));
    if (end - begin != expected_bytes)
      throw InputError(
          file_, what,
          fmt::format("data_offsets [{}, {}] hold {} bytes but shape {} of {} needs {}", begin, end, end - begin, shape_str(t.shape), t.dtype, expected_bytes));
    t.n_bytes = static_cast<size_t>(expected_bytes);
    t.data = data_region + begin;
    return t;
  }

 private:
  uint64_t non_negative(const nlohmann::json& v, const std::string& what, const char* field) const {
    if (!v.is_number_unsigned()) throw InputError(file_, what, fmt::format("field '{}' holds {} (expected a non-negative integer)", field, printable_json(v)));
    return v.get<uint64_t>();
  }

  const std::string& file_;
  size_t data_size_;
};

}  // namespace

std::string printable_text(std::string_view text) {
  std::string s;
  for (char ch : text.substr(0, 80)) {
    const auto byte = static_cast<unsigned char>(ch);
    s += byte < 0x20 || byte == 0x7f ? fmt::format("\\x{:02x}", byte) : std::string(1, ch);
  }
  return text.size() > 80 ? s + "..." : s;
}

std::string printable_json(const nlohmann::json& value) {
  if (value.is_object()) return fmt::format("an object of {}", value.size());
  if (value.is_array()) return fmt::format("an array of {}", value.size());
  return printable_text(value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
}

int64_t SafetensorsTensor::n_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  auto mapping = std::make_shared<MappedFile>(path);
  SafetensorsFile f = parse(mapping->bytes(), path);
  f.mapping_ = std::move(mapping);
  return f;
}

SafetensorsFile SafetensorsFile::parse(std::span<const uint8_t> bytes, const std::string& name) {
  SafetensorsFile f;
  f.name_ = name;
  f.size_ = bytes.size();
  if (bytes.size() < 8) throw InputError(name, "header length", fmt::format("file is {} bytes, too short for the 8-byte header length", bytes.size()));
  uint64_t header_bytes = 0;
  std::memcpy(&header_bytes, bytes.data(), 8);  // little-endian, as is every CPU we target
  if (header_bytes > kMaxHeaderBytes || header_bytes > bytes.size() - 8)
    throw InputError(
        name, "header length",
        fmt::format("{} bytes, but the file has {} after the length field (truncated, or not a safetensors file)", header_bytes, bytes.size() - 8));
  const std::string_view header_text(reinterpret_cast<const char*>(bytes.data() + 8), header_bytes);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(header_text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(name, "header", fmt::format("not valid JSON (parse error at byte {} of {})", e.byte, header_bytes));
  }
  if (!header.is_object()) throw InputError(name, "header", fmt::format("JSON is {} (expected an object of tensors)", printable_json(header)));

  const uint8_t* data_region = bytes.data() + 8 + header_bytes;
  const size_t data_size = bytes.size() - 8 - static_cast<size_t>(header_bytes);
  const HeaderReader reader(name, data_size);
  for (const auto& [key, entry] : header.items()) {
    if (key == "__metadata__") {
      if (!entry.is_object()) throw InputError(name, "__metadata__", "is not an object");
      for (const auto& [meta_key, meta_value] : entry.items()) {
        if (!meta_value.is_string())
          throw InputError(name, "__metadata__ '" + printable_text(meta_key) + "'", fmt::format("value {} is not a string", printable_json(meta_value)));
        f.metadata_[meta_key] = meta_value.get<std::string>();
      }
      continue;
    }
    f.tensors_.push_back(reader.tensor(key, entry, data_region));
  }

  // By data position, so that neighbours are adjacent for the overlap test (and listings
  // follow the file's layout).
  std::stable_sort(f.tensors_.begin(), f.tensors_.end(), [](const SafetensorsTensor& a, const SafetensorsTensor& b) { return a.data < b.data; });
  const SafetensorsTensor* previous = nullptr;
  for (const auto& t : f.tensors_) {
    if (t.n_bytes == 0) continue;
    if (previous && t.data < previous->data + previous->n_bytes)
      throw InputError(name, "tensor '" + printable_text(t.name) + "'",
                       fmt::format("data [{}, {}) overlaps tensor '{}' [{}, {})", t.data - data_region, t.data - data_region + t.n_bytes,
                                   printable_text(previous->name), previous->data - data_region, previous->data - data_region + previous->n_bytes));
    previous = &t;
  }
  for (size_t i = 0; i < f.tensors_.size(); ++i) f.tensor_index_[f.tensors_[i].name] = i;
  return f;
}

const SafetensorsTensor* SafetensorsFile::find_tensor(const std::string& name) const {
  const auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const SafetensorsTensor& SafetensorsFile::tensor(const std::string& name) const {
  const SafetensorsTensor* t = find_tensor(name);
  if (!t) throw InputError(name_, "tensor '" + printable_text(name) + "'", "missing");
  return *t;
}

GgmlType SafetensorsFile::float_type(const SafetensorsTensor& t) const {
  if (!t.type)
    throw InputError(name_, "tensor '" + printable_text(t.name) + "'",
                     fmt::format("dtype {} is not supported for weights (expected F32, F16 or BF16)", t.dtype));
  return *t.type;
}

}  // namespace draftbench
