#include "engine/train/distill_data.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "engine/common/error.h"
#include "engine/common/sha256.h"
#include "engine/model/safetensors_checkpoint.h"
#include "engine/model/safetensors_file.h"
#include "engine/model/safetensors_writer.h"

namespace draftbench {
namespace {

template <typename T>
std::vector<uint8_t> raw_bytes(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// A typed view of a shard tensor, with its dtype and shape checked. Tensors are laid out
// widest element first (see write_distill_shard), so the casts are aligned; the check stays
// because a file from elsewhere may not be.
template <typename T>
std::span<const T> tensor_view(const SafetensorsFile& file, const char* name, const char* dtype, std::vector<int64_t> shape) {
  const SafetensorsTensor* t = file.find_tensor(name);
  if (!t) throw InputError(file.path(), fmt::format("tensor '{}'", name), "missing");
  if (t->dtype != dtype) throw InputError(file.path(), fmt::format("tensor '{}'", name), fmt::format("dtype {}, expected {}", t->dtype, dtype));
  if (t->shape != shape)
    throw InputError(file.path(), fmt::format("tensor '{}'", name), fmt::format("shape {}, expected {}", shape_str(t->shape), shape_str(shape)));
  if (reinterpret_cast<uintptr_t>(t->data) % alignof(T) != 0)
    throw InputError(file.path(), fmt::format("tensor '{}'", name), "data not aligned to its element size");
  return {reinterpret_cast<const T*>(t->data), t->n_bytes / sizeof(T)};
}

int64_t first_dim(const SafetensorsFile& file, const char* name) {
  const SafetensorsTensor* t = file.find_tensor(name);
  if (!t) throw InputError(file.path(), fmt::format("tensor '{}'", name), "missing");
  if (t->shape.empty()) throw InputError(file.path(), fmt::format("tensor '{}'", name), "expected at least one dimension");
  return t->shape[0];
}

}  // namespace

std::string write_distill_shard(const std::string& path, std::span<const DistillSequence> sequences, int64_t n_embd, int64_t continuation_length) {
  std::vector<int64_t> offsets{0};
  std::vector<int32_t> tokens, continuation, record;
  std::vector<uint8_t> trained, kind;
  std::vector<float> hidden;
  for (const DistillSequence& s : sequences) {
    const size_t n = s.tokens.size();
    DB_CHECK(s.trained.size() == n && s.hidden.size() == n * static_cast<size_t>(n_embd) &&
             s.continuation.size() == n * static_cast<size_t>(continuation_length));
    offsets.push_back(offsets.back() + static_cast<int64_t>(n));
    tokens.insert(tokens.end(), s.tokens.begin(), s.tokens.end());
    trained.insert(trained.end(), s.trained.begin(), s.trained.end());
    hidden.insert(hidden.end(), s.hidden.begin(), s.hidden.end());
    continuation.insert(continuation.end(), s.continuation.begin(), s.continuation.end());
    record.push_back(s.record);
    kind.push_back(static_cast<uint8_t>(s.kind));
  }
  const int64_t N = offsets.back(), S = static_cast<int64_t>(sequences.size());
  // Widest elements first: every tensor then starts aligned to its element size.
  SafetensorsWriter w;
  w.tensor("offsets", "I64", {S + 1}, raw_bytes(offsets));
  w.tensor("tokens", "I32", {N}, raw_bytes(tokens));
  w.tensor("continuation", "I32", {N, continuation_length}, raw_bytes(continuation));
  w.tensor("record", "I32", {S}, raw_bytes(record));
  w.tensor_floats("hidden", GgmlType::F16, {N, n_embd}, hidden);
  w.tensor("trained", "U8", {N}, trained);
  w.tensor("kind", "U8", {S}, kind);
  w.metadata("format", kDistillFormat);

  const std::string tmp = path + ".tmp";
  w.write(tmp);
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw InputError(path, "", fmt::format("cannot rename from {}: {}", tmp, ec.message()));
  return sha256_file(path);
}

struct DistillShard::Mapping {
  SafetensorsFile file;
};

DistillShard::DistillShard(const std::string& path, int64_t n_embd, int64_t continuation_length)
    : file_(std::make_unique<Mapping>(Mapping{SafetensorsFile::open(path)})) {
  const SafetensorsFile& f = file_->file;
  const int64_t N = first_dim(f, "tokens"), S = first_dim(f, "record");
  offsets_ = tensor_view<int64_t>(f, "offsets", "I64", {S + 1});
  tokens_ = tensor_view<int32_t>(f, "tokens", "I32", {N});
  continuation_ = tensor_view<int32_t>(f, "continuation", "I32", {N, continuation_length});
  record_ = tensor_view<int32_t>(f, "record", "I32", {S});
  hidden_ = tensor_view<uint16_t>(f, "hidden", "F16", {N, n_embd});
  trained_ = tensor_view<uint8_t>(f, "trained", "U8", {N});
  kind_ = tensor_view<uint8_t>(f, "kind", "U8", {S});
  if (offsets_.front() != 0 || offsets_.back() != N) throw InputError(path, "tensor 'offsets'", fmt::format("expected to run from 0 to {}", N));
  for (int64_t s = 0; s < S; ++s) {
    if (offsets_[s + 1] <= offsets_[s]) throw InputError(path, "tensor 'offsets'", "expected strictly increasing values");
    if (kind_[s] > static_cast<uint8_t>(SequenceKind::second_turn)) throw InputError(path, "tensor 'kind'", fmt::format("unknown kind {}", kind_[s]));
  }
}

DistillShard::~DistillShard() = default;

DistillData::DistillData(const std::string& dir, bool verify_checksums, bool allow_incomplete) : dir_(dir) {
  const std::string path = (std::filesystem::path(dir) / kDistillManifest).string();
  if (!std::filesystem::exists(path)) throw InputError(dir, "", fmt::format("no {}: not a `draftbench distill` output directory", kDistillManifest));
  manifest_ = read_json_file(path, "distill manifest");
  auto field = [&](const char* name) -> const nlohmann::json& {
    if (!manifest_.contains(name)) throw InputError(path, fmt::format("field '{}'", name), "missing");
    return manifest_.at(name);
  };
  if (field("format") != kDistillFormat) throw InputError(path, "field 'format'", fmt::format("expected \"{}\"", kDistillFormat));
  if (field("version") != kDistillFormatVersion) throw InputError(path, "field 'version'", fmt::format("expected {}", kDistillFormatVersion));
  if (!allow_incomplete && field("complete") != true)
    throw InputError(path, "field 'complete'", "the distillation has not finished: run `draftbench distill` again with the same options to resume it");
  const nlohmann::json& target = field("target");
  const nlohmann::json& settings = field("settings");
  if (!target.contains("n_embd") || !target["n_embd"].is_number_integer() || target["n_embd"].get<int64_t>() <= 0)
    throw InputError(path, "field 'target.n_embd'", "expected a positive integer");
  if (!settings.contains("continuation_length") || !settings["continuation_length"].is_number_integer() || settings["continuation_length"].get<int64_t>() < 2)
    throw InputError(path, "field 'settings.continuation_length'", "expected an integer >= 2");
  n_embd_ = target["n_embd"].get<int64_t>();
  continuation_length_ = settings["continuation_length"].get<int64_t>();
  const nlohmann::json& shards = field("shards");
  if (!shards.is_array()) throw InputError(path, "field 'shards'", "expected an array");
  for (const nlohmann::json& s : shards) {
    if (!s.contains("file") || !s["file"].is_string() || !s.contains("sha256") || !s["sha256"].is_string())
      throw InputError(path, "field 'shards'", "every entry needs \"file\" and \"sha256\" strings");
    const std::string file = (std::filesystem::path(dir) / s["file"].get<std::string>()).string();
    if (!std::filesystem::exists(file)) throw InputError(file, "", "listed in the manifest but missing");
    if (verify_checksums && sha256_file(file) != s["sha256"].get<std::string>())
      throw InputError(file, "sha256", "does not match the manifest: the shard is corrupt; delete it and its later shards, then resume");
  }
}

std::vector<std::string> DistillData::shard_paths() const {
  std::vector<std::string> paths;
  for (const nlohmann::json& s : manifest_.at("shards")) paths.push_back((std::filesystem::path(dir_) / s["file"].get<std::string>()).string());
  return paths;
}

}  // namespace draftbench
