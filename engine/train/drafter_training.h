// Training a drafter on `draftbench distill` data (engine/DESIGN.md §7, with the
// reference recipes draftbench follows): `draftbench train`.
//
// The target LLM stays frozen and outside the autograd graph: its input embeddings come from
// the engine (embed_tokens, Gemma's sqrt(n_embd) scaling included) and its LM-head rows of the
// draft vocabulary, dequantised, are every drafter's output layer — exactly the engine's
// "target rows" head, so the shipped files hold only the drafter's own weights.
//
// This header is torch-free: the CLI and anything else include it without seeing libtorch.
// The implementation lives in engine/train/torch/: the engine side in the static library
// draftbench_trainer, libtorch behind it in the module libdraftbench_torch.so, loaded at run
// time (torch_backend.h explains why the two cannot share one symbol namespace).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace draftbench {

struct TrainOptions {
  std::string drafter;  // redrafter | medusa | eagle
  // `draftbench distill` output directories (manifest.json + shards), trained on together:
  // one target, one continuation length. A corpus record distilled in several of them
  // (its greedy, sampled and second-turn replies) counts once for the validation split.
  std::vector<std::string> data_dirs;
  std::string out_dir;     // the exported drafter, train_log.json, train_epochs.jsonl, train_result.json, epoch-N/, checkpoint.bin
  std::string model_path;  // the target the data was distilled from (GGUF or HF directory)

  int epochs = 2;
  double lr = 1e-3;
  // Positions per optimiser step (EAGLE: trained positions, gathered from whole sequences).
  // 0 = the drafter's default (kDefaultBatchSize).
  int64_t batch_size = 0;
  uint64_t seed = 0;
  // ReDrafter: draft steps (beam length - 1); Medusa: heads. Must be < the data's
  // continuation length for distilled labels.
  int draft_steps = 5;
  int medusa_heads = 4;
  int num_layers = 0;                  // residual blocks: ReDrafter's num_draft_layers (default 2), Medusa's per head (1)
  int64_t ffn_size = 0;                // EAGLE: the draft layer's feed-forward size (0 = the target's n_ff)
  bool previous_token = false;         // EAGLE: also feed each pair's own token (eagle.h: the copy input)
  std::string labels = "distilled";    // distilled | ground_truth (EAGLE learns the target's features either way)
  int64_t draft_vocab = 32768;         // most frequent response tokens + stop tokens
  int threads = 0;                     // torch intra-op threads; 0 = the machine's core count
  int64_t max_positions = 0;           // > 0: train on at most this many positions per epoch (the first, in corpus order)
  int64_t max_steps = 0;               // > 0: stop after this many optimiser steps (the schedule spans them)
  double warmup = 0.1;                 // share of the steps with a linear warm-up, then cosine decay to 0
  double weight_decay = 0.0;           // AdamW's decoupled decay (ReDrafter's and Medusa's recipes use 0)
  double grad_clip = -1.0;             // < 0: the drafter's default (see trainer.cpp); 0: off
  double valid_fraction = 0.02;        // records held out for validation (the last ones of the corpus)
  int64_t max_sequence_length = 2048;  // EAGLE: positions of a sequence used (the reference's max_len)
  double eagle_noise = 0.2;            // EAGLE: uniform noise on input features, the reference's "std"
  std::string dtype = "f16";           // exported weights: f16 | f32
  // The products with the target's LM-head rows (every drafter's logits, EAGLE's teacher):
  // f32, or bf16 inputs with f32 results (oneDNN's AMX or AVX-512 BF16 kernels), or auto:
  // bf16 where the CPU has AVX-512 BF16 (every AMX CPU has it too), else f32, where bf16
  // would be emulated. Everything else, the loss and the optimiser stay f32.
  std::string head_precision = "f32";
  int log_every = 20;            // optimiser steps between train_log.json entries
  bool verify_checksums = true;  // check every shard's sha256 against the manifest
  // Long runs (train_checkpoint.h). A checkpoint (OUT/checkpoint.bin) is written when the
  // run starts, every `checkpoint_every` seconds (0: after every optimiser step), after every
  // epoch and when the run stops early; a finished run removes it.
  bool resume = false;  // continue OUT/checkpoint.bin bit for bit (refused if the options or data differ)
  double checkpoint_every = 300;
  // Stop safely (checkpoint written, result.stopped set) before this wall-clock time, when
  // the next step (with its evaluation, at an epoch's end) and a checkpoint might not fit.
  std::optional<std::chrono::system_clock::time_point> deadline;
  int64_t stop_after_steps = 0;  // > 0: stop the same way after this many optimiser steps of this invocation
  // Stop the same way before the next optimiser step once this holds a signal number (the
  // CLI's SIGTERM/SIGINT handler sets it; a step under way finishes first). May be null.
  const std::atomic<int>* stop_signal = nullptr;
  // > 0: early stopping: end after this many epochs without a lower validation loss, and
  // export the best epoch's weights (epoch-N/) as the drafter rather than the last.
  int patience = 0;
  std::string command_line;  // recorded in train_result.json
  // Progress lines (one per log entry and epoch); empty = silent.
  std::function<void(const std::string&)> progress;
};

inline constexpr int64_t kDefaultBatchSize = 256;

struct StepMetrics {
  double loss = 0, top1 = 0, top3 = 0, top5 = 0;  // per draft step / head (EAGLE: one entry)
  int64_t positions = 0;                          // labels that counted
};

struct EpochSummary {
  int epoch = 0;
  double train_loss = 0, valid_loss = 0;
  std::vector<StepMetrics> train_steps, valid_steps;
  double seconds = 0;
};

struct TrainResult {
  std::string out_dir;
  int64_t optimizer_steps = 0;
  int64_t positions_trained = 0;  // summed over epochs
  double seconds = 0;
  double positions_per_second = 0;
  int64_t draft_vocab_size = 0;
  double label_coverage = 0;         // share of training labels inside the draft vocabulary
  std::vector<EpochSummary> epochs;  // every epoch so far, earlier pieces of a resumed run included
  nlohmann::json provenance;         // what train_result.json holds
  // Stopped before finishing (deadline or stop_after_steps): nothing exported but the epochs
  // done; `checkpoint` continues it (TrainOptions::resume).
  bool stopped = false;
  std::string stop_reason, checkpoint;
  int64_t total_steps = 0;
  int best_epoch = 0;          // the epoch whose weights were exported (patience > 0), else 0
  bool stopped_early = false;  // patience ran out
};

// Trains and exports. Throws InputError for bad options (naming the option and the expected
// values), a data directory that is missing or does not fit the target (n_embd, vocabulary,
// continuation length), or an unwritable output directory; and for a resume whose
// checkpoint is missing, corrupt or from other options or data (naming the checkpoint and
// the field), or a fresh run into a directory holding an unfinished run's checkpoint.
TrainResult train_drafter(const TrainOptions& options);

// The kinds `draftbench train` trains, as a list for messages (drafter_registry.h).
const char* trainable_drafters();

}  // namespace draftbench
