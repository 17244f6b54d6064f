#include "engine/train/torch/train_checkpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/sha256.h"
#include "engine/train/torch/training_log.h"

namespace draftbench {
namespace {

constexpr char kMagic[8] = {'D', 'B', 'T', 'R', 'A', 'I', 'N', '1'};
constexpr const char* kFormat = "draftbench-train-checkpoint";
constexpr size_t kChecksumBytes = 64;                         // SHA-256 as hex
constexpr uint64_t kMaxCheckpointBytes = uint64_t{64} << 30;  // far above any drafter's state

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t get_u64(std::string_view bytes, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + static_cast<size_t>(i)])) << (8 * i);
  return v;
}

// The first place where `a` and `b` differ, as a dotted path under `prefix` ("" if equal).
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& prefix) {
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      if (!b.contains(key)) return prefix + "." + key;
      const std::string d = first_difference(value, b.at(key), prefix + "." + key);
      if (!d.empty()) return d;
    }
    for (const auto& [key, value] : b.items())
      if (!a.contains(key)) return prefix + "." + key;
    return "";
  }
  return a == b ? "" : prefix;
}

const nlohmann::json* at_path(const nlohmann::json& j, const std::string& dotted) {
  const nlohmann::json* node = &j;
  size_t start = dotted.find('.') == std::string::npos ? dotted.size() : dotted.find('.') + 1;  // skip the prefix
  while (start < dotted.size()) {
    const size_t end = std::min(dotted.find('.', start), dotted.size());
    const std::string key = dotted.substr(start, end - start);
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &node->at(key);
    start = end + 1;
  }
  return node;
}

}  // namespace

bool TrainProgress::note_validation(int finished_epoch, double valid_loss) {
  // A NaN loss (diverged) never improves on anything, and anything improves on it.
  if (best_epoch == 0 || (!std::isnan(valid_loss) && (std::isnan(best_valid_loss) || valid_loss < best_valid_loss))) {
    best_epoch = finished_epoch;
    best_valid_loss = valid_loss;
    epochs_since_best = 0;
    return true;
  }
  ++epochs_since_best;
  return false;
}

nlohmann::json TrainProgress::to_json() const {
  return {{"epoch", epoch},
          {"batch", batch},
          {"step", step},
          {"positions_trained", positions_trained},
          {"training_seconds", training_seconds},
          {"epoch_seconds", epoch_seconds},
          {"wall_seconds", wall_seconds},
          {"pieces", pieces},
          {"epoch_tally", epoch_tally},
          {"interval_tally", interval_tally},
          {"log", log},
          {"epochs", epochs},
          {"best_epoch", best_epoch},
          {"best_valid_loss", best_valid_loss},
          {"epochs_since_best", epochs_since_best}};
}

TrainProgress TrainProgress::from_json(const nlohmann::json& j) {
  TrainProgress p;
  p.epoch = j.at("epoch").get<int>();
  p.batch = j.at("batch").get<int64_t>();
  p.step = j.at("step").get<int64_t>();
  p.positions_trained = j.at("positions_trained").get<int64_t>();
  p.training_seconds = json_number(j.at("training_seconds"));
  p.epoch_seconds = json_number(j.at("epoch_seconds"));
  p.wall_seconds = json_number(j.at("wall_seconds"));
  p.pieces = j.at("pieces").get<int>();
  p.epoch_tally = j.at("epoch_tally");
  p.interval_tally = j.at("interval_tally");
  p.log = j.at("log");
  p.epochs = j.at("epochs");
  if (!p.log.is_object() || !p.epochs.is_array()) throw nlohmann::json::type_error::create(302, "'log' must be an object and 'epochs' an array", &j);
  p.best_epoch = j.at("best_epoch").get<int>();
  p.best_valid_loss = json_number(j.at("best_valid_loss"));
  p.epochs_since_best = j.at("epochs_since_best").get<int>();
  return p;
}

std::string train_checkpoint_path(const std::string& out_dir) { return (std::filesystem::path(out_dir) / kTrainCheckpointFile).string(); }

void write_train_checkpoint(const std::string& path, const nlohmann::json& fingerprint, const TrainProgress& progress, const std::string& session_state) {
  const nlohmann::json header{{"format", kFormat},
                              {"version", kTrainCheckpointVersion},
                              {"written_at", iso_utc(WallClock::now())},
                              {"fingerprint", fingerprint},
                              {"progress", progress.to_json()}};
  const std::string text = header.dump();
  std::string bytes(kMagic, sizeof(kMagic));
  bytes.reserve(sizeof(kMagic) + 16 + text.size() + session_state.size() + kChecksumBytes);
  put_u64(bytes, text.size());
  bytes += text;
  put_u64(bytes, session_state.size());
  bytes += session_state;
  bytes += sha256_hex(bytes);
  write_file_atomically(path, bytes);
}

TrainCheckpoint read_train_checkpoint(const std::string& path) {
  const std::string bytes = read_regular_file(path, "training checkpoint", kMaxCheckpointBytes);
  const std::string_view view(bytes);
  if (view.size() < sizeof(kMagic) || std::memcmp(view.data(), kMagic, sizeof(kMagic)) != 0)
    throw InputError(path, "magic", "not a draftbench training checkpoint (expected it to start with 'DBTRAIN1')");
  const size_t min_size = sizeof(kMagic) + 16 + kChecksumBytes;
  auto truncated = [&] {
    return InputError(path, "size", fmt::format("{} bytes: truncated (expected the header, state and checksum its lengths announce)", view.size()));
  };
  if (view.size() < min_size) throw truncated();
  const size_t body = view.size() - kChecksumBytes;
  if (sha256_hex(view.substr(0, body)) != view.substr(body))
    throw InputError(path, "checksum", "does not match the contents (the file is corrupt or truncated; resume from an older copy or start over)");
  const uint64_t header_size = get_u64(view, sizeof(kMagic));
  if (header_size > body - sizeof(kMagic) - 16) throw truncated();
  const size_t state_at = sizeof(kMagic) + 8 + static_cast<size_t>(header_size);
  const uint64_t state_size = get_u64(view, state_at);
  if (state_size != body - state_at - 8) throw truncated();

  nlohmann::json header;
  try {
    header = nlohmann::json::parse(view.substr(sizeof(kMagic) + 8, static_cast<size_t>(header_size)));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, "header", fmt::format("is not JSON ({})", e.what()));
  }
  if (!header.is_object() || header.value("format", "") != kFormat) throw InputError(path, "field 'format'", fmt::format("missing or not '{}'", kFormat));
  if (!header.contains("version") || header["version"] != kTrainCheckpointVersion)
    throw InputError(path, "field 'version'",
                     fmt::format("{} (expected {}: written by another draftbench version; start over)",
                                 header.contains("version") ? header["version"].dump() : "missing", kTrainCheckpointVersion));
  if (!header.contains("fingerprint") || !header["fingerprint"].is_object()) throw InputError(path, "field 'fingerprint'", "missing or not an object");
  TrainCheckpoint c;
  c.fingerprint = header["fingerprint"];
  try {
    c.progress = TrainProgress::from_json(header.at("progress"));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, "field 'progress'", fmt::format("{} (expected the fields this draftbench version writes)", e.what()));
  }
  c.session_state = std::string(view.substr(state_at + 8, static_cast<size_t>(state_size)));
  return c;
}

void check_resume_fingerprint(const std::string& path, const nlohmann::json& saved, const nlohmann::json& now) {
  const std::string field = first_difference(saved, now, "fingerprint");
  if (field.empty()) return;
  const nlohmann::json *was = at_path(saved, field), *is = at_path(now, field);
  throw InputError(path, fmt::format("field '{}'", field),
                   fmt::format("{} in the checkpoint, {} now (a resume must use the options, data, model and threads the run started with)",
                               was ? was->dump() : "absent", is ? is->dump() : "absent"));
}

// --- deadlines ---------------------------------------------------------------------------

void DeadlineGuard::step_took(double seconds) { recent_[steps_seen_++ % std::size(recent_)] = seconds; }

double DeadlineGuard::next_chunk_seconds(bool ends_epoch, int64_t valid_batches) const {
  const double step = *std::max_element(std::begin(recent_), std::end(recent_));
  double chunk = step + checkpoint_;
  if (ends_epoch) chunk += evaluation_ >= 0 ? evaluation_ : static_cast<double>(valid_batches) * step;
  return with_deadline_margin(chunk);
}

bool DeadlineGuard::must_stop(bool ends_epoch, int64_t valid_batches, WallClock::time_point now) const {
  if (!deadline_) return false;
  const auto chunk = std::chrono::duration_cast<WallClock::duration>(std::chrono::duration<double>(next_chunk_seconds(ends_epoch, valid_batches)));
  return now + chunk > *deadline_;
}

}  // namespace draftbench
