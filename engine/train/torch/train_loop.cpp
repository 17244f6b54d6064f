#include "engine/train/torch/train_loop.h"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <optional>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "engine/train/torch/training_log.h"

namespace draftbench {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Linear warm-up then cosine decay to 0 (HF's get_cosine_schedule_with_warmup, counting
// the first step as step 1 so it does not run at lr 0).
double scheduled_lr(double base, int64_t step, int64_t total, int64_t warmup) {
  if (step < warmup) return base * static_cast<double>(step + 1) / static_cast<double>(warmup);
  const double progress = static_cast<double>(step - warmup) / static_cast<double>(std::max<int64_t>(1, total - warmup));
  return base * 0.5 * (1.0 + std::cos(std::numbers::pi * std::min(1.0, progress)));
}

std::string accuracy_line(const std::vector<StepMetrics>& steps) {
  std::string s;
  for (const StepMetrics& m : steps) s += fmt::format(" {:.3f}/{:.3f}", m.top1, m.top3);
  return s;
}

class TrainLoop {
 public:
  explicit TrainLoop(const TrainLoopSetup& s)
      : s_(s), o_(s.options), guard_(s.options.deadline), n_(s.session.n_steps()), checkpoint_path_(train_checkpoint_path(o_.out_dir)) {}

  TrainLoopOutcome run() {
    start();
    auto patience_left = [&] { return o_.patience <= 0 || p_.epochs_since_best < o_.patience; };
    while (p_.epoch <= o_.epochs && p_.step < s_.total_steps && patience_left()) {
      if (!train_epoch()) return {p_, true, stop_reason_, false};
      finish_epoch();
    }
    const bool early = !patience_left() && p_.epoch <= o_.epochs && p_.step < s_.total_steps;  // epochs were left
    if (early)
      s_.say(fmt::format("early stop: no lower validation loss in {} epochs; the drafter is epoch {}'s (valid loss {:.4f})", o_.patience, p_.best_epoch,
                         p_.best_valid_loss));
    p_.wall_seconds = wall_base_ + seconds_since(run_start_);
    return {p_, false, "", early};
  }

 private:
  void start();
  void check_position() const;
  bool train_epoch();
  void finish_epoch();
  std::optional<std::string> stop_reason(bool ends_epoch) const;
  void log_interval(double lr);
  void save_checkpoint();
  void write_train_log() const { write_file_atomically((fs::path(o_.out_dir) / "train_log.json").string(), p_.log.dump(1) + "\n"); }
  void write_epoch_log() const {
    std::string lines;
    for (const nlohmann::json& record : p_.epochs) lines += record.dump() + "\n";
    write_file_atomically((fs::path(o_.out_dir) / kTrainEpochLog).string(), lines);
  }

  const TrainLoopSetup& s_;
  const TrainOptions& o_;
  DeadlineGuard guard_;
  const int64_t n_;  // draft steps or heads the metrics count
  const std::string checkpoint_path_;
  TrainProgress p_;
  MetricTally epoch_tally_, interval_;
  Clock::time_point run_start_, epoch_start_, interval_start_, last_checkpoint_;
  double wall_base_ = 0, epoch_base_ = 0;  // seconds of earlier pieces: the run's, the epoch's
  std::array<double, 4> time_split_{};     // prepare, forward, backward, optimizer
  int64_t steps_this_run_ = 0;
  std::string stop_reason_;
};

// A fresh run, or the checkpoint's state restored; logs rewritten to match it (a killed
// piece may have logged steps past its last checkpoint).
void TrainLoop::start() {
  const Clock::time_point t = Clock::now();
  if (o_.resume) {
    if (!fs::exists(checkpoint_path_))
      throw InputError(checkpoint_path_, "",
                       "missing: nothing to resume (expected the checkpoint of an unfinished run in this --out; a finished run removes it)");
    TrainCheckpoint c = read_train_checkpoint(checkpoint_path_);
    check_resume_fingerprint(checkpoint_path_, c.fingerprint, s_.fingerprint);
    std::string error;
    if (!s_.session.load_state(c.session_state, &error))
      throw InputError(checkpoint_path_, "session state", fmt::format("{} (expected the state of a {} session with these options)", error, o_.drafter));
    p_ = std::move(c.progress);
    check_position();
    try {
      epoch_tally_ = MetricTally::from_state(p_.epoch_tally, n_);
      interval_ = MetricTally::from_state(p_.interval_tally, n_);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(checkpoint_path_, "field 'progress.epoch_tally'", fmt::format("{} (expected the sums this version writes)", e.what()));
    }
    ++p_.pieces;
    guard_.checkpoint_took(seconds_since(t));  // reading one costs about what writing one does
    s_.say(fmt::format("resumed {} at step {}/{} (epoch {}, batch {}), piece {}", checkpoint_path_, p_.step, s_.total_steps, p_.epoch, p_.batch, p_.pieces));
  } else {
    if (fs::exists(checkpoint_path_))
      throw InputError(checkpoint_path_, "", "holds an unfinished run's checkpoint (expected --resume to continue it, or delete the file to start over)");
    p_.log = {{"drafter", o_.drafter}, {"entries", nlohmann::json::array()}, {"epochs", nlohmann::json::array()}};
    epoch_tally_ = interval_ = MetricTally(n_);
  }
  write_train_log();
  write_epoch_log();
  run_start_ = epoch_start_ = interval_start_ = last_checkpoint_ = Clock::now();
  wall_base_ = p_.wall_seconds;
  epoch_base_ = p_.epoch_seconds;
  if (!o_.resume) save_checkpoint();  // a run that started can be resumed; times a checkpoint for the deadline
}

// A resumed position inside this run's schedule (the checksum vouches for the bytes, not for
// who wrote them).
void TrainLoop::check_position() const {
  auto check = [&](const char* field, int64_t value, int64_t lo, int64_t hi) {
    if (value < lo || value > hi)
      throw InputError(checkpoint_path_, fmt::format("field 'progress.{}'", field), fmt::format("{} (expected {}..{} for this run's schedule)", value, lo, hi));
  };
  check("epoch", p_.epoch, 1, o_.epochs + 1);
  check("batch", p_.batch, 0, p_.epoch <= o_.epochs ? static_cast<int64_t>(s_.epoch_batches[static_cast<size_t>(p_.epoch - 1)].size()) : 0);
  check("step", p_.step, 0, s_.total_steps);
}

// The epoch's remaining batches; false when the run stops first (checkpoint written).
bool TrainLoop::train_epoch() {
  const std::vector<std::vector<size_t>>& batches = s_.epoch_batches[static_cast<size_t>(p_.epoch - 1)];
  const auto n_batches = static_cast<int64_t>(batches.size());
  while (p_.batch < n_batches && p_.step < s_.total_steps) {
    const bool ends_epoch = p_.batch + 1 == n_batches || p_.step + 1 == s_.total_steps;
    if (std::optional<std::string> why = stop_reason(ends_epoch)) {
      stop_reason_ = *why;
      save_checkpoint();
      return false;
    }
    const Clock::time_point step_start = Clock::now();
    const double lr = scheduled_lr(o_.lr, p_.step, s_.total_steps, s_.warmup_steps);
    const int64_t examples = s_.prepare(false, batches[static_cast<size_t>(p_.batch)]);
    time_split_[0] += seconds_since(step_start);
    const BatchReport report = s_.session.train_step(s_.batch, lr);
    time_split_[1] += report.forward_seconds;
    time_split_[2] += report.backward_seconds;
    time_split_[3] += report.optimizer_seconds;
    ++p_.step;
    ++p_.batch;
    ++steps_this_run_;
    epoch_tally_.add(report.steps, report.extra_sums, report.loss, examples);
    interval_.add(report.steps, report.extra_sums, report.loss, examples);
    guard_.step_took(seconds_since(step_start));
    if (p_.step % o_.log_every == 0 || p_.step == s_.total_steps) log_interval(lr);
    if (!ends_epoch && seconds_since(last_checkpoint_) >= o_.checkpoint_every) save_checkpoint();
  }
  return true;
}

std::optional<std::string> TrainLoop::stop_reason(bool ends_epoch) const {
  if (o_.stop_after_steps > 0 && steps_this_run_ >= o_.stop_after_steps) return fmt::format("after {} steps (--stop-after-steps)", steps_this_run_);
  if (const int signal = o_.stop_signal ? o_.stop_signal->load() : 0)
    return fmt::format("on {}", signal == SIGTERM ? "SIGTERM" : signal == SIGINT ? "SIGINT" : fmt::format("signal {}", signal));
  const auto valid_batches = static_cast<int64_t>(s_.valid_batches.size());
  if (guard_.must_stop(ends_epoch, valid_batches, WallClock::now()))
    return fmt::format("for the deadline {} (the next step{} and a checkpoint need about {:.0f} s)", iso_utc(*o_.deadline),
                       ends_epoch ? " with the epoch's evaluation" : "", guard_.next_chunk_seconds(ends_epoch, valid_batches));
  return std::nullopt;
}

void TrainLoop::log_interval(double lr) {
  const double elapsed = seconds_since(interval_start_);
  nlohmann::json entry = interval_.to_json();
  entry["step"] = p_.step;
  entry["epoch"] = p_.epoch;
  entry["lr"] = lr;
  entry["positions_per_second"] = static_cast<double>(interval_.examples()) / std::max(elapsed, 1e-9);
  // Where the interval's time went: batch assembly (engine side: F16 features,
  // embeddings), forward with loss and metrics, backward, clipping + AdamW.
  entry["seconds"] = {
      {"total", elapsed}, {"prepare", time_split_[0]}, {"forward", time_split_[1]}, {"backward", time_split_[2]}, {"optimizer", time_split_[3]}};
  time_split_ = {};
  p_.log["entries"].push_back(entry);
  write_train_log();
  s_.say(fmt::format("step {}/{} epoch {} lr {:.2e} loss {:.4f} top1/top3{} | {:.0f} positions/s", p_.step, s_.total_steps, p_.epoch, lr, interval_.loss(),
                     accuracy_line(interval_.step_metrics()), entry["positions_per_second"].get<double>()));
  interval_ = MetricTally(n_);
  interval_start_ = Clock::now();
}

// Held-out evaluation, the epoch's record and export, early stopping's bookkeeping, then a
// checkpoint at the start of the next epoch.
void TrainLoop::finish_epoch() {
  const double train_seconds = epoch_base_ + seconds_since(epoch_start_);
  p_.training_seconds += train_seconds;
  p_.positions_trained += epoch_tally_.examples();
  const Clock::time_point evaluation_start = Clock::now();
  MetricTally valid(n_);
  for (const std::vector<size_t>& members : s_.valid_batches) {
    const int64_t examples = s_.prepare(true, members);
    const BatchReport report = s_.session.evaluate(s_.batch);
    valid.add(report.steps, report.extra_sums, report.loss, examples);
  }
  const EpochSummary summary{
      p_.epoch, epoch_tally_.loss(), valid.loss(), epoch_tally_.step_metrics(), valid.step_metrics(), train_seconds + seconds_since(evaluation_start)};
  const bool best = p_.note_validation(p_.epoch, summary.valid_loss);
  const nlohmann::json record = epoch_record(o_.drafter, p_.step, epoch_tally_, valid, summary, best);
  p_.epochs.push_back(record);
  p_.log["epochs"].push_back(record);
  write_train_log();
  write_epoch_log();
  s_.export_to((fs::path(o_.out_dir) / fmt::format("epoch-{}", p_.epoch)).string(), p_.epoch);
  guard_.evaluation_took(seconds_since(evaluation_start));
  s_.say(fmt::format("epoch {}: train loss {:.4f} top1/top3{} | valid loss {:.4f} top1/top3{}{} | {:.0f} s", p_.epoch, summary.train_loss,
                     accuracy_line(summary.train_steps), summary.valid_loss, accuracy_line(summary.valid_steps), best ? " (best)" : "", summary.seconds));
  ++p_.epoch;
  p_.batch = 0;
  epoch_tally_ = MetricTally(n_);
  epoch_base_ = 0;
  epoch_start_ = Clock::now();
  save_checkpoint();
}

void TrainLoop::save_checkpoint() {
  const Clock::time_point t = Clock::now();
  p_.epoch_tally = epoch_tally_.state();
  p_.interval_tally = interval_.state();
  p_.epoch_seconds = epoch_base_ + seconds_since(epoch_start_);
  p_.wall_seconds = wall_base_ + seconds_since(run_start_);
  write_train_checkpoint(checkpoint_path_, s_.fingerprint, p_, s_.session.save_state());
  guard_.checkpoint_took(seconds_since(t));
  last_checkpoint_ = Clock::now();
}

}  // namespace

TrainLoopOutcome run_train_loop(const TrainLoopSetup& setup) { return TrainLoop(setup).run(); }

}  // namespace draftbench
