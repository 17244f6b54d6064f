// Training checkpoints, deadlines and early stopping for `draftbench train` (torch-free):
// what lets a run of many hours proceed in pieces, each stopping itself safely, and resume
// bit for bit.
//
// A checkpoint is one file, OUT/checkpoint.bin, replaced atomically (written under a
// temporary name, then renamed), so a killed run leaves the previous whole checkpoint or the
// new one, never a mix:
//   "DBTRAIN1"          8-byte magic
//   u64 LE + bytes      header: JSON {format, version, fingerprint, progress, written_at}
//   u64 LE + bytes      the torch session's state (TorchSession::save_state: weights, AdamW's
//                       moments and step counts, torch's CPU generator)
//   64 bytes            SHA-256 (hex) of everything before it: corruption or truncation is
//                       caught before any field is trusted
//
// What makes a resume bit-identical to an unbroken run: the session state restores every
// tensor exactly; the example order is recomputed from the seed (and its checksum checked);
// the data position is (epoch, batch within the epoch); the running metric sums and the
// logs are restored as they were at the checkpoint, so logs written after it by a killed
// run are replaced. Torch's CPU kernels reduce in a fixed order for a fixed thread count,
// so the thread count is part of the fingerprint.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/common/deadline.h"

namespace draftbench {

inline constexpr const char* kTrainCheckpointFile = "checkpoint.bin";
inline constexpr const char* kTrainEpochLog = "train_epochs.jsonl";  // one JSON line per epoch
inline constexpr int kTrainCheckpointVersion = 1;

// Where a run stands between two optimiser steps.
struct TrainProgress {
  int epoch = 1;                                                   // the epoch in progress, 1-based
  int64_t batch = 0;                                               // batches of that epoch done
  int64_t step = 0;                                                // optimiser steps done, all epochs
  int64_t positions_trained = 0;                                   // summed over finished epochs
  double training_seconds = 0;                                     // training time of finished epochs (evaluation excluded)
  double epoch_seconds = 0;                                        // time spent in the epoch in progress
  double wall_seconds = 0;                                         // all pieces before this one
  int pieces = 1;                                                  // invocations so far, this one included
  nlohmann::json epoch_tally = nullptr, interval_tally = nullptr;  // MetricTally::state(); null = empty
  nlohmann::json log = nlohmann::json::object();                   // train_log.json as of this step
  nlohmann::json epochs = nlohmann::json::array();                 // the epoch records (train_epochs.jsonl lines)
  int best_epoch = 0;                                              // 0: none evaluated yet
  double best_valid_loss = 0;
  int epochs_since_best = 0;

  // Early stopping's bookkeeping after an epoch's evaluation: whether `valid_loss` is the
  // best so far (strictly lower; the first always is; NaN never is, unless first).
  bool note_validation(int finished_epoch, double valid_loss);

  nlohmann::json to_json() const;
  // Throws nlohmann::json::exception naming the missing or mistyped key.
  static TrainProgress from_json(const nlohmann::json& j);
};

struct TrainCheckpoint {
  nlohmann::json fingerprint;  // what must match for a resume (trainer.cpp's train_fingerprint)
  TrainProgress progress;
  std::string session_state;
};

std::string train_checkpoint_path(const std::string& out_dir);
// Atomically replaces `path`. Throws InputError naming it when it cannot be written.
void write_train_checkpoint(const std::string& path, const nlohmann::json& fingerprint, const TrainProgress& progress, const std::string& session_state);
// Throws InputError naming `path` and the part or field that is wrong: missing, not a
// checkpoint, truncated or corrupt (checksum), another version, a field missing.
TrainCheckpoint read_train_checkpoint(const std::string& path);
// Refuses a resume whose fingerprint differs from the checkpoint's: InputError naming `path`,
// the first differing field ("fingerprint.options.lr") and both values.
void check_resume_fingerprint(const std::string& path, const nlohmann::json& saved, const nlohmann::json& now);

// --- deadlines (parsing: engine/common/deadline.h) -----------------------------------------

// Whether the next chunk of work still fits before a deadline: one optimiser step, the
// evaluation and epoch export when the step ends an epoch, then a checkpoint. Each is
// estimated from what it took lately (steps: the slowest of the last 16), with a 25% margin
// and 2 s besides. Until an evaluation was timed it is estimated as `valid_batches` steps,
// more than its forward passes cost.
class DeadlineGuard {
 public:
  explicit DeadlineGuard(std::optional<WallClock::time_point> deadline) : deadline_(deadline) {}
  bool active() const { return deadline_.has_value(); }
  void step_took(double seconds);
  void evaluation_took(double seconds) { evaluation_ = seconds; }
  void checkpoint_took(double seconds) { checkpoint_ = seconds; }
  double next_chunk_seconds(bool ends_epoch, int64_t valid_batches) const;
  bool must_stop(bool ends_epoch, int64_t valid_batches, WallClock::time_point now) const;

 private:
  std::optional<WallClock::time_point> deadline_;
  double recent_[16] = {};
  size_t steps_seen_ = 0;
  double evaluation_ = -1, checkpoint_ = 0;
};

}  // namespace draftbench
