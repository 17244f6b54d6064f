// draftbench distill: the frozen target over a corpus -> drafter training shards (see
// engine/train/distill.h). Resumable: rerun the same command after an interruption.
// --restore and --archive turn a directory into its replies-only archive and back
// (engine/train/distill_archive.h).
#include <fmt/format.h>

#include <filesystem>

#include "app/commands.h"
#include "engine/common/error.h"
#include "engine/train/distill.h"
#include "engine/train/distill_archive.h"

namespace draftbench::cli {
namespace {

// With an archive path, the archive is rewritten after every shard written and after the
// finished manifest, so that a run killed part-way keeps what it generated, and never
// otherwise: a run with nothing left to
// distil leaves the archive as it is (after a restore on a machine that rounds differently,
// rewriting it would only change its header).
void distill_and_report(const DistillOptions& o, const std::function<void(const std::string&)>& progress, const std::string& archive) {
  std::function<void()> manifest_changed;
  if (!archive.empty()) manifest_changed = [&] { write_distill_archive(o.out_dir, archive, false); };
  const DistillSummary s = run_distill(o, progress, manifest_changed);
  if (s.items_left > 0) {
    const std::string why = o.deadline ? "for the deadline " + iso_utc(*o.deadline) : std::string("after --stop-after-shards");
    fmt::print("stopped {} with {} of {} items to go ({} shards written, {:.1f} s): rerun the same command to resume\n", why, s.items_left, s.items,
               s.shards_written, s.seconds);
    return;
  }
  fmt::print("distilled {} items: {} sequences, {} tokens ({} trained positions), {} shards written, {} already there, {:.1f} s\n", s.items, s.sequences,
             s.tokens, s.trained, s.shards_written, s.shards_skipped, s.seconds);
}

}  // namespace

Run add_distill(CLI::App& app, const std::string& command_line) {
  auto o = std::make_shared<DistillOptions>();
  o->model_path = default_model_path();
  CLI::App* sub = app.add_subcommand("distill", "Run the target over a corpus and write drafter training shards (resumable)");
  add_model_option(*sub, o->model_path, "Target model: GGUF file or HF directory");
  sub->add_option("--prompts", o->prompts_path, "JSONL prompts (\"prompt\", optional \"split\"): the target writes the replies");
  sub->add_option("--texts", o->texts_path, "JSONL conversations (\"prompt\", \"response\") with human-written replies");
  sub->add_option("--out", o->out_dir, "Output directory (manifest.json + shards)")->required();
  sub->add_option("--split", o->split, "Use only prompt records of this split (records without one are used)")->capture_default_str();
  sub->add_option("--max-prompts", o->max_prompts, "At most this many prompt records (0 = all)")->capture_default_str()->check(whole_number());
  sub->add_option("--max-texts", o->max_texts, "At most this many text records (0 = all)")->capture_default_str()->check(whole_number());
  sub->add_option("--sampled-every", o->sampled_every, "Every n-th prompt also gets a sampled reply (0 = none)")->capture_default_str()->check(whole_number());
  sub->add_flag("!--no-greedy", o->greedy_replies, "Prompts get their sampled replies only (with --sampled-every 1: one each)");
  sub->add_option("--temperature", o->temperature, "Temperature of the sampled replies")->capture_default_str()->check(finite_number(0.01, 10.0));
  sub->add_flag("!--no-sampled-continuations", o->sampled_continuations,
                "A sampled reply's labels are its own tokens: no continuation tree, as cheap as a greedy reply");
  sub->add_option("--followups", o->followups_path, "JSONL {\"id\", \"followup\"}: second user turns, with --first-turns");
  sub->add_option("--first-turns", o->first_turns_dir,
                  "A finished distill directory of greedy replies to --prompts: distil the target's reply to each one's follow-up instead");
  sub->add_option("--max-new-tokens", o->max_new_tokens, "Reply length limit")->capture_default_str()->check(CLI::Range(2, 65536));
  sub->add_option("--max-text-tokens", o->max_text_tokens, "Text conversations are cut to this many tokens")
      ->capture_default_str()
      ->check(CLI::Range(8, 1 << 20));
  sub->add_option("--draft-steps", o->draft_steps, "T: the greedy continuation is T + 1 tokens (the target's own next token, then T)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  sub->add_flag("!--no-text-continuations", o->text_continuations, "Texts get hidden states only (ground-truth labels), no greedy continuations");
  sub->add_option("--batch-size", o->batch_size, "Replies generated together")->capture_default_str()->check(CLI::Range(1, 256));
  sub->add_option("--shard-items", o->shard_items, "Work items per shard (the resume granularity)")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  sub->add_option("--seed", o->seed, "Seed of the sampled replies")->capture_default_str()->check(seed_value());
  sub->add_option("--threads", o->threads, "Worker threads (default: all cores)")->check(thread_count());
  auto restore = std::make_shared<std::string>(), archive = std::make_shared<std::string>(), deadline = std::make_shared<std::string>();
  sub->add_option("--deadline", *deadline,
                  "Begin no shard that would not end before this time (ISO 8601, e.g. 2026-11-26T18:00:00Z, or a duration from now: 5400, 90m, "
                  "2.5h); exit 0, and rerun the same command to resume");
  sub->add_option("--restore", *restore,
                  "First rebuild --out from this archive of a distillation (its replies without hidden states; engine/train/distill_archive.h)");
  sub->add_option("--archive", *archive,
                  "Write --out's archive (finished or not) to this file: after every shard distilled, at the end if the file is not there yet, and at once "
                  "without --prompts/--texts");
  sub->add_option("--stop-after-shards", o->stop_after_shards, "Stop as at a deadline after writing this many shards (0 = no limit; tests)")
      ->capture_default_str()
      ->check(whole_number());
  return [sub, o, command_line, restore, archive, deadline]() -> int {
    if (!sub->parsed()) return -1;
    o->command_line = command_line;
    if (!deadline->empty()) o->deadline = parse_deadline(*deadline, WallClock::now());
    const auto progress = [](const std::string& line) { fmt::print(stderr, "distill: {}\n", line); };
    if (!restore->empty()) {
      const RestoreSummary r = restore_distill_archive(*restore, o->model_path, o->out_dir, o->threads, progress, o->deadline);
      if (r.shards_left > 0) {
        fmt::print("stopped for the deadline {}: restored {} shards of {}, {} to go: rerun the same command to resume\n", iso_utc(*o->deadline),
                   r.shards_restored, *restore, r.shards_left);
        return 0;
      }
      fmt::print("restored {} shards ({} sequences) from {}, {} already there, {} not byte-identical to the archived ones, {:.1f} s\n", r.shards_restored,
                 r.sequences, *restore, r.shards_skipped, r.shards_differing, r.seconds);
    }
    const bool distilling = !o->prompts_path.empty() || !o->texts_path.empty();
    if (distilling) distill_and_report(*o, progress, *archive);
    else if (restore->empty() && archive->empty()) throw InputError("distill", "--prompts/--texts", "give a corpus file to distil (or --restore/--archive)");
    // Asked for alone, or not written yet (a directory finished before this run).
    if (!archive->empty() && (!distilling || !std::filesystem::exists(*archive)))
      fmt::print("archived {} sequences of {} in {}\n", write_distill_archive(o->out_dir, *archive), o->out_dir, *archive);
    return 0;
  };
}

}  // namespace draftbench::cli
