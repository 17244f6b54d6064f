// `draftbench distill` (issue 4, "Data"): run the frozen target over a corpus and write the
// training shards of distill_data.h.
//
// Work items, in this order (the order is the resume key):
//   - for each prompt record of the chosen split (file order): the target's greedy reply,
//     and, for every `sampled_every`-th one, also a sampled reply (temperature
//     `temperature`, randomness keyed by the item's index, so independent of batching);
//   - for each text record: its given reply (a human-written ground-truth corpus).
//   - or, with `first_turns_dir` (a finished distillation of greedy replies to the same
//     prompts file) and `followups_path`: for each greedy sequence of that directory, in its
//     order, whose record has a follow-up, a second turn: the target's greedy reply to
//     [prompt, its own first reply, follow-up]. Only the second reply is trained; the
//     first is context, as in MT-Bench's second turns. The work list is then these items
//     alone (sampling options do not apply).
// Replies are generated through the one decoding loop (autoregressive drafter, batched),
// in the model's chat template. Each item then becomes a DistillSequence through a
// ContinuationTree: hidden states everywhere and, for sampled replies (unless
// `sampled_continuations` is off: then, like greedy replies, their own tokens are their
// labels) and texts (unless `text_continuations` is off), the target's greedy continuation
// at every reply position.
//
// Every `shard_items` items a shard is written and the manifest updated, both atomically.
// A rerun with the same options and inputs skips the listed shards; different ones are
// refused (one output directory per distillation).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/common/deadline.h"
#include "engine/model/model.h"
#include "engine/train/continuation_tree.h"
#include "engine/train/distill_data.h"

namespace draftbench {

struct DistillOptions {
  std::string model_path;
  std::string prompts_path;  // JSONL: {"prompt": ..., optional "split", "id", "category"}; may be empty
  std::string texts_path;    // JSONL: {"prompt": ..., "response": ...}; may be empty
  std::string out_dir;
  std::string split = "train";  // prompt records whose "split" differs are skipped (absent = used)
  int64_t max_prompts = 0;      // 0 = all (of the split)
  int64_t max_texts = 0;        // 0 = all
  int sampled_every = 10;       // 0 = greedy replies only
  bool greedy_replies = true;   // false: prompts get their sampled replies only
  float temperature = 1.0f;
  // false: a sampled reply's labels are its own tokens (what sampling at `temperature`
  // drafts against) and no continuation tree runs, which makes it as cheap as a greedy one.
  bool sampled_continuations = true;
  std::string followups_path;   // JSONL {"id", "followup"}; with first_turns_dir
  std::string first_turns_dir;  // a finished `distill --prompts` directory (see above)
  int max_new_tokens = 128;
  int64_t max_text_tokens = 768;  // longer text sequences are cut (reply tokens kept first)
  int draft_steps = 5;            // T: continuation length C = T + 1
  bool text_continuations = true;
  int batch_size = 8;
  int shard_items = 64;
  uint64_t seed = 0;
  int threads = 0;           // 0 = all cores
  std::string command_line;  // recorded in the manifest
  // No shard is begun that would not end before it: the slowest shard of this run, or before
  // one is timed the slowest the manifest records (engine/common/deadline.h). Rerun to resume.
  std::optional<WallClock::time_point> deadline;
  int64_t stop_after_shards = 0;  // > 0: stop the same way after writing this many shards
};

struct DistillSummary {
  int64_t items = 0, sequences = 0, tokens = 0, trained = 0;
  int64_t shards_written = 0, shards_skipped = 0;
  int64_t items_left = 0;  // > 0: stopped for the deadline with this many items to go
  double seconds = 0;
};

// Throws InputError naming the file and field for bad input (missing or malformed corpus,
// a directory made with other options). `progress` gets one line per shard;
// `manifest_changed`, when set, runs after each new shard and its manifest are on disk and
// once more after the finished manifest (totals) of a run that wrote shards; never in a run
// that found nothing to do. The CLI rewrites the directory's archive there, so a killed run
// keeps its replies.
DistillSummary run_distill(const DistillOptions& options, const std::function<void(const std::string&)>& progress,
                           const std::function<void()>& manifest_changed = {});

// How distillation labels a sequence of each kind: the one rule run_distill and the
// restore of an archive (distill_archive.h) share.
//   - text: hidden states by a prefill; the target's greedy continuations when
//     `text_continuations`, else its own tokens;
//   - sampled reply with `sampled_continuations`: hidden states and greedy continuations
//     from the continuation tree;
//   - any other generated reply (greedy, second turn, sampled without continuations): its
//     own tokens are its labels; its last token's hidden row is zero (generation never runs
//     it) and the position before it is not trained.
struct LabelRules {
  int64_t continuation_length = 0;  // C
  bool sampled_continuations = true;
  bool text_continuations = true;
};

// Fills seq.hidden and seq.continuation (seq.tokens, trained and kind set). For a generated
// reply, `recorded_hidden` holds the rows generation recorded (prompt + reply - 1; moved
// from), or is null to compute them by a prefill, which gives the same bits.
void label_sequence(DistillSequence& seq, const LabelRules& rules, const Model& model, ContinuationTree& tree, std::vector<float>* recorded_hidden);

}  // namespace draftbench
