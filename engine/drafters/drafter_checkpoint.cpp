#include "engine/drafters/drafter_checkpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <string_view>
#include <filesystem>

#include "engine/common/error.h"
#include "engine/drafters/drafter_registry.h"
#include "engine/model/model.h"
#include "kernels/matmul/requantize.h"

namespace draftbench {
namespace {
namespace fs = std::filesystem;

std::string config_path_in(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, "", "not a directory (expected a drafter directory with drafter.json or config.json)");
  for (const char* name : {kDrafterConfigFile, "config.json"}) {
    const fs::path p = fs::path(dir) / name;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  throw InputError(dir, "", "has neither drafter.json nor config.json (expected a drafter directory)");
}

// A reference config.json says which drafter it is by its keys, or by the tensors it sits
// beside (drafter_registry.h's is_reference).
std::string infer_kind(const nlohmann::json& config, const TensorSource& source) {
  const std::vector<std::string> names = source.names();
  for (const DrafterKind& k : drafter_kinds())
    if (k.is_reference && k.is_reference(config, names)) return k.name;
  return "";
}

// The kind a checkpoint directory may hold: one with drafter.json fields of its own.
const DrafterKind* checkpoint_kind(const std::string& name) {
  const DrafterKind* k = find_drafter_kind(name);
  return k && !k->config_keys.empty() ? k : nullptr;
}

// The keys drafter.json may hold: the header, provenance (`training` is a free-form record
// of how the weights were made, read by people, not by the loaders), and the kind's
// config_keys. A key outside these is a typo or a field of another kind that would
// otherwise be silently ignored.
void reject_unknown_keys(const nlohmann::json& config, const std::string& path, const DrafterKind& kind) {
  static constexpr std::string_view kCommon[] = {"format", "version", "drafter", "training", "seed", "trained"};
  const std::span<const std::string_view> own = kind.config_keys;
  for (const auto& [key, value] : config.items()) {
    if (std::find(std::begin(kCommon), std::end(kCommon), key) != std::end(kCommon) || std::find(own.begin(), own.end(), key) != own.end()) continue;
    std::string expected;
    for (std::string_view k : own) expected += (expected.empty() ? "" : ", ") + std::string(k);
    throw InputError(path, fmt::format("key '{}'", printable_text(key)),
                     fmt::format("unknown in a {} drafter.json (expected {}, or the header: format, version, drafter, training)", kind.name, expected));
  }
}

}  // namespace

int64_t drafter_size_field(const DrafterCheckpoint& checkpoint, const char* key, std::optional<int64_t> fallback, int64_t lo, int64_t hi) {
  const ConfigFields& f = checkpoint.fields();
  const int64_t v = fallback ? f.integer_or(key, *fallback) : f.integer(key);
  if (v < lo || v > hi) throw InputError(checkpoint.config_path(), ConfigFields::field(key), fmt::format("{} is out of range (expected {} to {})", v, lo, hi));
  return v;
}

void check_size_against_tensor(const DrafterCheckpoint& checkpoint, const char* key, int64_t value, const std::string& tensor, size_t dim) {
  const std::vector<int64_t> shape = checkpoint.shape_of(tensor);
  if (dim >= shape.size() || shape[dim] == value) return;
  throw InputError(checkpoint.config_path(), ConfigFields::field(key),
                   fmt::format("{} does not match the weights: tensor '{}' is {} (expected {} there)", value, tensor, shape_str(shape), value));
}

std::vector<int32_t> capped_draft_vocab(std::vector<int32_t> vocab, int64_t cap, std::span<const int32_t> stop_ids) {
  if (cap <= 0 || cap >= static_cast<int64_t>(vocab.size())) return vocab;
  std::vector<int32_t> dropped_stops;
  for (auto it = vocab.begin() + cap; it != vocab.end(); ++it)
    if (std::find(stop_ids.begin(), stop_ids.end(), *it) != stop_ids.end()) dropped_stops.push_back(*it);
  vocab.resize(static_cast<size_t>(cap));
  vocab.insert(vocab.end(), dropped_stops.begin(), dropped_stops.end());
  return vocab;
}

std::vector<int32_t> default_draft_vocab(const Model& target, int64_t n) {
  const int64_t n_vocab = target.config().n_vocab;
  std::vector<int32_t> ids;
  if (n <= 0 || n >= n_vocab) {
    for (int64_t i = 0; i < n_vocab; ++i) ids.push_back(static_cast<int32_t>(i));
    return ids;
  }
  std::vector<bool> taken(static_cast<size_t>(n_vocab), false);
  for (int32_t id : target.tokenizer().stop_ids())
    if (static_cast<int64_t>(ids.size()) < n && !taken[static_cast<size_t>(id)]) {
      taken[static_cast<size_t>(id)] = true;
      ids.push_back(id);
    }
  for (int64_t i = 0; static_cast<int64_t>(ids.size()) < n; ++i)
    if (!taken[static_cast<size_t>(i)]) ids.push_back(static_cast<int32_t>(i));
  return ids;
}

nlohmann::json native_drafter_config(const std::string& kind) {
  return nlohmann::json{{"format", kDrafterFormat}, {"version", kDrafterFormatVersion}, {"drafter", kind}};
}

void write_native_drafter(const std::string& dir, const nlohmann::json& config, SafetensorsWriter& tensors, const std::vector<int32_t>& draft_vocab,
                          int64_t target_vocab) {
  if (static_cast<int64_t>(draft_vocab.size()) != target_vocab) {
    std::vector<uint8_t> bytes(draft_vocab.size() * sizeof(int32_t));
    std::memcpy(bytes.data(), draft_vocab.data(), bytes.size());
    tensors.tensor("draft_vocab", "I32", {static_cast<int64_t>(draft_vocab.size())}, std::move(bytes));
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) throw InputError(dir, "", "cannot create the drafter directory" + (ec ? " (" + ec.message() + ")" : std::string()));
  try {
    write_file((fs::path(dir) / kDrafterConfigFile).string(), config.dump(2) + "\n");
    tensors.write((fs::path(dir) / "model.safetensors").string());
  } catch (const std::runtime_error& e) {
    throw InputError(dir, "", fmt::format("{} (expected a writable directory)", e.what()));
  }
}

DrafterCheckpoint::DrafterCheckpoint(const std::string& dir)
    : dir_(dir), config_path_(config_path_in(dir)), source_(dir), binder_(source_, owned_, /*check_finite=*/true) {
  config_ = read_json_file(config_path_, "the drafter config");
  if (!config_.is_object()) throw InputError(config_path_, "", fmt::format("holds {} (expected a JSON object)", printable_json(config_)));
  fields_ = std::make_unique<ConfigFields>(config_, config_path_);
  native_ = fs::path(config_path_).filename() == kDrafterConfigFile;
  if (native_) {
    if (fields_->string_or("format", "") != kDrafterFormat)
      throw InputError(config_path_, "field 'format'", fmt::format("missing or not '{}'", kDrafterFormat));
    if (const int64_t v = fields_->integer("version"); v != kDrafterFormatVersion)
      throw InputError(config_path_, "field 'version'", fmt::format("{} is not supported (expected {}; re-export the drafter)", v, kDrafterFormatVersion));
    kind_ = fields_->string_or("drafter", "");
    if (const DrafterKind* k = checkpoint_kind(kind_)) reject_unknown_keys(config_, config_path_, *k);
  } else {
    kind_ = infer_kind(config_, source_);
  }
  if (!checkpoint_kind(kind_))
    throw InputError(config_path_, native_ ? "field 'drafter'" : "",
                     kind_.empty() ? fmt::format("cannot tell which drafter this is (expected one of {})", checkpoint_kinds())
                                   : fmt::format("'{}' is not a drafter (expected one of {})", printable_text(kind_), checkpoint_kinds()));
}

WeightMatrix DrafterCheckpoint::requantized_q8_0(const WeightMatrix& w) {
  if (!can_requantize_q8_0(w)) return w;
  std::vector<uint8_t>& bytes = requantized_.emplace_back(requantized_q8_0_bytes(w));
  return requantize_q8_0(w, bytes.data());
}

std::vector<int32_t> DrafterCheckpoint::draft_vocab(int64_t n_vocab) {
  std::vector<int32_t> ids;
  if (!binder_.has("draft_vocab")) {
    ids.resize(static_cast<size_t>(n_vocab));
    for (int64_t i = 0; i < n_vocab; ++i) ids[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    return ids;
  }
  const std::vector<int64_t> raw = binder_.integers("draft_vocab");
  if (raw.empty()) throw InputError(dir_, "tensor 'draft_vocab'", "is empty (expected at least one token id)");
  std::vector<bool> seen(static_cast<size_t>(n_vocab), false);
  for (size_t i = 0; i < raw.size(); ++i) {
    const int64_t id = raw[i];
    if (id < 0 || id >= n_vocab)
      throw InputError(dir_, fmt::format("tensor 'draft_vocab' entry {}", i), fmt::format("id {} outside the target vocabulary [0, {})", id, n_vocab));
    if (seen[static_cast<size_t>(id)]) throw InputError(dir_, fmt::format("tensor 'draft_vocab' entry {}", i), fmt::format("id {} repeats", id));
    seen[static_cast<size_t>(id)] = true;
    ids.push_back(static_cast<int32_t>(id));
  }
  return ids;
}

}  // namespace draftbench
