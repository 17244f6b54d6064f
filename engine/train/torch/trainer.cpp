// train_drafter: data, draft vocabulary, the AdamW loop with a warm-up + cosine schedule,
// logs, per-epoch checkpoints and the final export (drafter_training.h).
//
// Recipe defaults and where they come from (the public ReDrafter, Medusa and EAGLE
// trainers; table in engine/DESIGN.md §7):
//   - AdamW, lr 1e-3, cosine decay to 0 after a 10% linear warm-up, 2 epochs: ReDrafter's
//     and Medusa's recipe. Weight decay 0 (both train under HF Trainer's default).
//     betas (0.9, 0.999) for ReDrafter and Medusa, (0.9, 0.95) for EAGLE (its recipe).
//   - Gradient clipping: global norm 1.0 for ReDrafter and Medusa (HF Trainer's
//     max_grad_norm), per-value 0.5 for EAGLE (its grad_clip).
//   - lr 1e-3 for EAGLE too (its own recipe: 3e-5 over 20 epochs; --lr overrides).
//   - Batches of 256 positions (EAGLE: whole sequences up to 256 pairs, at least one).
//   - Losses: unweighted sums over draft steps/heads of per-step mean cross-entropy;
//     EAGLE 1.0 * SmoothL1 + 0.1 * soft cross-entropy (drafter_nets.h).
// Determinism: one seed drives torch's generator (init, EAGLE's noise) and the example
// order (seeded_shuffle). With the same thread count the CPU kernels reduce in a fixed
// order, so the same seed exports byte-identical weights (tests/train/trainer_test.cpp).
#include <fmt/format.h>

#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <thread>

#include "engine/common/error.h"
#include "engine/common/sha256.h"
#include "engine/drafters/drafter_checkpoint.h"
#include "engine/drafters/drafter_registry.h"
#include "engine/model/model.h"
#include "engine/model/safetensors_writer.h"
#include "engine/train/drafter_training.h"
#include "engine/train/torch/draft_target.h"
#include "engine/train/torch/torch_backend.h"
#include "engine/train/torch/training_log.h"

namespace draftbench {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int64_t kMaxValidExamples = 16384;  // the held-out slice evaluated per epoch

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void check_options(const TrainOptions& o) {
  auto bad = [](const char* option, const std::string& problem) { throw InputError("train", fmt::format("option '{}'", option), problem); };
  if (const DrafterKind* k = find_drafter_kind(o.drafter); !k || !k->training)
    bad("--drafter", fmt::format("'{}' is not trainable (expected one of {})", o.drafter, trainable_drafters()));
  if (o.data_dir.empty()) bad("--data", "missing (expected a `draftbench distill` output directory)");
  if (o.out_dir.empty()) bad("--out", "missing (expected a directory to write the drafter to)");
  if (o.labels != "distilled" && o.labels != "ground_truth") bad("--labels", fmt::format("'{}' (expected distilled or ground_truth)", o.labels));
  if (o.dtype != "f16" && o.dtype != "f32") bad("--dtype", fmt::format("'{}' (expected f16 or f32)", o.dtype));
  if (o.epochs < 1 || o.epochs > 1000) bad("--epochs", fmt::format("{} (expected 1..1000)", o.epochs));
  if (!(o.lr > 0 && o.lr < 1)) bad("--lr", fmt::format("{} (expected 0 < lr < 1)", o.lr));
  if (o.batch_size < 0) bad("--batch-size", fmt::format("{} (expected > 0, or 0 for the default)", o.batch_size));
  if (o.draft_steps < 1 || o.draft_steps > 64) bad("--draft-steps", fmt::format("{} (expected 1..64)", o.draft_steps));
  if (o.medusa_heads < 1 || o.medusa_heads > 64) bad("--heads", fmt::format("{} (expected 1..64)", o.medusa_heads));
  if (o.num_layers < 0 || o.num_layers > 64) bad("--num-layers", fmt::format("{} (expected 0..64)", o.num_layers));
  if (o.draft_vocab < 1) bad("--draft-vocab", fmt::format("{} (expected >= 1)", o.draft_vocab));
  if (!(o.warmup >= 0 && o.warmup < 1)) bad("--warmup", fmt::format("{} (expected a share in [0, 1))", o.warmup));
  if (!(o.weight_decay >= 0)) bad("--weight-decay", fmt::format("{} (expected >= 0)", o.weight_decay));
  if (!(o.valid_fraction >= 0 && o.valid_fraction < 1)) bad("--valid-fraction", fmt::format("{} (expected a share in [0, 1))", o.valid_fraction));
  if (o.max_sequence_length < 2) bad("--max-sequence-length", fmt::format("{} (expected >= 2)", o.max_sequence_length));
  if (o.log_every < 1) bad("--log-every", fmt::format("{} (expected >= 1)", o.log_every));
}

bool fast_blas(const std::string& path) {
  for (const char* name : {"openblas", "mkl", "blis", "atlas"})
    if (path.find(name) != std::string::npos) return true;
  return path.empty();  // none loaded: linked into torch, not the reference BLAS
}

// Linear warm-up then cosine decay to 0 (HF's get_cosine_schedule_with_warmup, counting
// the first step as step 1 so it does not run at lr 0).
double scheduled_lr(double base, int64_t step, int64_t total, int64_t warmup) {
  if (step < warmup) return base * static_cast<double>(step + 1) / static_cast<double>(warmup);
  const double progress = static_cast<double>(step - warmup) / static_cast<double>(std::max<int64_t>(1, total - warmup));
  return base * 0.5 * (1.0 + std::cos(std::numbers::pi * std::min(1.0, progress)));
}

std::string accuracy_line(const std::vector<StepMetrics>& steps) {
  std::string s;
  for (const StepMetrics& m : steps) s += fmt::format(" {:.3f}/{:.3f}", m.top1, m.top5);
  return s;
}

// The examples of one split, as batches: position drafters batch positions; EAGLE batches
// whole sequences, closing a batch once it holds batch_size pairs.
struct Split {
  std::vector<CorpusPosition> positions;
  std::vector<uint32_t> sequences;
  std::vector<int64_t> sequence_pairs;  // per entry of `sequences`
  int64_t examples = 0;                 // positions, or trained pairs

  std::vector<std::vector<size_t>> batches(int64_t batch_size, std::mt19937_64* rng) const {
    const size_t n = positions.empty() ? sequences.size() : positions.size();
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    if (rng) seeded_shuffle(order, *rng);
    std::vector<std::vector<size_t>> out;
    int64_t filled = 0;
    for (size_t i : order) {
      if (out.empty() || filled >= batch_size) {
        out.emplace_back();
        filled = 0;
      }
      out.back().push_back(i);
      filled += positions.empty() ? sequence_pairs[i] : 1;
    }
    return out;
  }
};

Split make_split(const TrainingCorpus& corpus, const std::vector<uint32_t>& sequences, bool by_sequence, LabelSource source,
                 int64_t max_examples, int64_t max_length) {
  Split split;
  if (!by_sequence) {
    split.positions = corpus.positions(sequences, source);
    if (max_examples > 0 && static_cast<int64_t>(split.positions.size()) > max_examples) split.positions.resize(static_cast<size_t>(max_examples));
    split.examples = static_cast<int64_t>(split.positions.size());
    return split;
  }
  for (uint32_t si : sequences) {
    if (max_examples > 0 && split.examples >= max_examples) break;
    const int64_t trained = corpus.trained_pairs(si, max_length);
    if (trained == 0) continue;  // nothing to learn; its pairs would only cost time
    split.sequences.push_back(si);
    split.sequence_pairs.push_back(std::min(corpus.sequences()[si].length(), max_length) - 1);
    split.examples += trained;
  }
  return split;
}

}  // namespace

const char* trainable_drafters() {
  static const std::string names = trainable_kinds();
  return names.c_str();
}

TrainResult train_drafter(const TrainOptions& o) {
  check_options(o);
  const Clock::time_point start = Clock::now();
  auto say = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };
  const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  // --- data and target --------------------------------------------------------------------
  const DistillData data(o.data_dir, o.verify_checksums);
  const std::string manifest_path = (fs::path(o.data_dir) / kDistillManifest).string();
  const std::string manifest_sha256 = sha256_file(manifest_path);
  const std::unique_ptr<Model> model = Model::load(o.model_path);
  const ModelConfig& mc = model->config();
  if (data.n_embd() != mc.n_embd)
    throw InputError(manifest_path, "field 'target.n_embd'", fmt::format("{} does not match the model's hidden size {} ({})", data.n_embd(), mc.n_embd, o.model_path));
  const nlohmann::json& target_info = data.manifest().at("target");
  if (target_info.contains("n_vocab") && target_info["n_vocab"].is_number_integer() && target_info["n_vocab"].get<int64_t>() != mc.n_vocab)
    throw InputError(manifest_path, "field 'target.n_vocab'",
                     fmt::format("{} does not match the model's vocabulary {} ({})", target_info["n_vocab"].get<int64_t>(), mc.n_vocab, o.model_path));
  std::string model_sha256;
  if (fs::is_regular_file(o.model_path) && target_info.contains("sha256") && target_info["sha256"].is_string()) {
    model_sha256 = sha256_file(o.model_path);
    if (model_sha256 != target_info["sha256"].get<std::string>())
      throw InputError(manifest_path, "field 'target.sha256'", fmt::format("differs from {}'s (the data was distilled from another model)", o.model_path));
  }

  const TrainingNet& net = *find_drafter_kind(o.drafter)->training;
  const bool eagle = net.features;
  const LabelSource source = o.labels == "distilled" ? LabelSource::distilled : LabelSource::ground_truth;
  const int64_t steps = net.steps == TrainingNet::Steps::draft_steps ? o.draft_steps : net.steps == TrainingNet::Steps::heads ? o.medusa_heads : 1;
  if (!eagle && source == LabelSource::distilled && steps > data.continuation_length() - 1)
    throw InputError(manifest_path, "field 'settings.continuation_length'",
                     fmt::format("{} gives {} distilled labels per position; {} {} needs {} (distill with --draft-steps {} or more, or train on ground_truth labels)",
                                 data.continuation_length(), data.continuation_length() - 1, o.drafter, net.steps == TrainingNet::Steps::heads ? "--heads" : "--draft-steps",
                                 steps, steps));
  const TrainingCorpus corpus(data, o.valid_fraction);

  // --- draft vocabulary -------------------------------------------------------------------
  const std::vector<int64_t> counts = corpus.response_token_counts(corpus.train_sequences(), mc.n_vocab);
  const std::vector<int32_t> vocab = choose_draft_vocab(counts, o.draft_vocab, model->tokenizer().stop_ids());
  int64_t responses = 0, covered = 0;
  for (int64_t c : counts) responses += c;
  for (int32_t id : vocab) covered += counts[static_cast<size_t>(id)];
  const double response_coverage = responses ? static_cast<double>(covered) / static_cast<double>(responses) : 0.0;
  const DraftTarget target(*model, vocab);
  say(fmt::format("draft vocabulary: {} tokens (asked {}), {:.2f}% of the {} response tokens", vocab.size(), o.draft_vocab, 100 * response_coverage, responses));

  // --- examples ---------------------------------------------------------------------------
  const Split train = make_split(corpus, corpus.train_sequences(), eagle, source, o.max_positions, o.max_sequence_length);
  const Split valid = make_split(corpus, corpus.valid_sequences(), eagle, source, kMaxValidExamples, o.max_sequence_length);
  if (train.examples == 0) throw InputError(o.data_dir, "shards", "hold no trained positions in the training split (expected responses to learn)");
  double label_coverage = response_coverage;
  if (!eagle) {  // every step label, as the loss sees them
    int64_t labels = 0, inside = 0;
    int32_t root = 0;
    std::vector<int32_t> step_labels(static_cast<size_t>(steps));
    for (const CorpusPosition& p : train.positions) {
      corpus.labels(p, source, steps, &root, step_labels.data());
      for (int32_t l : step_labels)
        if (l >= 0) {
          ++labels;
          inside += target.draft_index(l) >= 0;
        }
    }
    label_coverage = labels ? static_cast<double>(inside) / static_cast<double>(labels) : 0.0;
  }

  // --- the torch session: net, AdamW, clipping ---------------------------------------------
  SessionSpec spec;
  spec.kind = net.net;
  spec.steps = steps;
  spec.layers = o.num_layers > 0 ? o.num_layers : net.default_layers;
  spec.eagle = target.eagle_layer();
  spec.eagle_noise = o.eagle_noise;
  spec.beta2 = eagle ? 0.95 : 0.999;
  spec.weight_decay = o.weight_decay;
  spec.grad_clip = o.grad_clip >= 0 ? o.grad_clip : eagle ? 0.5 : 1.0;
  spec.clip_by_value = eagle;
  spec.seed = o.seed;
  spec.threads = threads;
  const std::unique_ptr<TorchSession> session = open_torch_session(spec, target.rows());
  const std::string blas = session->blas_library();
  if (!fast_blas(blas))
    say(fmt::format("warning: torch's matrix products run on {} (the reference BLAS?): training is ~30x slower than with OpenBLAS "
                    "(Debian: apt-get install libopenblas0-openmp)", blas));
  const int64_t batch_size = o.batch_size > 0 ? o.batch_size : kDefaultBatchSize;
  // Every epoch's order up front: EAGLE's batch count depends on the order, and the
  // schedule needs the total.
  std::mt19937_64 order_rng(o.seed);
  std::vector<std::vector<std::vector<size_t>>> epoch_batches;
  int64_t total_steps = 0;
  for (int e = 0; e < o.epochs; ++e) {
    epoch_batches.push_back(train.batches(batch_size, &order_rng));
    total_steps += static_cast<int64_t>(epoch_batches.back().size());
  }
  const int64_t steps_per_epoch = static_cast<int64_t>(epoch_batches[0].size());
  if (o.max_steps > 0) total_steps = std::min(total_steps, o.max_steps);
  const int64_t warmup_steps = static_cast<int64_t>(std::ceil(o.warmup * static_cast<double>(total_steps)));
  say(fmt::format("{}: {} training examples, {} held out; {} steps of {} ({} per epoch), {} threads", o.drafter, train.examples, valid.examples,
                  total_steps, batch_size, steps_per_epoch, threads));

  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec || !fs::is_directory(o.out_dir)) throw InputError(o.out_dir, "", "cannot create the output directory" + (ec ? " (" + ec.message() + ")" : std::string()));
  const GgmlType export_type = o.dtype == "f16" ? GgmlType::F16 : GgmlType::F32;
  nlohmann::json training_fields{{"trained", true}, {"labels", eagle ? "target_features" : o.labels}, {"seed", o.seed}, {"data_manifest_sha256", manifest_sha256}};
  auto export_to = [&](const std::string& dir, int epochs_done) {
    nlohmann::json config = native_drafter_config(o.drafter);
    config.update(session->config());
    config["training"] = training_fields;
    config["training"]["epochs"] = epochs_done;
    SafetensorsWriter writer;
    for (const NamedFloats& t : session->weights()) writer.tensor_floats(t.name, export_type, t.shape, t.values);
    write_native_drafter(dir, config, writer, target.draft_vocab(), mc.n_vocab);
  };

  // --- the loop ---------------------------------------------------------------------------
  nlohmann::json log{{"drafter", o.drafter}, {"entries", nlohmann::json::array()}, {"epochs", nlohmann::json::array()}};
  const std::string log_path = (fs::path(o.out_dir) / "train_log.json").string();
  auto write_log = [&] { write_file(log_path, log.dump(1) + "\n"); };
  PositionBatch position_batch;
  SequenceBatch sequence_batch;
  BackendBatch backend_batch;
  // Fills backend_batch with the split's examples `members`; returns how many examples.
  auto prepare = [&](const Split& split, const std::vector<size_t>& members) -> int64_t {
    if (eagle) {
      std::vector<uint32_t> picked;
      for (size_t i : members) picked.push_back(split.sequences[i]);
      corpus.fill(picked, o.max_sequence_length, sequence_batch);
      target.to_backend(sequence_batch, backend_batch);
      int64_t trained = 0;
      for (uint8_t t : backend_batch.trained) trained += t;
      return trained;
    }
    std::vector<CorpusPosition> picked;
    for (size_t i : members) picked.push_back(split.positions[i]);
    corpus.fill(picked, source, steps, position_batch);
    target.to_backend(position_batch, net.step_inputs, backend_batch);
    return position_batch.size;
  };

  TrainResult result;
  result.out_dir = o.out_dir;
  result.draft_vocab_size = static_cast<int64_t>(vocab.size());
  result.label_coverage = label_coverage;
  int64_t step = 0;
  double training_seconds = 0;
  for (int epoch = 1; epoch <= o.epochs && step < total_steps; ++epoch) {
    const Clock::time_point epoch_start = Clock::now();
    MetricTally epoch_tally(session->n_steps()), interval(session->n_steps());
    Clock::time_point interval_start = Clock::now();
    std::array<double, 4> time_split{};  // prepare, forward, backward, optimizer
    for (const std::vector<size_t>& members : epoch_batches[static_cast<size_t>(epoch - 1)]) {
      if (step >= total_steps) break;
      const double lr = scheduled_lr(o.lr, step, total_steps, warmup_steps);
      const Clock::time_point prepare_start = Clock::now();
      const int64_t examples = prepare(train, members);
      time_split[0] += seconds_since(prepare_start);
      const BatchReport report = session->train_step(backend_batch, lr);
      time_split[1] += report.forward_seconds;
      time_split[2] += report.backward_seconds;
      time_split[3] += report.optimizer_seconds;
      ++step;
      epoch_tally.add(report.steps, report.extra_sums, report.loss, examples);
      interval.add(report.steps, report.extra_sums, report.loss, examples);
      if (step % o.log_every == 0 || step == total_steps) {
        const double elapsed = seconds_since(interval_start);
        nlohmann::json entry = interval.to_json();
        entry["step"] = step;
        entry["epoch"] = epoch;
        entry["lr"] = lr;
        entry["positions_per_second"] = static_cast<double>(interval.examples()) / std::max(elapsed, 1e-9);
        // Where the interval's time went: batch assembly (engine side: F16 features,
        // embeddings), forward with loss and metrics, backward, clipping + AdamW.
        entry["seconds"] = {{"total", elapsed}, {"prepare", time_split[0]}, {"forward", time_split[1]}, {"backward", time_split[2]}, {"optimizer", time_split[3]}};
        time_split = {};
        log["entries"].push_back(entry);
        write_log();
        say(fmt::format("step {}/{} epoch {} lr {:.2e} loss {:.4f} top1/top5{} | {:.0f} positions/s", step, total_steps, epoch, lr, interval.loss(),
                        accuracy_line(interval.step_metrics()), entry["positions_per_second"].get<double>()));
        interval = MetricTally(session->n_steps());
        interval_start = Clock::now();
      }
    }
    training_seconds += seconds_since(epoch_start);
    result.positions_trained += epoch_tally.examples();

    // Held-out evaluation, then the epoch's checkpoint.
    MetricTally valid_tally(session->n_steps());
    for (const std::vector<size_t>& members : valid.batches(batch_size, nullptr)) {
      const int64_t examples = prepare(valid, members);
      const BatchReport report = session->evaluate(backend_batch);
      valid_tally.add(report.steps, report.extra_sums, report.loss, examples);
    }
    EpochSummary summary{epoch, epoch_tally.loss(), valid_tally.loss(), epoch_tally.step_metrics(), valid_tally.step_metrics(), seconds_since(epoch_start)};
    result.epochs.push_back(summary);
    log["epochs"].push_back({{"epoch", epoch}, {"train", epoch_tally.to_json()}, {"valid", valid_tally.to_json()}, {"seconds", summary.seconds}});
    write_log();
    export_to((fs::path(o.out_dir) / fmt::format("epoch-{}", epoch)).string(), epoch);
    say(fmt::format("epoch {}: train loss {:.4f} top1/top5{} | valid loss {:.4f} top1/top5{} | {:.0f} s", epoch, summary.train_loss,
                    accuracy_line(summary.train_steps), summary.valid_loss, accuracy_line(summary.valid_steps), summary.seconds));
  }

  export_to(o.out_dir, static_cast<int>(result.epochs.size()));
  result.optimizer_steps = step;
  result.seconds = seconds_since(start);
  result.positions_per_second = static_cast<double>(result.positions_trained) / std::max(training_seconds, 1e-9);
  const EpochSummary* last = result.epochs.empty() ? nullptr : &result.epochs.back();
  result.provenance = {
      {"command_line", o.command_line},
      {"drafter", o.drafter},
      {"data_dir", o.data_dir},
      {"data_manifest_sha256", manifest_sha256},
      {"model", o.model_path},
      {"model_sha256", model_sha256},
      {"seed", o.seed},
      {"epochs", o.epochs},
      {"options",
       {{"lr", o.lr}, {"batch_size", batch_size}, {"labels", eagle ? "target_features" : o.labels}, {"draft_steps", steps},
        {"num_layers", spec.layers}, {"warmup", o.warmup}, {"weight_decay", o.weight_decay}, {"grad_clip", spec.grad_clip},
        {"grad_clip_kind", eagle ? "value" : "norm"}, {"betas", {spec.beta1, spec.beta2}}, {"max_positions", o.max_positions}, {"max_steps", o.max_steps},
        {"valid_fraction", o.valid_fraction}, {"max_sequence_length", o.max_sequence_length}, {"eagle_noise", eagle ? o.eagle_noise : 0.0},
        {"dtype", o.dtype}, {"threads", threads}}},
      {"blas", blas},
      {"optimizer_steps", step},
      {"positions_trained", result.positions_trained},
      {"train_examples_per_epoch", train.examples},
      {"valid_examples", valid.examples},
      {"wall_seconds", result.seconds},
      {"training_seconds", training_seconds},
      {"positions_per_second", result.positions_per_second},
      {"draft_vocab_size", result.draft_vocab_size},
      {"draft_vocab_requested", o.draft_vocab},
      {"response_token_coverage", response_coverage},
      {"label_coverage", label_coverage},
      {"final_train_loss", last ? last->train_loss : 0.0},
      {"final_valid_loss", last ? last->valid_loss : 0.0},
      {"final_train_steps", step_metrics_json(last ? last->train_steps : std::vector<StepMetrics>{})},
      {"final_valid_steps", step_metrics_json(last ? last->valid_steps : std::vector<StepMetrics>{})},
  };
  write_file((fs::path(o.out_dir) / "train_result.json").string(), nlohmann::json{{"provenance", result.provenance}}.dump(2) + "\n");
  return result;
}

}  // namespace draftbench
