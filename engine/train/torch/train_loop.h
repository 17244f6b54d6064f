// The optimiser loop of train_drafter: trainer.cpp prepares the data, draft vocabulary,
// torch session and every epoch's batch order; this runs the epochs from where the run
// stands (a fresh start or a checkpoint), with the schedule, logs, per-epoch evaluation and
// export, checkpoints, the deadline and early stopping (train_checkpoint.h). torch-free.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/train/drafter_training.h"
#include "engine/train/torch/torch_backend.h"
#include "engine/train/torch/train_checkpoint.h"

namespace draftbench {

struct TrainLoopSetup {
  const TrainOptions& options;
  TorchSession& session;
  // Per epoch, its batches of training-split example indices (all drawn up front from the
  // seed, so a resumed run recomputes the same order).
  const std::vector<std::vector<std::vector<size_t>>>& epoch_batches;
  const std::vector<std::vector<size_t>>& valid_batches;
  int64_t total_steps = 0, warmup_steps = 0;
  nlohmann::json fingerprint;  // what a resume must match (trainer.cpp)
  // Fills `batch` with the examples `members` of the training (valid = false) or validation
  // split; returns how many examples it holds.
  std::function<int64_t(bool valid, const std::vector<size_t>& members)> prepare;
  const BackendBatch& batch;
  // Exports the session's current weights as a drafter into `dir`.
  std::function<void(const std::string& dir, int epochs_done)> export_to;
  std::function<void(const std::string&)> say;
};

struct TrainLoopOutcome {
  TrainProgress progress;  // where the run stands; its epoch records hold every epoch so far
  bool stopped = false;    // by the deadline or stop_after_steps: the checkpoint continues it
  std::string stop_reason;
  bool stopped_early = false;  // patience ran out
};

// Throws InputError for a resume that cannot continue (train_checkpoint.h) or a fresh start
// into a directory holding an unfinished run's checkpoint.
TrainLoopOutcome run_train_loop(const TrainLoopSetup& setup);

}  // namespace draftbench
