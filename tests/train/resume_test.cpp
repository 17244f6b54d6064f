// Long training runs (engine/train/torch/train_checkpoint.h): a run stopped at a checkpoint
// (by --stop-after-steps, a deadline, or a kill simulated by an exception after the
// checkpoint) and resumed exports byte-identical weights and the same logs as an unbroken
// run; the per-epoch JSON lines; early stopping keeps the best epoch; a resume that does not
// fit its checkpoint is refused naming the file and the field.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "engine/common/error.h"
#include "engine/train/drafter_training.h"
#include "engine/train/torch/train_checkpoint.h"
#include "tests/train/train_fixtures.h"

using namespace draftbench;
using namespace draftbench::test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// A run's outputs with the wall-clock fields taken out: what must not differ between an
// unbroken run and a resumed one.
struct RunOutputs {
  std::string weights, config;
  nlohmann::json log, epochs, result;
};

nlohmann::json without_times(nlohmann::json j) {
  if (j.is_object()) {
    for (const char* key : {"seconds", "positions_per_second", "wall_seconds", "training_seconds", "pieces", "command_line"}) j.erase(key);
    for (auto& [key, value] : j.items()) value = without_times(value);
  } else if (j.is_array()) {
    for (auto& value : j) value = without_times(value);
  }
  return j;
}

RunOutputs outputs_of(const std::string& out) {
  RunOutputs r;
  r.weights = file_bytes(out + "/model.safetensors");
  r.config = file_bytes(out + "/drafter.json");
  r.log = without_times(read_json(out + "/train_log.json"));
  std::istringstream lines(file_bytes(out + "/" + kTrainEpochLog));
  r.epochs = nlohmann::json::array();
  for (std::string line; std::getline(lines, line);) r.epochs.push_back(without_times(nlohmann::json::parse(line)));
  r.result = without_times(read_json(out + "/train_result.json"))["provenance"];
  return r;
}

void check_same(const RunOutputs& a, const RunOutputs& b) {
  REQUIRE(!a.weights.empty());
  CHECK(a.weights == b.weights);
  CHECK(a.config == b.config);
  CHECK(a.log == b.log);
  CHECK(a.epochs == b.epochs);
  CHECK(a.result == b.result);
}

// Resumes the run in `o.out_dir` to its end, unhindered, and holds it against `unbroken`'s.
void resume_and_compare(TrainOptions o, const std::string& unbroken) {
  o.resume = true;
  o.progress = nullptr;
  o.deadline.reset();
  o.stop_after_steps = 0;
  CHECK(!train_drafter(o).stopped);
  check_same(outputs_of(unbroken), outputs_of(o.out_dir));
}

// Small runs: 3 epochs of a few steps each, a checkpoint after every step.
TrainOptions small_run(const TrainSetup& s, const std::string& drafter, const std::string& out) {
  TrainOptions o = s.options(drafter, out);
  o.epochs = 3;
  o.batch_size = 96;
  o.seed = 7;
  o.checkpoint_every = 0;
  return o;
}

}  // namespace

TEST_CASE("resume: stopped twice and resumed, a run exports the bytes and logs of an unbroken one", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("resume_identity");
  for (const char* drafter : {"redrafter", "medusa", "eagle"}) {
    INFO(drafter);
    TrainOptions o = small_run(s, drafter, std::string(drafter) + "_unbroken");
    if (std::string(drafter) == "eagle") o.threads = 2;  // EAGLE: noise from torch's generator, two threads
    const TrainResult unbroken = train_drafter(o);
    REQUIRE(unbroken.total_steps >= 6);
    CHECK(!fs::exists(train_checkpoint_path(o.out_dir)));  // a finished run removes it

    o.out_dir = s.dir / (std::string(drafter) + "_pieces");
    o.stop_after_steps = 2;  // mid-epoch
    TrainResult piece = train_drafter(o);
    CHECK(piece.stopped);
    CHECK_THAT(piece.stop_reason, Contains("--stop-after-steps"));
    CHECK(piece.optimizer_steps == 2);
    CHECK(fs::exists(piece.checkpoint));
    CHECK(!fs::exists(o.out_dir + "/model.safetensors"));
    o.resume = true;
    o.stop_after_steps = unbroken.total_steps / 3;  // across an epoch boundary
    piece = train_drafter(o);
    CHECK(piece.stopped);
    CHECK(piece.optimizer_steps == 2 + unbroken.total_steps / 3);
    resume_and_compare(o, s.dir / (std::string(drafter) + "_unbroken"));
    CHECK(read_json(o.out_dir + "/train_result.json")["provenance"]["pieces"] == 3);
  }
}

TEST_CASE("resume: a run killed after a checkpoint resumes from it, dropping what it logged later", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("resume_kill");
  TrainOptions o = small_run(s, "redrafter", "unbroken");
  train_drafter(o);
  o.out_dir = s.dir / "killed";
  const std::string checkpoint = train_checkpoint_path(o.out_dir), saved = s.dir / "saved.bin";
  // Checkpoints follow each step's log line: at step 3's line the file holds step 2's.
  o.progress = [&](const std::string& line) {
    if (line.starts_with("step 3/")) fs::copy_file(checkpoint, saved);
    if (line.starts_with("step 5/")) throw std::runtime_error("killed");
  };
  CHECK_THROWS_WITH(train_drafter(o), "killed");
  fs::copy_file(saved, checkpoint, fs::copy_options::overwrite_existing);
  CHECK(read_json(o.out_dir + "/train_log.json")["entries"].size() == 5);  // logged past the checkpoint
  resume_and_compare(o, s.dir / "unbroken");
}

TEST_CASE("resume: a stop signal (SIGTERM) ends the run safely after the step under way", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("resume_signal");
  TrainOptions o = small_run(s, "medusa", "unbroken");
  train_drafter(o);
  o.out_dir = s.dir / "signalled";
  std::atomic<int> signal{0};
  o.stop_signal = &signal;
  o.progress = [&](const std::string& line) {
    if (line.starts_with("step 3/")) signal = SIGTERM;  // as the CLI's handler would, mid-run
  };
  const TrainResult stopped = train_drafter(o);
  CHECK(stopped.stopped);
  CHECK(stopped.optimizer_steps == 3);
  CHECK_THAT(stopped.stop_reason, Contains("SIGTERM"));
  CHECK(fs::exists(stopped.checkpoint));
  o.stop_signal = nullptr;
  resume_and_compare(o, s.dir / "unbroken");
}

TEST_CASE("resume: a deadline stops the run safely, and the resumed run finishes it", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("resume_deadline");
  TrainOptions o = small_run(s, "medusa", "unbroken");
  o.deadline = WallClock::now() + std::chrono::hours(1);  // far away: no effect
  const TrainResult unbroken = train_drafter(o);
  CHECK(!unbroken.stopped);
  o.out_dir = s.dir / "deadline";
  o.deadline = WallClock::now();  // no step fits: the checkpoint is the initial state
  const TrainResult stopped = train_drafter(o);
  CHECK(stopped.stopped);
  CHECK_THAT(stopped.stop_reason, Contains("deadline") && Contains("T"));
  CHECK(stopped.optimizer_steps == 0);
  resume_and_compare(o, s.dir / "unbroken");
}

TEST_CASE("resume: train_epochs.jsonl has a line per epoch with validation top-1/top-3 per head", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("resume_epoch_log");
  const TrainOptions o = small_run(s, "medusa", "out");
  train_drafter(o);
  const RunOutputs r = outputs_of(o.out_dir);
  REQUIRE(r.epochs.size() == 3);
  for (size_t e = 0; e < 3; ++e) {
    const nlohmann::json& line = r.epochs[e];
    CHECK(line["epoch"] == e + 1);
    CHECK(line["per"] == "head");
    REQUIRE(line["valid_top1"].size() == 3);
    REQUIRE(line["valid_top3"].size() == 3);
    for (size_t h = 0; h < 3; ++h) CHECK(line["valid_top1"][h].get<double>() <= line["valid_top3"][h].get<double>());
    CHECK(line["train"]["loss"].is_number());
    CHECK(line["valid"]["loss"].is_number());
  }
  CHECK(r.log["epochs"] == r.epochs);
}

TEST_CASE("resume: early stopping ends after `patience` epochs without a better validation loss and keeps the best", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("resume_patience");
  TrainOptions o = s.options("medusa", "out");
  o.epochs = 8;
  o.lr = 0.5;  // far too high: validation loss does not fall steadily
  o.warmup = 0;
  o.patience = 1;
  const TrainResult r = train_drafter(o);
  REQUIRE(r.best_epoch > 0);
  int best = 1;
  for (size_t e = 0; e < r.epochs.size(); ++e)
    if (r.epochs[e].valid_loss < r.epochs[static_cast<size_t>(best - 1)].valid_loss) best = static_cast<int>(e) + 1;
  CHECK(r.best_epoch == best);
  CHECK(r.stopped_early == (r.epochs.size() < 8u));
  CHECK(r.stopped_early);  // this seed's trajectory does stop early
  CHECK(file_bytes(o.out_dir + "/model.safetensors") == file_bytes(o.out_dir + "/epoch-" + std::to_string(best) + "/model.safetensors"));
  CHECK(read_json(o.out_dir + "/train_result.json")["provenance"]["exported_epoch"] == best);
}

TEST_CASE("resume: a checkpoint that is missing, corrupt or from other options or data is refused by name", "[train]") {
  SKIP_WITHOUT_TORCH();
  TrainSetup s("resume_errors");
  TrainOptions o = small_run(s, "redrafter", "out");
  o.resume = true;
  CHECK_THROWS_WITH(train_drafter(o), Contains("checkpoint.bin") && Contains("nothing to resume"));
  o.resume = false;
  o.stop_after_steps = 1;
  REQUIRE(train_drafter(o).stopped);
  const std::string checkpoint = train_checkpoint_path(o.out_dir), good = file_bytes(checkpoint);
  o.stop_after_steps = 0;
  CHECK_THROWS_WITH(train_drafter(o), Contains("checkpoint.bin") && Contains("--resume"));  // a fresh run would overwrite it
  o.resume = true;
  TrainOptions other = o;
  other.lr = 2e-2;
  CHECK_THROWS_WITH(train_drafter(other), Contains("checkpoint.bin") && Contains("fingerprint.options.lr") && Contains("0.01"));
  other = o;
  other.threads = 2;
  CHECK_THROWS_WITH(train_drafter(other), Contains("fingerprint.options.threads"));
  SyntheticCorpus corpus;
  corpus.seed = 12;
  write_synthetic_distill(*s.model, s.model_path, s.dir / "other_data", corpus);
  other = o;
  other.data_dirs = {s.dir / "other_data"};
  CHECK_THROWS_WITH(train_drafter(other), Contains("fingerprint.data_manifest_sha256"));
  auto write = [&](const std::string& bytes) { std::ofstream(checkpoint, std::ios::binary | std::ios::trunc) << bytes; };
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 1;
  write(flipped);
  CHECK_THROWS_WITH(train_drafter(o), Contains("checkpoint.bin") && Contains("checksum"));
  write(good.substr(0, good.size() - 100));
  CHECK_THROWS_WITH(train_drafter(o), Contains("checkpoint.bin") && Contains("checksum"));
  write("not a checkpoint at all");
  CHECK_THROWS_WITH(train_drafter(o), Contains("checkpoint.bin") && Contains("magic"));
  write(good);
  TrainCheckpoint forged = read_train_checkpoint(checkpoint);  // whole, but placed outside the schedule
  forged.progress.epoch = 9;
  write_train_checkpoint(checkpoint, forged.fingerprint, forged.progress, forged.session_state);
  CHECK_THROWS_WITH(train_drafter(o), Contains("checkpoint.bin") && Contains("progress.epoch") && Contains("1..4"));
  forged.progress.epoch = 1;
  forged.session_state.resize(forged.session_state.size() / 2);
  write_train_checkpoint(checkpoint, forged.fingerprint, forged.progress, forged.session_state);
  CHECK_THROWS_WITH(train_drafter(o), Contains("checkpoint.bin") && Contains("session state") && Contains("truncated"));
  write(good);
  CHECK(!train_drafter(o).stopped);  // the good one still resumes
}

TEST_CASE("resume: --deadline takes an ISO time or a duration, and the guard stops when the next chunk may not fit", "[train]") {
  const WallClock::time_point now = WallClock::from_time_t(1'800'000'000);  // 2027-01-15T08:00:00Z
  CHECK(iso_utc(now) == "2027-01-15T08:00:00Z");
  CHECK(parse_deadline("90m", now) == now + std::chrono::minutes(90));
  CHECK(parse_deadline("2.5h", now) == now + std::chrono::minutes(150));
  CHECK(parse_deadline("5400", now) == now + std::chrono::seconds(5400));
  CHECK(iso_utc(parse_deadline("2027-01-15T10:30:00Z", now)) == "2027-01-15T10:30:00Z");
  CHECK(iso_utc(parse_deadline("2027-01-15 10:30", now)) == "2027-01-15T10:30:00Z");
  CHECK(iso_utc(parse_deadline("2027-01-15T11:30:00+01:00", now)) == "2027-01-15T10:30:00Z");
  CHECK_THROWS_WITH(parse_deadline("2027-01-15T07:00:00Z", now), Contains("--deadline") && Contains("in the past"));
  CHECK_THROWS_WITH(parse_deadline("2027-02-30T10:00:00Z", now), Contains("--deadline") && Contains("not a valid date"));
  CHECK_THROWS_WITH(parse_deadline("tomorrow", now), Contains("--deadline") && Contains("'tomorrow'") && Contains("90m"));
  CHECK_THROWS_WITH(parse_deadline("0", now), Contains("not a positive duration"));

  DeadlineGuard guard(now + std::chrono::seconds(100));
  guard.checkpoint_took(4);
  for (int i = 0; i < 20; ++i) guard.step_took(i == 3 ? 10.0 : 1.0);  // the slow step has left the window
  CHECK(guard.next_chunk_seconds(false, 50) == Approx(1.25 * (1 + 4) + 2));
  CHECK(guard.next_chunk_seconds(true, 50) == Approx(1.25 * (1 + 4 + 50) + 2));  // evaluation not timed yet: 50 steps
  guard.evaluation_took(20);
  CHECK(guard.next_chunk_seconds(true, 50) == Approx(1.25 * (1 + 4 + 20) + 2));
  CHECK(!guard.must_stop(false, 50, now + std::chrono::seconds(90)));
  CHECK(guard.must_stop(false, 50, now + std::chrono::seconds(93)));
  CHECK(guard.must_stop(true, 50, now + std::chrono::seconds(80)));
  CHECK(!DeadlineGuard(std::nullopt).must_stop(true, 50, now));
}

TEST_CASE("resume: early stopping's bookkeeping, NaN losses included, survives a checkpoint's JSON", "[train]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  TrainProgress p;
  CHECK(p.note_validation(1, nan));  // the first epoch is the best so far, whatever it scored
  CHECK(p.note_validation(2, 3.0));  // anything beats NaN
  CHECK(!p.note_validation(3, nan));
  CHECK(!p.note_validation(4, 3.0));  // not strictly lower
  CHECK(p.epochs_since_best == 2);
  CHECK(p.note_validation(5, 2.5));
  CHECK(p.best_epoch == 5);
  p.best_valid_loss = nan;
  const TrainProgress q = TrainProgress::from_json(nlohmann::json::parse(p.to_json().dump()));  // NaN is written as null
  CHECK(std::isnan(q.best_valid_loss));
  CHECK(q.best_epoch == 5);
}
