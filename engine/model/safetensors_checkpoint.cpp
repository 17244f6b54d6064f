#include "engine/model/safetensors_checkpoint.h"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "kernels/quant/dequantize.h"

namespace draftbench {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;
constexpr const char* kSingleFile = "model.safetensors";
constexpr const char* kIndexFile = "model.safetensors.index.json";
}  // namespace

json read_json_file(const std::string& path, const char* what) {
  // Regular files only and bounded: a FIFO or /dev/zero here is a one-line error, not a hang.
  const std::string text = read_regular_file(path, std::string_view(what).starts_with("the ") ? what + 4 : what, kMaxSmallJsonBytes);
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(path, "", fmt::format("not valid JSON (parse error at byte {})", e.byte));
  }
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// --- ConfigFields ------------------------------------------------------------------------

const json* ConfigFields::find(const char* key) const {
  const auto it = j_.find(key);
  return it == j_.end() || it->is_null() ? nullptr : &*it;
}
int64_t ConfigFields::integer(const char* key) const {
  const json* v = find(key);
  if (!v) throw InputError(path_, field(key), "missing (expected an integer)");
  if (!v->is_number_integer()) throw InputError(path_, field(key), fmt::format("holds {} (expected an integer)", printable_json(*v)));
  return v->get<int64_t>();
}
int64_t ConfigFields::integer_or(const char* key, int64_t fallback) const { return find(key) ? integer(key) : fallback; }
double ConfigFields::number_or(const char* key, double fallback) const {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_number()) throw InputError(path_, field(key), fmt::format("holds {} (expected a number)", printable_json(*v)));
  return v->get<double>();
}
bool ConfigFields::boolean_or(const char* key, bool fallback) const {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_boolean()) throw InputError(path_, field(key), fmt::format("holds {} (expected true or false)", printable_json(*v)));
  return v->get<bool>();
}
std::string ConfigFields::string_or(const char* key, const std::string& fallback) const {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_string()) throw InputError(path_, field(key), fmt::format("holds {} (expected a string)", printable_json(*v)));
  return v->get<std::string>();
}
std::string ConfigFields::field(const char* key) { return fmt::format("field '{}'", key); }

// --- TensorSource ------------------------------------------------------------------------

TensorSource::TensorSource(const std::string& dir) {
  const fs::path index_path = fs::path(dir) / kIndexFile;
  const fs::path single_path = fs::path(dir) / kSingleFile;
  if (fs::exists(index_path)) open_sharded(dir, index_path.string());
  else if (fs::exists(single_path)) add_shard(single_path.string());
  else
    throw InputError(dir, kSingleFile,
                     fmt::format("missing, and no {} either (PyTorch .bin/.pt checkpoints are not supported: convert them to safetensors)", kIndexFile));
}

TensorSource::Found TensorSource::find(const std::string& name) {
  const auto it = where_.find(name);
  if (it == where_.end()) return {nullptr, nullptr};
  used_.insert(name);
  const SafetensorsFile& file = shards_[it->second];
  return {&file, file.find_tensor(name)};
}

void TensorSource::reject_unused(const std::string& kind) const {
  for (const auto& [name, shard] : where_) {
    if (used_.count(name) || name.ends_with(".rotary_emb.inv_freq")) continue;
    throw InputError(shards_[shard].path(), "tensor '" + printable_text(name) + "'",
                     fmt::format("unexpected in a {} checkpoint (biases and extra modules are not supported)", kind));
  }
}

std::vector<int64_t> TensorSource::shape_of(const std::string& name) const {
  const auto it = where_.find(name);
  if (it == where_.end()) return {};
  const SafetensorsTensor* t = shards_[it->second].find_tensor(name);
  return t ? t->shape : std::vector<int64_t>{};
}

std::vector<std::string> TensorSource::names() const {
  std::vector<std::string> out;
  for (const auto& [name, shard] : where_) out.push_back(name);
  return out;
}

void TensorSource::open_sharded(const std::string& dir, const std::string& index_path) {
  where_label_ = index_path;
  const json index = read_json_file(index_path, "the shard index");
  const auto map = index.is_object() ? index.find("weight_map") : index.end();
  if (map == index.end() || !map->is_object()) throw InputError(index_path, "field 'weight_map'", "missing or not an object");
  std::map<std::string, size_t> shard_of_file;
  std::vector<std::pair<std::string, size_t>> listed;  // tensor -> shard, as the index says
  for (const auto& [tensor, file] : map->items()) {
    const std::string what = "weight_map '" + printable_text(tensor) + "'";
    if (!file.is_string()) throw InputError(index_path, what, fmt::format("holds {} (expected a file name)", printable_json(file)));
    const std::string file_name = file.get<std::string>();
    // Shards must sit in the checkpoint directory: a path here would read elsewhere.
    if (file_name.empty() || file_name.find('/') != std::string::npos || file_name == "." || file_name == "..")
      throw InputError(index_path, what, fmt::format("'{}' is not a file name in the checkpoint directory", printable_text(file_name)));
    auto [it, is_new] = shard_of_file.try_emplace(file_name, shards_.size());
    if (is_new) add_shard((fs::path(dir) / file_name).string());
    listed.emplace_back(tensor, it->second);
  }
  for (const auto& [tensor, shard] : listed) {
    if (!shards_[shard].find_tensor(tensor))
      throw InputError(index_path, "weight_map '" + printable_text(tensor) + "'",
                       fmt::format("names shard {} but the tensor is not in it", shards_[shard].path()));
  }
}

void TensorSource::add_shard(const std::string& path) {
  if (!fs::exists(path)) throw InputError(path, "", "shard not found");
  if (where_label_.empty()) where_label_ = path;
  shards_.push_back(SafetensorsFile::open(path));
  const size_t shard = shards_.size() - 1;
  for (const SafetensorsTensor& t : shards_[shard].tensors()) {
    auto [it, is_new] = where_.try_emplace(t.name, shard);
    if (!is_new)
      throw InputError(path, "tensor '" + printable_text(t.name) + "'",
                       fmt::format("also in {} (each tensor must be in one shard)", shards_[it->second].path()));
  }
}

// --- WeightBinder ------------------------------------------------------------------------

WeightMatrix WeightBinder::matrix(const std::string& name, int64_t n_out, int64_t n_in, const char* dims) {
  const auto [file, t] = require(name);
  check_shape(*file, *t, {n_out, n_in}, dims);
  const GgmlType type = file->float_type(*t);
  if (check_finite_) check_finite(*file, *t, type);
  return WeightMatrix{type, n_in, n_out, aligned(*t, type)};
}

const float* WeightBinder::vector(const std::string& name, int64_t n, const char* dims) {
  const auto [file, t] = require(name);
  check_shape(*file, *t, {n}, dims);
  const GgmlType type = file->float_type(*t);
  if (check_finite_) check_finite(*file, *t, type);
  if (type == GgmlType::F32 && reinterpret_cast<uintptr_t>(t->data) % alignof(float) == 0) return reinterpret_cast<const float*>(t->data);
  std::vector<float>& out = owned_.emplace_back(static_cast<size_t>(n));
  if (type == GgmlType::F32) {
    std::memcpy(out.data(), t->data, t->n_bytes);
  } else {
    std::vector<uint16_t> raw(static_cast<size_t>(n));  // aligned for dequantize_row
    std::memcpy(raw.data(), t->data, t->n_bytes);
    dequantize_row(type, raw.data(), out.data(), n);
  }
  return out.data();
}

std::vector<int64_t> WeightBinder::integers(const std::string& name) {
  const auto [file, t] = require(name);
  if (t->shape.size() != 1 || (t->dtype != "I32" && t->dtype != "I64"))
    throw InputError(file->path(), "tensor '" + name + "'", fmt::format("{} {} (expected a 1-d I32 or I64 tensor)", t->dtype, shape_str(t->shape)));
  std::vector<int64_t> out(static_cast<size_t>(t->shape[0]));
  for (size_t i = 0; i < out.size(); ++i) {
    if (t->dtype == "I32") {
      int32_t v;
      std::memcpy(&v, t->data + i * 4, 4);
      out[i] = v;
    } else {
      std::memcpy(&out[i], t->data + i * 8, 8);
    }
  }
  return out;
}

// NaN and infinities are the values whose exponent bits are all ones, in each float format.
void WeightBinder::check_finite(const SafetensorsFile& file, const SafetensorsTensor& t, GgmlType type) const {
  const size_t width = type == GgmlType::F32 ? 4 : 2;
  const uint32_t exponent = type == GgmlType::F32 ? 0x7F800000u : type == GgmlType::F16 ? 0x7C00u : 0x7F80u;
  const size_t n = t.n_bytes / width;
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, t.data + i * width, width);  // little-endian, as safetensors stores it
    if ((bits & exponent) != exponent) continue;
    const bool nan = (bits & ~exponent & (width == 4 ? 0x7FFFFFFFu : 0x7FFFu)) != 0;
    throw InputError(file.path(), "tensor '" + printable_text(t.name) + "'",
                     fmt::format("element {} is {} (expected finite weights: the file is corrupt or its training diverged)", i, nan ? "NaN" : "infinite"));
  }
}

TensorSource::Found WeightBinder::require(const std::string& name) {
  const TensorSource::Found found = source_.find(name);
  if (!found.tensor) throw InputError(source_.where(), "tensor '" + name + "'", "missing");
  return found;
}

void WeightBinder::check_shape(const SafetensorsFile& file, const SafetensorsTensor& t, const std::vector<int64_t>& expected, const char* dims) {
  if (t.shape != expected)
    throw InputError(file.path(), "tensor '" + t.name + "'", fmt::format("shape {} (expected {} = {})", shape_str(t.shape), shape_str(expected), dims));
}

// The kernels load elements through typed pointers, so the bytes must be aligned to the
// element size; safetensors only guarantees that when the writer padded the header
// (current writers pad to 8 bytes). Misaligned tensors are copied.
const uint8_t* WeightBinder::aligned(const SafetensorsTensor& t, GgmlType type) {
  const size_t element_bytes = type == GgmlType::F32 ? 4 : 2;
  if (reinterpret_cast<uintptr_t>(t.data) % element_bytes == 0) return t.data;
  std::vector<float>& copy = owned_.emplace_back((t.n_bytes + sizeof(float) - 1) / sizeof(float));
  std::memcpy(copy.data(), t.data, t.n_bytes);
  return reinterpret_cast<const uint8_t*>(copy.data());
}

}  // namespace draftbench
