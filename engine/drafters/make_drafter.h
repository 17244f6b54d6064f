// Building a drafter by name from its weights directory: the one place the CLI and the
// experiment runner turn options into a Drafter. Every default lives here.
#pragma once

#include <memory>
#include <string>

#include "engine/decoding/cost_model.h"
#include "engine/decoding/drafter.h"
#include "engine/drafters/draft_timing.h"
#include "engine/drafters/drafter_registry.h"
#include "engine/model/model.h"
#include "kernels/runtime/thread_pool.h"

namespace draftbench {

struct DrafterOptions {
  std::string kind = "autoregressive";  // a name of drafter_kinds()
  std::string weights_dir;              // required for the kinds that need weights
  // ReDrafter (engine/DESIGN.md §2.1, §3): beam_length includes the root.
  int beam_width = 8, beam_length = 5;
  bool tree_attention = true;             // off: every beam verified as its own chain
  int top_k_warp = 0;                     // > 0: keep only the top-k draft logits per step (reference: 50); 0 = off
  bool keep_draft_distributions = false;  // attach q per node (the lossy ReDrafter rule needs it)
  // Medusa: a "choices" file (paths of top-k ranks); empty = the tree shipped in experiments/trees/.
  // EAGLE with eagle_static_tree: the same format, ranks taken per parent.
  std::string tree_file;
  // EAGLE-2 dynamic tree.
  int depth = 5, top_k = 10, total_tokens = 60;
  bool eagle_static_tree = false;
  // EAGLE: draft from the first draft_vocab tokens of the drafter's vocabulary (the trainer
  // orders it by frequency) plus the stop tokens. Each draft pass reads one LM-head row per
  // token kept. 0 = auto: kAutoDraftVocab where sizing is auto, all of it where fixed.
  int draft_vocab = 0;
  static constexpr int kAutoDraftVocab = 8192;
  // EAGLE's layer: "q8_0" requantises its float weights once at load (drafts run on the
  // integer kernels, and may differ from the float ones' in near ties; what is generated
  // never does), "file" multiplies them as stored (parity with a float reference).
  std::string draft_weights = "q8_0";
  // At temperature > 0 with automatic sizing, the drafters with weights draft the chain of
  // coupled picks (engine/DESIGN.md §5.4) rather than their likeliest tokens.
  bool coupled_drafts = true;
  // n-gram lookup (ngram.h): suffix lengths tried, longest first; the nodes proposed
  // beyond the root (0 = auto: sized each step to the hardware, sized_drafter.h); distinct
  // continuations (branches) at most.
  int ngram_min = 1, ngram_max = 3, draft_tokens = 0, ngram_branches = 1;
  // The drafters with weights and the hybrids: "auto" verifies, each step, the part of the
  // drafted tree that pays on this machine (sized_drafter.h), the sizes above bounding what
  // is drafted; "fixed" verifies exactly the sizes above (ablations, the paper's tables).
  // Hybrids always size automatically. `generate` and specs default to kUserSizing; this
  // struct to fixed, so that code asking for sizes gets exactly those.
  static constexpr const char* kUserSizing = "auto";
  std::string sizing = "fixed";
  // What auto sizing weighs; set by the caller (obtain_cost_model) where
  // drafter_wants_cost_model(options).
  std::shared_ptr<const CostModel> cost;
  // How auto sizing learns a model drafter's real propose time (cached_draft_timer); unset:
  // the drafter's own estimate is taken as it is.
  DraftTimer time_drafter;
};

// Whether make_drafter needs options.cost: some size is `auto`.
bool drafter_wants_cost_model(const DrafterOptions& options);

// Throws InputError for an unknown kind (naming the known ones), a missing or malformed
// weights directory, weights that do not fit the target (hidden size, vocabulary), or
// option values out of range. `loaded`: what load_drafter_weights gave for these options,
// or null to load the weights here.
std::unique_ptr<Drafter> make_drafter(const DrafterOptions& options, const Model& target, ThreadPool& pool, std::unique_ptr<Drafter> loaded = nullptr);

// The first part of make_drafter, for a kind with weights: the weights read and checked
// against the target and the config, before automatic sizing wraps the drafter. Callers
// that must measure a cost model first load the weights before it, so that bad weights are
// refused at once rather than after seconds of calibration. Null for kinds without weights.
// Throws as make_drafter does.
std::unique_ptr<Drafter> load_drafter_weights(const DrafterOptions& options, const Model& target, ThreadPool& pool);

// Untrained drafter weights for a target, in draftbench's own format (drafter.json +
// model.safetensors, F32), written by `draftbench drafter init`: what the losslessness
// tests run, and a way to try the loop before a drafter is trained. Each kind initialises
// as its reference does where that is meaningful (Medusa's residual W = 0).
struct RandomDrafterSpec {
  std::string kind;         // medusa | eagle | redrafter
  int64_t draft_vocab = 0;  // rows of the draft output layer; 0 = the whole target vocabulary
  uint64_t seed = 0;
  int num_heads = 4;      // medusa
  int num_layers = 1;     // medusa: residual blocks per head; redrafter: residual blocks (num_draft_layers)
  bool own_head = false;  // medusa, redrafter: an own output layer rather than the target's LM head rows
};
// Throws InputError for an unknown kind or an unwritable directory.
void write_random_drafter(const RandomDrafterSpec& spec, const Model& target, const std::string& dir);

// `model` (null: the n-gram lookup alone) inside a SizedDrafter that trims each step's
// draft to what pays on this machine, the lookup's drafts merged in when with_lookup.
// options.cost must be set.
std::unique_ptr<Drafter> make_sized_drafter(bool with_lookup, std::unique_ptr<Drafter> model, const DrafterOptions& options);

}  // namespace draftbench
