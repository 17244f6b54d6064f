// train_drafter: data, draft vocabulary, the torch session and the example order, then the
// AdamW loop with a warm-up + cosine schedule (train_loop.cpp: logs, per-epoch exports,
// checkpoints, deadline, early stopping) and the final export (drafter_training.h).
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
// order, so the same seed exports byte-identical weights (tests/train/trainer_test.cpp),
// and so does a run stopped and resumed from its checkpoint (train_checkpoint.h).
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "engine/common/atomic_file.h"
#include "engine/common/dir_lock.h"
#include "engine/common/error.h"
#include "engine/common/sha256.h"
#include "engine/drafters/drafter_checkpoint.h"
#include "engine/drafters/drafter_registry.h"
#include "engine/model/model.h"
#include "engine/model/safetensors_writer.h"
#include "engine/train/drafter_training.h"
#include "engine/train/torch/draft_target.h"
#include "engine/train/torch/torch_backend.h"
#include "engine/train/torch/train_checkpoint.h"
#include "engine/train/torch/train_loop.h"
#include "engine/train/torch/training_log.h"
#include "kernels/runtime/cpu_features.h"

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
  if (o.data_dirs.empty()) bad("--data", "missing (expected `draftbench distill` output directories)");
  if (o.out_dir.empty()) bad("--out", "missing (expected a directory to write the drafter to)");
  if (o.labels != "distilled" && o.labels != "ground_truth") bad("--labels", fmt::format("'{}' (expected distilled or ground_truth)", o.labels));
  if (o.dtype != "f16" && o.dtype != "f32") bad("--dtype", fmt::format("'{}' (expected f16 or f32)", o.dtype));
  if (o.head_precision != "f32" && o.head_precision != "bf16" && o.head_precision != "auto")
    bad("--head-precision", fmt::format("'{}' (expected f32, bf16 or auto)", o.head_precision));
  if (o.epochs < 1 || o.epochs > 1000) bad("--epochs", fmt::format("{} (expected 1..1000)", o.epochs));
  if (!(o.lr > 0 && o.lr < 1)) bad("--lr", fmt::format("{} (expected 0 < lr < 1)", o.lr));
  if (o.batch_size < 0) bad("--batch-size", fmt::format("{} (expected > 0, or 0 for the default)", o.batch_size));
  if (o.draft_steps < 1 || o.draft_steps > 64) bad("--draft-steps", fmt::format("{} (expected 1..64)", o.draft_steps));
  if (o.medusa_heads < 1 || o.medusa_heads > 64) bad("--heads", fmt::format("{} (expected 1..64)", o.medusa_heads));
  if (o.num_layers < 0 || o.num_layers > 64) bad("--num-layers", fmt::format("{} (expected 0..64)", o.num_layers));
  if (o.ffn_size < 0 || o.ffn_size > (1 << 20)) bad("--ffn-size", fmt::format("{} (expected 0..{})", o.ffn_size, 1 << 20));
  if (o.draft_vocab < 1) bad("--draft-vocab", fmt::format("{} (expected >= 1)", o.draft_vocab));
  if (!(o.warmup >= 0 && o.warmup < 1)) bad("--warmup", fmt::format("{} (expected a share in [0, 1))", o.warmup));
  if (!(o.weight_decay >= 0)) bad("--weight-decay", fmt::format("{} (expected >= 0)", o.weight_decay));
  if (!(o.valid_fraction >= 0 && o.valid_fraction < 1)) bad("--valid-fraction", fmt::format("{} (expected a share in [0, 1))", o.valid_fraction));
  if (o.max_sequence_length < 2) bad("--max-sequence-length", fmt::format("{} (expected >= 2)", o.max_sequence_length));
  if (o.log_every < 1) bad("--log-every", fmt::format("{} (expected >= 1)", o.log_every));
  if (!(o.checkpoint_every >= 0)) bad("--checkpoint-every", fmt::format("{} (expected seconds >= 0)", o.checkpoint_every));
  if (o.stop_after_steps < 0) bad("--stop-after-steps", fmt::format("{} (expected >= 0)", o.stop_after_steps));
  if (o.patience < 0) bad("--patience", fmt::format("{} (expected epochs >= 0; 0 = off)", o.patience));
}

bool fast_blas(const std::string& path) {
  for (const char* name : {"openblas", "mkl", "blis", "atlas"})
    if (path.find(name) != std::string::npos) return true;
  return path.empty();  // none loaded: linked into torch, not the reference BLAS
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

// The example order of every epoch as a checksum: a resume recomputes the order from the
// seed, and this proves it came out the same (same data, same split, same sizes).
std::string order_checksum(const std::vector<std::vector<std::vector<size_t>>>& epoch_batches) {
  std::string bytes;
  for (const auto& epoch : epoch_batches)
    for (const auto& batch : epoch) {
      const uint64_t size = batch.size();
      bytes.append(reinterpret_cast<const char*>(&size), sizeof(size));
      for (size_t i : batch) {
        const uint64_t index = i;
        bytes.append(reinterpret_cast<const char*>(&index), sizeof(index));
      }
    }
  return sha256_hex(bytes);
}

// The epoch summaries behind train_epochs.jsonl's records (checksummed in the checkpoint a
// resumed run read them from).
std::vector<EpochSummary> epoch_summaries(const nlohmann::json& records, const std::string& checkpoint) {
  std::vector<EpochSummary> out;
  try {
    for (const nlohmann::json& record : records) out.push_back(epoch_summary_from_record(record));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(checkpoint, "field 'progress.epochs'", fmt::format("{} (expected the epoch records this version writes)", e.what()));
  }
  return out;
}

// Early stopping's output: the best epoch's exported drafter, copied whole into `to`.
void copy_drafter(const std::string& from, const std::string& to) {
  for (const char* name : {kDrafterConfigFile, "model.safetensors"}) {
    const fs::path source = fs::path(from) / name, dest = fs::path(to) / name, partial = dest.string() + ".partial";
    std::error_code ec;
    fs::copy_file(source, partial, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(partial, dest, ec);
    if (ec) throw InputError(dest.string(), "", fmt::format("cannot copy the best epoch's {} ({})", source.string(), ec.message()));
  }
}

Split make_split(const TrainingCorpus& corpus, const std::vector<uint32_t>& sequences, bool by_sequence, LabelSource source, int64_t max_examples,
                 int64_t max_length) {
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

// The distilled data and the target model, checked against each other: hidden size,
// vocabulary, and the model file's SHA-256 where a manifest records one (that the
// directories agree on the continuation length, TrainingCorpus checks).
struct TrainInputs {
  explicit TrainInputs(const TrainOptions& o) : model(Model::load(o.model_path)) {
    std::vector<std::string> manifest_shas;
    for (const std::string& dir : o.data_dirs) {
      data.emplace_back(dir, o.verify_checksums);
      manifest_paths.push_back((fs::path(dir) / kDistillManifest).string());
      manifest_shas.push_back(sha256_file(manifest_paths.back()));
      check(o, data.back(), manifest_paths.back());
    }
    // One directory keeps its manifest's own checksum; several, a checksum of theirs in order.
    manifest_sha256 = manifest_shas.size() == 1 ? manifest_shas.front() : sha256_hex(fmt::format("{}\n", fmt::join(manifest_shas, "\n")));
  }

  std::vector<DistillData> data;
  std::vector<std::string> manifest_paths;
  std::string manifest_sha256;
  const std::unique_ptr<Model> model;
  std::string model_sha256;  // empty: not checked (no file, or the manifests record none)

 private:
  void check(const TrainOptions& o, const DistillData& data, const std::string& manifest_path) {
    const ModelConfig& mc = model->config();
    if (data.n_embd() != mc.n_embd)
      throw InputError(manifest_path, "field 'target.n_embd'",
                       fmt::format("{} does not match the model's hidden size {} ({})", data.n_embd(), mc.n_embd, o.model_path));
    const nlohmann::json& target_info = data.manifest().at("target");
    if (target_info.contains("n_vocab") && target_info["n_vocab"].is_number_integer() && target_info["n_vocab"].get<int64_t>() != mc.n_vocab)
      throw InputError(manifest_path, "field 'target.n_vocab'",
                       fmt::format("{} does not match the model's vocabulary {} ({})", target_info["n_vocab"].get<int64_t>(), mc.n_vocab, o.model_path));
    if (fs::is_regular_file(o.model_path) && target_info.contains("sha256") && target_info["sha256"].is_string()) {
      if (model_sha256.empty()) model_sha256 = sha256_file(o.model_path);
      if (model_sha256 != target_info["sha256"].get<std::string>())
        throw InputError(manifest_path, "field 'target.sha256'", fmt::format("differs from {}'s (the data was distilled from another model)", o.model_path));
    }
  }
};

// Draft steps, heads or 1: the labels per example the net learns. Distilled labels for
// position drafters come from the continuations, which must be long enough.
int64_t label_steps(const TrainOptions& o, const TrainingNet& net, const TrainInputs& in, LabelSource source) {
  const int64_t steps = net.steps == TrainingNet::Steps::draft_steps ? o.draft_steps : net.steps == TrainingNet::Steps::heads ? o.medusa_heads : 1;
  const int64_t continuation = in.data.front().continuation_length();
  if (!net.features && source == LabelSource::distilled && steps > continuation - 1)
    throw InputError(
        in.manifest_paths.front(), "field 'settings.continuation_length'",
        fmt::format("{} gives {} distilled labels per position; {} {} needs {} (distill with --draft-steps {} or more, or train on ground_truth labels)",
                    continuation, continuation - 1, o.drafter, net.steps == TrainingNet::Steps::heads ? "--heads" : "--draft-steps", steps, steps));
  return steps;
}

// The draft vocabulary: the training split's most frequent response tokens (and the stop
// tokens), with the share of response tokens it covers.
struct DraftVocabulary {
  std::vector<int32_t> ids;
  int64_t responses = 0;  // response tokens of the training split
  double response_coverage = 0;
};

DraftVocabulary choose_vocabulary(const TrainingCorpus& corpus, const Model& model, int64_t size) {
  const std::vector<int64_t> counts = corpus.response_token_counts(corpus.train_sequences(), model.config().n_vocab);
  DraftVocabulary v;
  v.ids = choose_draft_vocab(counts, size, model.tokenizer().stop_ids());
  int64_t covered = 0;
  for (int64_t c : counts) v.responses += c;
  for (int32_t id : v.ids) covered += counts[static_cast<size_t>(id)];
  v.response_coverage = v.responses ? static_cast<double>(covered) / static_cast<double>(v.responses) : 0.0;
  return v;
}

// Position drafters: the share of every step label of the training split, as the loss sees
// them, inside the draft vocabulary.
double step_label_coverage(const TrainingCorpus& corpus, const Split& train, LabelSource source, int64_t steps, const DraftTarget& target) {
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
  return labels ? static_cast<double>(inside) / static_cast<double>(labels) : 0.0;
}

// The torch session's net, AdamW and clipping (the recipe in this file's header).
SessionSpec session_spec(const TrainOptions& o, const TrainingNet& net, int64_t steps, const DraftTarget& target, int threads) {
  const bool eagle = net.features;
  SessionSpec spec;
  spec.kind = net.net;
  spec.steps = steps;
  spec.layers = o.num_layers > 0 ? o.num_layers : net.default_layers;
  spec.eagle = target.eagle_layer();
  if (o.ffn_size > 0) spec.eagle.n_ff = o.ffn_size;
  spec.eagle.previous_token = o.previous_token;
  spec.eagle_noise = o.eagle_noise;
  spec.beta2 = eagle ? 0.95 : 0.999;
  spec.weight_decay = o.weight_decay;
  spec.grad_clip = o.grad_clip >= 0 ? o.grad_clip : eagle ? 0.5 : 1.0;
  spec.clip_by_value = eagle;
  spec.seed = o.seed;
  spec.threads = threads;
  spec.bf16_head = o.head_precision == "bf16" || (o.head_precision == "auto" && cpu_features().avx512bf16);
  return spec;
}

// Every epoch's batch order, drawn up front from the seed (EAGLE's batch count depends on
// the order, and the schedule needs the total), and the schedule's step counts.
struct EpochPlan {
  std::vector<std::vector<std::vector<size_t>>> batches;  // [epoch][batch] example indices
  int64_t total_steps = 0, steps_per_epoch = 0, warmup_steps = 0;
};

EpochPlan plan_epochs(const TrainOptions& o, const Split& train, int64_t batch_size) {
  EpochPlan plan;
  std::mt19937_64 order_rng(o.seed);
  for (int e = 0; e < o.epochs; ++e) {
    plan.batches.push_back(train.batches(batch_size, &order_rng));
    plan.total_steps += static_cast<int64_t>(plan.batches.back().size());
  }
  plan.steps_per_epoch = static_cast<int64_t>(plan.batches[0].size());
  if (o.max_steps > 0) plan.total_steps = std::min(plan.total_steps, o.max_steps);
  plan.warmup_steps = static_cast<int64_t>(std::ceil(o.warmup * static_cast<double>(plan.total_steps)));
  return plan;
}

// What the loop and the records need of a run, fixed before the loop starts.
struct TrainSetup {
  const TrainOptions& o;
  const TrainInputs& in;
  const TrainingNet& net;
  LabelSource source;
  int64_t steps = 1, batch_size = 0;
  int threads = 1;
  const DraftVocabulary& vocab;
  double label_coverage = 0;
  const Split& train;
  const Split& valid;
  const SessionSpec& spec;
  const EpochPlan& plan;
  bool eagle() const { return net.features; }
};

// Fills the backend batch the loop trains on with examples of a split.
class ExampleBatches {
 public:
  ExampleBatches(const TrainSetup& setup, const TrainingCorpus& corpus, const DraftTarget& target) : setup_(setup), corpus_(corpus), target_(target) {}
  const BackendBatch& batch() const { return backend_batch_; }

  // The split's examples `members` into batch(); returns how many examples it holds.
  int64_t prepare(bool is_valid, const std::vector<size_t>& members) {
    const Split& split = is_valid ? setup_.valid : setup_.train;
    if (setup_.eagle()) {
      std::vector<uint32_t> picked;
      for (size_t i : members) picked.push_back(split.sequences[i]);
      corpus_.fill(picked, setup_.o.max_sequence_length, sequence_batch_);
      target_.to_backend(sequence_batch_, setup_.spec.eagle.previous_token, backend_batch_);
      int64_t trained = 0;
      for (uint8_t t : backend_batch_.trained) trained += t;
      return trained;
    }
    std::vector<CorpusPosition> picked;
    for (size_t i : members) picked.push_back(split.positions[i]);
    corpus_.fill(picked, setup_.source, setup_.steps, position_batch_);
    target_.to_backend(position_batch_, setup_.net.step_inputs, backend_batch_);
    return position_batch_.size;
  }

 private:
  const TrainSetup& setup_;
  const TrainingCorpus& corpus_;
  const DraftTarget& target_;
  PositionBatch position_batch_;
  SequenceBatch sequence_batch_;
  BackendBatch backend_batch_;
};

// The session's current weights as a drafter in `dir`, recording the training fields.
void export_drafter(const TrainSetup& setup, TorchSession& session, const DraftTarget& target, const std::string& dir, int epochs_done) {
  const TrainOptions& o = setup.o;
  nlohmann::json config = native_drafter_config(o.drafter);
  config.update(session.config());
  config["training"] = {
      {"trained", true}, {"labels", setup.eagle() ? "target_features" : o.labels}, {"seed", o.seed}, {"data_manifest_sha256", setup.in.manifest_sha256}};
  config["training"]["epochs"] = epochs_done;
  const GgmlType export_type = o.dtype == "f16" ? GgmlType::F16 : GgmlType::F32;
  SafetensorsWriter writer;
  for (const NamedFloats& t : session.weights()) writer.tensor_floats(t.name, export_type, t.shape, t.values);
  write_native_drafter(dir, config, writer, target.draft_vocab(), setup.in.model->config().n_vocab);
}

// The head products' precision a run uses: --head-precision with auto resolved.
const char* head_precision(const SessionSpec& spec) { return spec.bf16_head ? "bf16" : "f32"; }

// What a resume must match: everything that shapes the weights (train_checkpoint.h).
nlohmann::json resume_fingerprint(const TrainSetup& s) {
  const TrainOptions& o = s.o;
  const std::vector<int32_t>& vocab = s.vocab.ids;
  return {{"drafter", o.drafter},
          {"data_manifest_sha256", s.in.manifest_sha256},
          {"model_sha256", s.in.model_sha256},
          {"draft_vocab_sha256", sha256_hex(std::string_view(reinterpret_cast<const char*>(vocab.data()), vocab.size() * sizeof(int32_t)))},
          {"epoch_order_sha256", order_checksum(s.plan.batches)},
          {"total_steps", s.plan.total_steps},
          {"train_examples", s.train.examples},
          {"valid_examples", s.valid.examples},
          {"options",
           {{"epochs", o.epochs},
            {"lr", o.lr},
            {"batch_size", s.batch_size},
            {"seed", o.seed},
            {"labels", o.labels},
            {"draft_steps", s.steps},
            {"num_layers", s.spec.layers},
            {"ffn_size", s.eagle() ? s.spec.eagle.n_ff : 0},
            {"previous_token", s.eagle() && s.spec.eagle.previous_token},
            {"draft_vocab", o.draft_vocab},
            {"threads", s.threads},
            {"max_positions", o.max_positions},
            {"max_steps", o.max_steps},
            {"warmup", o.warmup},
            {"weight_decay", o.weight_decay},
            {"grad_clip", s.spec.grad_clip},
            {"valid_fraction", o.valid_fraction},
            {"max_sequence_length", o.max_sequence_length},
            {"eagle_noise", o.eagle_noise},
            {"dtype", o.dtype},
            {"head_precision", head_precision(s.spec)},
            {"patience", o.patience}}}};
}

// train_result.json's provenance of a finished run.
nlohmann::json provenance(const TrainSetup& s, const TrainResult& result, const TrainProgress& progress, const std::string& blas) {
  const TrainOptions& o = s.o;
  const bool eagle = s.eagle();
  const EpochSummary* last = result.epochs.empty() ? nullptr : &result.epochs.back();
  return {
      {"command_line", o.command_line},
      {"drafter", o.drafter},
      {"data_dirs", o.data_dirs},
      {"data_manifest_sha256", s.in.manifest_sha256},
      {"model", o.model_path},
      {"model_sha256", s.in.model_sha256},
      {"seed", o.seed},
      {"epochs", o.epochs},
      {"options",
       {{"lr", o.lr},
        {"batch_size", s.batch_size},
        {"labels", eagle ? "target_features" : o.labels},
        {"draft_steps", s.steps},
        {"num_layers", s.spec.layers},
        {"ffn_size", eagle ? s.spec.eagle.n_ff : 0},
        {"previous_token", eagle && s.spec.eagle.previous_token},
        {"warmup", o.warmup},
        {"weight_decay", o.weight_decay},
        {"grad_clip", s.spec.grad_clip},
        {"grad_clip_kind", eagle ? "value" : "norm"},
        {"betas", {s.spec.beta1, s.spec.beta2}},
        {"max_positions", o.max_positions},
        {"max_steps", o.max_steps},
        {"valid_fraction", o.valid_fraction},
        {"max_sequence_length", o.max_sequence_length},
        {"eagle_noise", eagle ? o.eagle_noise : 0.0},
        {"head_precision", head_precision(s.spec)},
        {"dtype", o.dtype},
        {"threads", s.threads},
        {"patience", o.patience}}},
      {"blas", blas},
      {"optimizer_steps", result.optimizer_steps},
      {"positions_trained", result.positions_trained},
      {"train_examples_per_epoch", s.train.examples},
      {"valid_examples", s.valid.examples},
      {"wall_seconds", progress.wall_seconds},
      {"training_seconds", progress.training_seconds},
      {"pieces", progress.pieces},
      {"epochs_done", result.epochs.size()},
      {"best_epoch", progress.best_epoch},
      {"best_valid_loss", progress.best_valid_loss},
      {"exported_epoch", result.best_epoch > 0 ? result.best_epoch : static_cast<int>(result.epochs.size())},
      {"stopped_early", result.stopped_early},
      {"positions_per_second", result.positions_per_second},
      {"draft_vocab_size", result.draft_vocab_size},
      {"draft_vocab_requested", o.draft_vocab},
      {"response_token_coverage", s.vocab.response_coverage},
      {"label_coverage", s.label_coverage},
      {"final_train_loss", last ? last->train_loss : 0.0},
      {"final_valid_loss", last ? last->valid_loss : 0.0},
      {"final_train_steps", step_metrics_json(last ? last->train_steps : std::vector<StepMetrics>{})},
      {"final_valid_steps", step_metrics_json(last ? last->valid_steps : std::vector<StepMetrics>{})},
  };
}

// The run's result after the loop. A stopped run exports nothing (its checkpoint continues
// it); a finished one exports the best epoch (patience) or the last, writes
// train_result.json and removes the checkpoint.
TrainResult finish_training(const TrainSetup& s, const TrainLoopOutcome& outcome, Clock::time_point start, const std::string& blas,
                            const std::function<void(const std::string&, int)>& export_to) {
  const TrainOptions& o = s.o;
  const TrainProgress& progress = outcome.progress;
  TrainResult result;
  result.out_dir = o.out_dir;
  result.draft_vocab_size = static_cast<int64_t>(s.vocab.ids.size());
  result.label_coverage = s.label_coverage;
  result.total_steps = s.plan.total_steps;
  result.optimizer_steps = progress.step;
  result.positions_trained = progress.positions_trained;
  result.epochs = epoch_summaries(progress.epochs, train_checkpoint_path(o.out_dir));
  result.seconds = seconds_since(start);
  if (outcome.stopped) {
    result.stopped = true;
    result.stop_reason = outcome.stop_reason;
    result.checkpoint = train_checkpoint_path(o.out_dir);
    return result;
  }
  result.stopped_early = outcome.stopped_early;
  if (o.patience > 0 && progress.best_epoch > 0) {
    result.best_epoch = progress.best_epoch;
    copy_drafter((fs::path(o.out_dir) / fmt::format("epoch-{}", progress.best_epoch)).string(), o.out_dir);
  } else {
    export_to(o.out_dir, static_cast<int>(result.epochs.size()));
  }
  result.positions_per_second = static_cast<double>(result.positions_trained) / std::max(progress.training_seconds, 1e-9);
  result.provenance = provenance(s, result, progress, blas);
  write_file_atomically((fs::path(o.out_dir) / "train_result.json").string(), nlohmann::json{{"provenance", result.provenance}}.dump(2) + "\n");
  // Finished: nothing left to resume, and a checkpoint is several times the drafter's size.
  std::error_code removed;
  fs::remove(train_checkpoint_path(o.out_dir), removed);
  return result;
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

  // --- data, target, draft vocabulary -----------------------------------------------------
  const TrainInputs in(o);
  const TrainingNet& net = *find_drafter_kind(o.drafter)->training;
  const bool eagle = net.features;
  const LabelSource source = o.labels == "distilled" ? LabelSource::distilled : LabelSource::ground_truth;
  const int64_t steps = label_steps(o, net, in, source);
  const TrainingCorpus corpus(in.data, o.valid_fraction);
  const DraftVocabulary vocab = choose_vocabulary(corpus, *in.model, o.draft_vocab);
  const DraftTarget target(*in.model, vocab.ids);
  say(fmt::format("draft vocabulary: {} tokens (asked {}), {:.2f}% of the {} response tokens", vocab.ids.size(), o.draft_vocab, 100 * vocab.response_coverage,
                  vocab.responses));

  // --- examples ---------------------------------------------------------------------------
  const Split train = make_split(corpus, corpus.train_sequences(), eagle, source, o.max_positions, o.max_sequence_length);
  const Split valid = make_split(corpus, corpus.valid_sequences(), eagle, source, kMaxValidExamples, o.max_sequence_length);
  if (train.examples == 0)
    throw InputError(fmt::format("{}", fmt::join(o.data_dirs, ", ")), "shards",
                     "hold no trained positions in the training split (expected responses to learn)");
  if (o.patience > 0 && valid.examples == 0)
    throw InputError("train", "option '--patience'", "needs held-out examples to watch (expected --valid-fraction > 0 and data with enough records)");
  const double label_coverage = eagle ? vocab.response_coverage : step_label_coverage(corpus, train, source, steps, target);

  // --- the torch session and the epochs' order --------------------------------------------
  const SessionSpec spec = session_spec(o, net, steps, target, threads);
  const std::unique_ptr<TorchSession> session = open_torch_session(spec, target.rows());
  const std::string blas = session->blas_library();
  if (!fast_blas(blas))
    say(
        fmt::format("warning: torch's matrix products run on {} (the reference BLAS?): training is ~30x slower than with OpenBLAS "
                    "(Debian: apt-get install libopenblas0-openmp)",
                    blas));
  const int64_t batch_size = o.batch_size > 0 ? o.batch_size : kDefaultBatchSize;
  const EpochPlan plan = plan_epochs(o, train, batch_size);
  say(fmt::format("{}: {} training examples, {} held out; {} steps of {} ({} per epoch), {} threads", o.drafter, train.examples, valid.examples,
                  plan.total_steps, batch_size, plan.steps_per_epoch, threads));
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec || !fs::is_directory(o.out_dir))
    throw InputError(o.out_dir, "", "cannot create the output directory" + (ec ? " (" + ec.message() + ")" : std::string()));

  // --- the loop (train_loop.cpp): checkpoints, deadline, early stopping ---------------------
  const TrainSetup setup{o, in, net, source, steps, batch_size, threads, vocab, label_coverage, train, valid, spec, plan};
  auto export_to = [&](const std::string& dir, int epochs_done) { export_drafter(setup, *session, target, dir, epochs_done); };
  ExampleBatches examples(setup, corpus, target);
  const std::vector<std::vector<size_t>> valid_batches = valid.batches(batch_size, nullptr);
  const DirectoryLock out_lock(o.out_dir);  // one trainer per output directory
  const TrainLoopOutcome outcome = run_train_loop(
      TrainLoopSetup{o, *session, plan.batches, valid_batches, plan.total_steps, plan.warmup_steps, resume_fingerprint(setup),
                     [&](bool is_valid, const std::vector<size_t>& members) { return examples.prepare(is_valid, members); }, examples.batch(), export_to, say});
  return finish_training(setup, outcome, start, blas, export_to);
}

}  // namespace draftbench
