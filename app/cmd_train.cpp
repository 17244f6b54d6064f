// draftbench train: a drafter trained on `draftbench distill` data with libtorch
// (engine/train/drafter_training.h), exported in draftbench's own format.
#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <cstdio>

#include "app/commands.h"
#include "engine/drafters/drafter_registry.h"
#include "engine/train/drafter_training.h"
#include "engine/train/torch/train_checkpoint.h"

namespace draftbench::cli {

namespace {

// The one signal-handler state a process needs: which stop signal arrived. A handler can only
// reach static storage, and a lock-free atomic is safe to store to from one.
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

// SIGTERM (a scheduler, `timeout`) and SIGINT (Ctrl-C) ask training to stop safely: the
// step under way finishes, a checkpoint is written, and the run exits 0 as at a deadline. A
// second signal of the same kind kills as usual (SA_RESETHAND).
void stop_safely_on_signals() {
  struct sigaction action {};
  action.sa_handler = [](int signal) { g_stop_signal.store(signal); };
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGTERM, SIGINT}) sigaction(signal, &action, nullptr);
}

// Checkpoints, resume, deadline and early stopping (engine/train/torch/train_checkpoint.h).
void add_long_run_options(CLI::App* sub, TrainOptions& o, std::string& deadline) {
  sub->add_flag("--resume", o.resume, "Continue the unfinished run in --out from its checkpoint, bit for bit (same options and data)");
  sub->add_option("--checkpoint-every", o.checkpoint_every, "Seconds between checkpoints (also after every epoch and at a stop; 0 = every step)")
      ->capture_default_str()
      ->check(finite_number(0.0, 1e9));
  sub->add_option("--deadline", deadline,
                  "Stop safely before this time (ISO 8601, e.g. 2026-11-26T18:00:00Z, or a duration from now: 5400, 90m, 2.5h); resume with --resume");
  sub->add_option("--stop-after-steps", o.stop_after_steps, "Stop safely after this many optimiser steps of this invocation (0 = no limit)")
      ->capture_default_str();
  sub->add_option("--patience", o.patience, "Early stopping: end after this many epochs without a lower validation loss and keep the best epoch (0 = off)")
      ->capture_default_str();
}

}  // namespace

Run add_train(CLI::App& app, const std::string& command_line) {
  auto o = std::make_shared<TrainOptions>();
  o->model_path = default_model_path();
  o->command_line = command_line;
  CLI::App* sub = app.add_subcommand("train", "Train a drafter (ReDrafter, Medusa, EAGLE) on `draftbench distill` data");
  sub->add_option("--drafter", o->drafter, fmt::format("One of {}", trainable_kinds()))->required();
  sub->add_option("--data", o->data_dirs, "`draftbench distill` output directories (one or more: trained on together)")->required();
  sub->add_option("--out", o->out_dir, "Directory for the drafter (drafter.json + model.safetensors), logs and epoch checkpoints")->required();
  add_model_option(*sub, o->model_path, "The target model the data was distilled from: GGUF file or HF directory");
  sub->add_option("--epochs", o->epochs, "Passes over the training positions")->capture_default_str();
  sub->add_option("--lr", o->lr, "Peak learning rate (AdamW; linear warm-up, then cosine decay to 0)")->capture_default_str()->check(finite_number(0.0, 10.0));
  sub->add_option("--batch-size", o->batch_size, fmt::format("Positions per optimiser step (EAGLE: sequence pairs); 0 = {}", kDefaultBatchSize))
      ->capture_default_str();
  sub->add_option("--seed", o->seed, "Seed of the initialisation, example order and EAGLE's noise")->capture_default_str()->check(seed_value());
  sub->add_option("--draft-steps", o->draft_steps, "ReDrafter: draft steps (beam length - 1)")->capture_default_str();
  sub->add_option("--heads", o->medusa_heads, "Medusa: heads")->capture_default_str();
  sub->add_option("--num-layers", o->num_layers, "Residual blocks (ReDrafter: num_draft_layers, default 2; Medusa: per head, default 1)")
      ->capture_default_str();
  sub->add_flag("--previous-token", o->previous_token,
                "EAGLE: also feed each position's own token to the draft layer, so its one attention layer can find the current token earlier "
                "in the context and copy what followed it (off: EAGLE as published)");
  sub->add_option("--ffn-size", o->ffn_size, "EAGLE: the draft layer's feed-forward size (0 = the target's; smaller drafts faster and weighs less)")
      ->capture_default_str();
  sub->add_option("--labels", o->labels,
                  "distilled (the target's greedy continuations) or ground_truth (the data's tokens); EAGLE learns the target's features either way")
      ->capture_default_str();
  sub->add_option("--draft-vocab", o->draft_vocab, "Draft vocabulary: the most frequent response tokens, stop tokens always included")->capture_default_str();
  sub->add_option("--threads", o->threads, "Torch threads (0 = the machine's cores)")->capture_default_str()->check(thread_count());
  sub->add_option("--max-positions", o->max_positions, "Train on at most this many positions per epoch (0 = all)")->capture_default_str();
  sub->add_option("--max-steps", o->max_steps, "Stop after this many optimiser steps (0 = run every epoch)")->capture_default_str();
  sub->add_option("--warmup", o->warmup, "Share of the steps with a linear warm-up")->capture_default_str()->check(finite_number(0.0, 1.0));
  sub->add_option("--weight-decay", o->weight_decay, "AdamW's decoupled weight decay")->capture_default_str()->check(finite_number(0.0, 10.0));
  sub->add_option("--grad-clip", o->grad_clip, "Gradient clipping (< 0: the drafter's default: norm 1.0, EAGLE value 0.5; 0: off)")
      ->capture_default_str()
      ->check(finite_number(-1e9, 1e9));
  sub->add_option("--valid-fraction", o->valid_fraction, "Share of the corpus records held out for validation")
      ->capture_default_str()
      ->check(finite_number(0.0, 1.0));
  sub->add_option("--max-sequence-length", o->max_sequence_length, "EAGLE: positions of each sequence used")->capture_default_str();
  sub->add_option("--head-precision", o->head_precision,
                  "Products with the target's LM-head rows: f32, bf16 inputs with f32 results (oneDNN's AMX/AVX-512 BF16 kernels; the rest stays f32), or auto "
                  "(bf16 where the CPU has AVX-512 BF16)")
      ->capture_default_str();
  sub->add_option("--eagle-noise", o->eagle_noise, "EAGLE: uniform noise on the input features (the reference's std; 0 = off)")
      ->capture_default_str()
      ->check(finite_number(0.0, 1e3));
  sub->add_option("--dtype", o->dtype, "Exported weights: f16 or f32")->capture_default_str();
  sub->add_option("--log-every", o->log_every, "Optimiser steps between train_log.json entries")->capture_default_str();
  sub->add_flag("!--no-verify-checksums", o->verify_checksums, "Skip checking the shards' sha256 against the manifest");
  auto deadline = std::make_shared<std::string>();
  add_long_run_options(sub, *o, *deadline);
  return [sub, o, deadline]() -> int {
    if (!sub->parsed()) return -1;
    if (!deadline->empty()) o->deadline = parse_deadline(*deadline, WallClock::now());
    stop_safely_on_signals();
    o->stop_signal = &g_stop_signal;
    o->progress = [](const std::string& line) {
      fmt::print(stderr, "train: {}\n", line);
      std::fflush(stderr);
    };
    const TrainResult r = train_drafter(*o);
    if (r.stopped) {
      // The one line a script or a person needs: why, where, and how to go on.
      fmt::print(stderr, "train: stopped {} at step {}/{} (epoch {}), checkpoint {}; continue with the same command with --resume{}\n", r.stop_reason,
                 r.optimizer_steps, r.total_steps, r.epochs.size() + 1, r.checkpoint, o->deadline ? " and a new --deadline" : "");
      return 0;
    }
    fmt::print(stderr, "wrote the trained {} drafter to {} ({} steps, {} positions, {:.0f} positions/s, {:.0f} s)\n", o->drafter, r.out_dir, r.optimizer_steps,
               r.positions_trained, r.positions_per_second, r.seconds);
    return 0;
  };
}

}  // namespace draftbench::cli
