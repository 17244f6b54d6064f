// draftbench train: a drafter trained on `draftbench distill` data with libtorch
// (engine/train/drafter_training.h), exported in draftbench's own format.
#include <fmt/format.h>

#include <cstdio>

#include "engine/cli/commands.h"
#include "engine/drafters/drafter_registry.h"
#include "engine/train/drafter_training.h"

namespace draftbench::cli {

Run add_train(CLI::App& app, const std::string& command_line) {
  auto o = std::make_shared<TrainOptions>();
  o->model_path = default_model_path();
  o->command_line = command_line;
  CLI::App* sub = app.add_subcommand("train", "Train a drafter (ReDrafter, Medusa, EAGLE) on `draftbench distill` data");
  sub->add_option("--drafter", o->drafter, fmt::format("One of {}", trainable_kinds()))->required();
  sub->add_option("--data", o->data_dir, "A `draftbench distill` output directory")->required();
  sub->add_option("--out", o->out_dir, "Directory for the drafter (drafter.json + model.safetensors), logs and epoch checkpoints")->required();
  sub->add_option("--model", o->model_path, "The target model the data was distilled from (GGUF file or HF directory)")->capture_default_str();
  sub->add_option("--epochs", o->epochs, "Passes over the training positions")->capture_default_str();
  sub->add_option("--lr", o->lr, "Peak learning rate (AdamW; linear warm-up, then cosine decay to 0)")->capture_default_str()->check(finite_number(0.0, 10.0));
  sub->add_option("--batch-size", o->batch_size, fmt::format("Positions per optimiser step (EAGLE: sequence pairs); 0 = {}", kDefaultBatchSize))->capture_default_str();
  sub->add_option("--seed", o->seed, "Seed of the initialisation, example order and EAGLE's noise")->capture_default_str()->check(seed_value());
  sub->add_option("--draft-steps", o->draft_steps, "ReDrafter: draft steps (beam length - 1)")->capture_default_str();
  sub->add_option("--heads", o->medusa_heads, "Medusa: heads")->capture_default_str();
  sub->add_option("--num-layers", o->num_layers, "Residual blocks (ReDrafter: num_draft_layers, default 2; Medusa: per head, default 1)")->capture_default_str();
  sub->add_option("--labels", o->labels, "distilled (the target's greedy continuations) or ground_truth (the data's tokens); EAGLE learns the target's features either way")->capture_default_str();
  sub->add_option("--draft-vocab", o->draft_vocab, "Draft vocabulary: the most frequent response tokens, stop tokens always included")->capture_default_str();
  sub->add_option("--threads", o->threads, "Torch threads (0 = the machine's cores)")->capture_default_str()->check(thread_count());
  sub->add_option("--max-positions", o->max_positions, "Train on at most this many positions per epoch (0 = all)")->capture_default_str();
  sub->add_option("--max-steps", o->max_steps, "Stop after this many optimiser steps (0 = run every epoch)")->capture_default_str();
  sub->add_option("--warmup", o->warmup, "Share of the steps with a linear warm-up")->capture_default_str()->check(finite_number(0.0, 1.0));
  sub->add_option("--weight-decay", o->weight_decay, "AdamW's decoupled weight decay")->capture_default_str()->check(finite_number(0.0, 10.0));
  sub->add_option("--grad-clip", o->grad_clip, "Gradient clipping (< 0: the drafter's default: norm 1.0, EAGLE value 0.5; 0: off)")->capture_default_str()->check(finite_number(-1e9, 1e9));
  sub->add_option("--valid-fraction", o->valid_fraction, "Share of the corpus records held out for validation")->capture_default_str()->check(finite_number(0.0, 1.0));
  sub->add_option("--max-sequence-length", o->max_sequence_length, "EAGLE: positions of each sequence used")->capture_default_str();
  sub->add_option("--eagle-noise", o->eagle_noise, "EAGLE: uniform noise on the input features (the reference's std; 0 = off)")->capture_default_str()->check(finite_number(0.0, 1e3));
  sub->add_option("--dtype", o->dtype, "Exported weights: f16 or f32")->capture_default_str();
  sub->add_option("--log-every", o->log_every, "Optimiser steps between train_log.json entries")->capture_default_str();
  sub->add_flag("!--no-verify-checksums", o->verify_checksums, "Skip checking the shards' sha256 against the manifest");
  return [sub, o]() -> int {
    if (!sub->parsed()) return -1;
    o->progress = [](const std::string& line) {
      fmt::print(stderr, "train: {}\n", line);
      std::fflush(stderr);
    };
    const TrainResult r = train_drafter(*o);
    fmt::print(stderr, "wrote the trained {} drafter to {} ({} steps, {} positions, {:.0f} positions/s, {:.0f} s)\n", o->drafter, r.out_dir,
               r.optimizer_steps, r.positions_trained, r.positions_per_second, r.seconds);
    return 0;
  };
}

}  // namespace draftbench::cli
