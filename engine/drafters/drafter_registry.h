// The drafter registry: one entry per drafter kind, the one table the command line, the
// spec loader, the sweep grid and runner, the checkpoint loader and the trainer read.
// engine/drafters/README.md walks through adding a kind.
//
// A kind's entry lives with the kind (a `<kind>_kind()` function in its own source file)
// and is listed once in drafter_registry.cpp; the hybrids `<kind>+ngram` are derived from
// the kinds that allow them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace draftbench {

class Drafter;
class DrafterCheckpoint;
class Model;
class ThreadPool;
struct DrafterOptions;
struct RandomDrafterSpec;

// What the sweep planner expects of one step, per sequence: tokens verified (root
// included) and tokens gained. A rough model (sweep_runner.cpp's estimate_seconds).
struct StepEstimate {
  double verified = 1, tokens_per_step = 1;
};

// How `draftbench train` trains a kind (engine/train/drafter_training.h).
struct TrainingNet {
  const char* net;  // the torch session's network (engine/train/torch/torch_session.cpp)
  // Where its number of draft steps comes from: --draft-steps, --heads, or one step.
  enum class Steps { draft_steps, heads, one } steps;
  int default_layers;  // residual blocks when --num-layers is 0
  bool step_inputs;    // each step reads the embedding of the previous step's token (ReDrafter)
  bool features;       // learns the target's features over whole sequences (EAGLE), not per-position labels
};

struct DrafterKind {
  const char* name;
  bool needs_weights;  // a weights directory (drafter.json, or a reference config.json)
  // The kind whose weights it reads: itself, or a hybrid's model drafter ("eagle" for
  // "eagle+ngram"). Also names the shipped weights, models/drafters/<weights_of>.
  const char* weights_of;
  bool with_lookup;  // a hybrid: the n-gram lookup's drafts merged into the model's
  // `checkpoint` is null exactly when !needs_weights.
  std::unique_ptr<Drafter> (*make)(DrafterCheckpoint* checkpoint, const DrafterOptions& options, const Model& target, ThreadPool& pool);
  // Untrained weights for `drafter init`; null for kinds without weights of their own.
  void (*write_random)(const RandomDrafterSpec& spec, const Model& target, const std::string& dir);
  // Whether these options size drafts automatically (and so need options.cost); null: never.
  bool (*sizes_automatically)(const DrafterOptions& options);
  // The setting groups it reads (axis_table.h's SettingGroup bits), given its options.
  uint32_t (*reads)(const DrafterOptions& options);
  // The planner's step model; null: autoregressive decoding.
  StepEstimate (*estimate)(const DrafterOptions& options);
  // Checkpoint formats. drafter.json's fields beyond the header (format, version, drafter,
  // training, seed, trained), as its loader reads them and its writers write them.
  std::span<const std::string_view> config_keys;
  // Whether a reference config.json (and the tensor names beside it) holds this kind; null:
  // no reference layout.
  bool (*is_reference)(const nlohmann::json& config, const std::vector<std::string>& tensor_names);
  // How `draftbench train` trains it; null: not trainable.
  const TrainingNet* training;
  // Whether `<name>+ngram` exists: this kind's drafts merged with the n-gram lookup's.
  bool pairs_with_lookup;
};

// Every kind, the hybrids last.
std::span<const DrafterKind> drafter_kinds();
// Null for an unknown name.
const DrafterKind* find_drafter_kind(std::string_view name);
// The kind whose weights `name` reads (itself for all but the hybrids); `name` if unknown.
std::string drafter_weights_kind(std::string_view name);
// "autoregressive, medusa, eagle, ..."; with_weights: the kinds `drafter init` writes weights for.
std::string known_drafters(bool with_weights = false);
// "medusa, eagle, redrafter": the kinds a checkpoint directory may hold.
std::string checkpoint_kinds();
// "medusa, eagle, redrafter": the kinds `draftbench train` trains.
std::string trainable_kinds();

// Shared by the kinds' entries: whether options.sizing is "auto".
bool sizing_is_auto(const DrafterOptions& options);

}  // namespace draftbench
