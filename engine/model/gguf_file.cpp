#include "engine/model/gguf_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "engine/common/error.h"

namespace draftbench {
namespace {

constexpr uint32_t kGgufMagic = 0x46554747;  // "GGUF" read little-endian
constexpr uint64_t kMaxStringBytes = 1ull << 30;
constexpr int kMaxArrayDepth = 4;
constexpr uint32_t kMaxDims = 4;

// Bounds-checked cursor over the file bytes; every read names what it was reading.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> bytes, const std::string& file) : bytes_(bytes), file_(file) {}

  size_t pos() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

  template <typename T>
  T read(const std::string& what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  std::string read_string(const std::string& what) {
    const uint64_t n = read<uint64_t>(what);
    if (n > kMaxStringBytes || n > remaining())
      throw InputError(file_, what, fmt::format("string length {} exceeds the {} bytes left in the file", n, remaining()));
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return s;
  }

  void need(size_t n, const std::string& what) const {
    if (n > remaining()) throw InputError(file_, what, fmt::format("truncated: needs {} bytes at offset {}, file has {} left", n, pos_, remaining()));
  }

 private:
  std::span<const uint8_t> bytes_;
  const std::string& file_;
  size_t pos_ = 0;
};

size_t min_encoded_size(GgufValueType t) {
  switch (t) {
    case GgufValueType::UINT8:
    case GgufValueType::INT8:
    case GgufValueType::BOOL: return 1;
    case GgufValueType::UINT16:
    case GgufValueType::INT16: return 2;
    case GgufValueType::UINT32:
    case GgufValueType::INT32:
    case GgufValueType::FLOAT32: return 4;
    case GgufValueType::UINT64:
    case GgufValueType::INT64:
    case GgufValueType::FLOAT64: return 8;
    case GgufValueType::STRING: return 8;
    case GgufValueType::ARRAY: return 12;
  }
  return 1;
}

bool valid_value_type(uint32_t t) { return t <= static_cast<uint32_t>(GgufValueType::FLOAT64); }

GgufValue read_value(Cursor& c, GgufValueType type, const std::string& what, const std::string& file, int depth) {
  GgufValue v;
  v.type = type;
  switch (type) {
    case GgufValueType::UINT8: v.data = uint64_t{c.read<uint8_t>(what)}; break;
    case GgufValueType::INT8: v.data = int64_t{c.read<int8_t>(what)}; break;
    case GgufValueType::UINT16: v.data = uint64_t{c.read<uint16_t>(what)}; break;
    case GgufValueType::INT16: v.data = int64_t{c.read<int16_t>(what)}; break;
    case GgufValueType::UINT32: v.data = uint64_t{c.read<uint32_t>(what)}; break;
    case GgufValueType::INT32: v.data = int64_t{c.read<int32_t>(what)}; break;
    case GgufValueType::UINT64: v.data = c.read<uint64_t>(what); break;
    case GgufValueType::INT64: v.data = c.read<int64_t>(what); break;
    case GgufValueType::FLOAT32: v.data = double{c.read<float>(what)}; break;
    case GgufValueType::FLOAT64: v.data = c.read<double>(what); break;
    case GgufValueType::BOOL: {
      const uint8_t b = c.read<uint8_t>(what);
      if (b > 1) throw InputError(file, what, fmt::format("bool value {} is not 0 or 1", b));
      v.data = b == 1;
      break;
    }
    case GgufValueType::STRING: v.data = c.read_string(what); break;
    case GgufValueType::ARRAY: {
      if (depth >= kMaxArrayDepth) throw InputError(file, what, "arrays nested deeper than 4 levels");
      const uint32_t elem = c.read<uint32_t>(what);
      if (!valid_value_type(elem)) throw InputError(file, what, fmt::format("unknown array element type {}", elem));
      const uint64_t n = c.read<uint64_t>(what);
      const auto elem_type = static_cast<GgufValueType>(elem);
      if (n > c.remaining() / min_encoded_size(elem_type))
        throw InputError(file, what, fmt::format("array of {} elements cannot fit in the {} bytes left", n, c.remaining()));
      v.array_type = elem_type;
      switch (elem_type) {
        case GgufValueType::FLOAT32:
        case GgufValueType::FLOAT64: {
          std::vector<double> items(n);
          for (auto& x : items) x = std::get<double>(read_value(c, elem_type, what, file, depth + 1).data);
          v.data = std::move(items);
          break;
        }
        case GgufValueType::STRING: {
          std::vector<std::string> items(n);
          for (auto& x : items) x = c.read_string(what);
          v.data = std::move(items);
          break;
        }
        case GgufValueType::ARRAY: {
          std::vector<GgufValue> items;
          items.reserve(n);
          for (uint64_t i = 0; i < n; ++i) items.push_back(read_value(c, elem_type, what, file, depth + 1));
          v.data = std::move(items);
          break;
        }
        default: {  // integers and bools
          std::vector<int64_t> items(n);
          for (auto& x : items) {
            const GgufValue e = read_value(c, elem_type, what, file, depth + 1);
            if (auto* u = std::get_if<uint64_t>(&e.data)) {
              if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) throw InputError(file, what, "array integer too large");
              x = static_cast<int64_t>(*u);
            } else if (auto* i = std::get_if<int64_t>(&e.data)) {
              x = *i;
            } else {
              x = std::get<bool>(e.data) ? 1 : 0;
            }
          }
          v.data = std::move(items);
        }
      }
      break;
    }
  }
  return v;
}

[[noreturn]] void wrong_type(const std::string& file, const std::string& key, const GgufValue& v, std::string_view expected) {
  throw InputError(file, "key '" + key + "'", fmt::format("expected {}, found {}", expected, gguf_value_type_name(v.type)));
}

int64_t as_int(const std::string& file, const std::string& key, const GgufValue& v) {
  if (auto* u = std::get_if<uint64_t>(&v.data)) {
    if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) throw InputError(file, "key '" + key + "'", "integer too large");
    return static_cast<int64_t>(*u);
  }
  if (auto* i = std::get_if<int64_t>(&v.data)) return *i;
  wrong_type(file, key, v, "an integer");
}

double as_float(const std::string& file, const std::string& key, const GgufValue& v) {
  if (auto* d = std::get_if<double>(&v.data)) return *d;
  if (std::holds_alternative<uint64_t>(v.data) || std::holds_alternative<int64_t>(v.data)) return static_cast<double>(as_int(file, key, v));
  wrong_type(file, key, v, "a number");
}

}  // namespace

std::string_view gguf_value_type_name(GgufValueType t) {
  static constexpr std::string_view names[] = {"uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
                                               "bool",  "string", "array",  "uint64", "int64",  "float64"};
  const auto i = static_cast<uint32_t>(t);
  return i < std::size(names) ? names[i] : "unknown";
}

int64_t GgufTensor::n_elements() const {
  int64_t n = 1;
  for (int64_t d : ne) n *= d;
  return n;
}

GgufFile GgufFile::open(const std::string& path) {
  auto mapping = std::make_shared<MappedFile>(path);
  GgufFile f = parse(mapping->bytes(), path);
  f.mapping_ = std::move(mapping);
  return f;
}

GgufFile GgufFile::parse(std::span<const uint8_t> bytes, const std::string& name) {
  GgufFile f;
  f.name_ = name;
  f.size_ = bytes.size();
  Cursor c(bytes, f.name_);

  if (bytes.size() < 4 || c.read<uint32_t>("magic") != kGgufMagic) throw InputError(name, "header", "not a GGUF file (magic is not 'GGUF')");
  f.version_ = c.read<uint32_t>("version");
  if ((f.version_ & 0xFFFF) == 0) throw InputError(name, "version", "big-endian GGUF files are not supported");
  if (f.version_ != 2 && f.version_ != 3) throw InputError(name, "version", fmt::format("GGUF version {} is not supported (expected 2 or 3)", f.version_));
  const uint64_t n_tensors = c.read<uint64_t>("tensor_count");
  const uint64_t n_kv = c.read<uint64_t>("metadata_kv_count");
  // Each kv needs >= 8 (key length) + 4 (type) + 1 bytes; each tensor info >= 8 + 4 + 4 + 8.
  if (n_kv > c.remaining() / 13) throw InputError(name, "metadata_kv_count", fmt::format("{} key/value pairs cannot fit in the file", n_kv));
  if (n_tensors > c.remaining() / 24) throw InputError(name, "tensor_count", fmt::format("{} tensors cannot fit in the file", n_tensors));

  for (uint64_t i = 0; i < n_kv; ++i) {
    std::string key = c.read_string(fmt::format("metadata key #{}", i));
    if (key.empty()) throw InputError(name, fmt::format("metadata key #{}", i), "empty key");
    const std::string what = "key '" + key + "'";
    const uint32_t type = c.read<uint32_t>(what);
    if (!valid_value_type(type)) throw InputError(name, what, fmt::format("unknown value type {}", type));
    GgufValue v = read_value(c, static_cast<GgufValueType>(type), what, name, 0);
    if (!f.kv_.emplace(key, std::move(v)).second) throw InputError(name, what, "duplicate key");
  }

  if (f.has("general.alignment")) {
    const auto& a = f.get("general.alignment");
    if (a.type != GgufValueType::UINT32) wrong_type(name, "general.alignment", a, "uint32");
    const uint64_t al = std::get<uint64_t>(a.data);
    if (al == 0 || (al & (al - 1)) != 0 || al % 8 != 0)
      throw InputError(name, "key 'general.alignment'", fmt::format("{} is not a power of two multiple of 8", al));
    f.alignment_ = static_cast<uint32_t>(al);
  }

  f.tensors_.reserve(n_tensors);
  for (uint64_t i = 0; i < n_tensors; ++i) {
    GgufTensor t;
    t.name = c.read_string(fmt::format("tensor info #{}", i));
    const std::string what = "tensor '" + t.name + "'";
    const uint32_t n_dims = c.read<uint32_t>(what);
    if (n_dims == 0 || n_dims > kMaxDims) throw InputError(name, what, fmt::format("{} dimensions (expected 1 to 4)", n_dims));
    int64_t n_el = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      const uint64_t ne = c.read<uint64_t>(what);
      if (ne == 0 || ne > (1ull << 40) || static_cast<uint64_t>(n_el) > (1ull << 48) / ne)
        throw InputError(name, what, fmt::format("dimension {} has invalid size {}", d, ne));
      t.ne.push_back(static_cast<int64_t>(ne));
      n_el *= static_cast<int64_t>(ne);
    }
    const uint32_t type_id = c.read<uint32_t>(what);
    const auto info = ggml_type_info(type_id);
    if (!info || !info->in_files)
      throw InputError(name, what,
                       fmt::format("tensor type {} is not supported (expected F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K or Q6_K)", type_id));
    t.type = info->type;
    if (t.ne[0] % info->block_size != 0)
      throw InputError(name, what, fmt::format("row length {} is not a multiple of the {} block size {}", t.ne[0], info->name, info->block_size));
    t.offset = c.read<uint64_t>(what);
    if (t.offset % f.alignment_ != 0) throw InputError(name, what, fmt::format("offset {} is not aligned to {}", t.offset, f.alignment_));
    t.n_bytes = ggml_row_bytes(t.type, t.ne[0]) * static_cast<size_t>(n_el / t.ne[0]);
    if (!f.tensor_index_.emplace(t.name, f.tensors_.size()).second) throw InputError(name, what, "duplicate tensor name");
    f.tensors_.push_back(std::move(t));
  }

  const size_t data_start = (c.pos() + f.alignment_ - 1) / f.alignment_ * f.alignment_;
  if (n_tensors > 0 && data_start > bytes.size()) throw InputError(name, "tensor data", "file ends before the tensor data section");
  for (auto& t : f.tensors_) {
    const size_t avail = bytes.size() - std::min(bytes.size(), data_start);
    if (t.offset > avail || t.n_bytes > avail - t.offset)
      throw InputError(
          name, "tensor '" + t.name + "'",
          fmt::format("data [{}, {}) runs past the end of the file (truncated? data section holds {} bytes)", t.offset, t.offset + t.n_bytes, avail));
    t.data = bytes.data() + data_start + t.offset;
  }
  return f;
}

const GgufValue& GgufFile::get(const std::string& key) const {
  auto it = kv_.find(key);
  if (it == kv_.end()) throw InputError(name_, "key '" + key + "'", "required key is missing");
  return it->second;
}

int64_t GgufFile::get_int(const std::string& key) const { return as_int(name_, key, get(key)); }
std::optional<int64_t> GgufFile::find_int(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return get_int(key);
}
double GgufFile::get_float(const std::string& key) const { return as_float(name_, key, get(key)); }
std::optional<double> GgufFile::find_float(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return get_float(key);
}

bool GgufFile::get_bool(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const auto& v = get(key);
  if (auto* b = std::get_if<bool>(&v.data)) return *b;
  wrong_type(name_, key, v, "a bool");
}

std::string GgufFile::get_string(const std::string& key) const {
  const auto& v = get(key);
  if (auto* s = std::get_if<std::string>(&v.data)) return *s;
  wrong_type(name_, key, v, "a string");
}
std::optional<std::string> GgufFile::find_string(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return get_string(key);
}

std::vector<std::string> GgufFile::get_string_array(const std::string& key) const {
  const auto& v = get(key);
  if (auto* a = std::get_if<std::vector<std::string>>(&v.data)) return *a;
  wrong_type(name_, key, v, "an array of strings");
}

std::vector<double> GgufFile::get_float_array(const std::string& key) const {
  const auto& v = get(key);
  if (auto* a = std::get_if<std::vector<double>>(&v.data)) return *a;
  if (auto* a = std::get_if<std::vector<int64_t>>(&v.data); a && v.array_type != GgufValueType::BOOL) return {a->begin(), a->end()};
  wrong_type(name_, key, v, "an array of numbers");
}

std::vector<int64_t> GgufFile::get_int_array(const std::string& key) const {
  const auto& v = get(key);
  if (auto* a = std::get_if<std::vector<int64_t>>(&v.data)) return *a;
  wrong_type(name_, key, v, "an array of integers");
}

const GgufTensor* GgufFile::find_tensor(const std::string& name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const GgufTensor& GgufFile::tensor(const std::string& name) const {
  if (const auto* t = find_tensor(name)) return *t;
  throw InputError(name_, "tensor '" + name + "'", "required tensor is missing");
}

}  // namespace draftbench
