#include "engine/train/distill.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/printable.h"
#include "engine/common/sha256.h"
#include "engine/decoding/decoder.h"
#include "engine/model/safetensors_checkpoint.h"
#include "engine/model/safetensors_writer.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/train/continuation_tree.h"
#include "engine/train/distill_archive.h"

namespace draftbench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct CorpusRecord {
  int32_t index = 0;  // among the file's records, in file order
  std::string id;     // the record's "id", or its 1-based line among the records
  std::string prompt, response;
};

// JSONL; blank lines skipped. Every record needs a string "prompt" (and "response" when
// `with_response`); `split` filters on an optional "split" field.
std::vector<CorpusRecord> read_corpus(const std::string& path, bool with_response, const std::string& split, int64_t limit) {
  std::istringstream in(read_regular_file(path, "corpus file (JSONL)", kMaxPromptBytes));
  std::vector<CorpusRecord> records;
  std::string line;
  int64_t line_no = 0;
  int32_t index = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", path, line_no);
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw InputError(where, "", "expected one JSON object per line");
    auto text = [&](const char* key) {
      if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
        throw InputError(where, fmt::format("field '{}'", key), "expected a non-empty string");
      return j[key].get<std::string>();
    };
    const int32_t this_index = index++;
    if (!split.empty() && j.contains("split") && j["split"] != split) continue;
    const std::string id = j.contains("id") && j["id"].is_string() ? j["id"].get<std::string>() : std::to_string(this_index + 1);
    records.push_back({this_index, id, text("prompt"), with_response ? text("response") : std::string()});
    if (limit > 0 && static_cast<int64_t>(records.size()) >= limit) break;
  }
  return records;
}

// JSONL {"id": ..., "followup": ...}: the second user turn of each record id.
std::map<std::string, std::string> read_followups(const std::string& path) {
  std::istringstream in(read_regular_file(path, "follow-ups file (JSONL)", kMaxPromptBytes));
  std::map<std::string, std::string> followups;
  std::string line;
  for (int64_t line_no = 1; std::getline(in, line); ++line_no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", path, line_no);
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw InputError(where, "", "expected one JSON object per line");
    for (const char* key : {"id", "followup"})
      if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
        throw InputError(where, fmt::format("field '{}'", key), "expected a non-empty string");
    if (!followups.emplace(j["id"].get<std::string>(), j["followup"].get<std::string>()).second)
      throw InputError(where, "field 'id'", fmt::format("id \"{}\" has a follow-up already", j["id"].get<std::string>()));
  }
  return followups;
}

struct WorkItem {
  SequenceKind kind;
  const CorpusRecord* record;
  int64_t sample_request = 0;  // sampled replies: the request id of their randomness
  std::string first_reply;     // second turns: the target's first reply, as text
  const std::string* followup = nullptr;
};

std::vector<int32_t> chat_tokens(const Model& model, const std::string& prompt, const std::string* reply) {
  std::vector<ChatMessage> messages{{"user", prompt}};
  if (reply) messages.push_back({"assistant", *reply});
  return encode_chat(model.tokenizer(), model.chat_template(), messages, reply == nullptr);
}

// The conversation a reply is generated after, with the generation prompt.
std::vector<int32_t> reply_prompt(const Model& model, const WorkItem& item) {
  if (item.kind != SequenceKind::second_turn) return chat_tokens(model, item.record->prompt, nullptr);
  const std::vector<ChatMessage> messages{{"user", item.record->prompt}, {"assistant", item.first_reply}, {"user", *item.followup}};
  return encode_chat(model.tokenizer(), model.chat_template(), messages, true);
}

// A reply position t is trained when token t+1 belongs to the reply.
DistillSequence make_sequence(std::vector<int32_t> tokens, size_t n_prompt, const WorkItem& item) {
  DistillSequence s;
  s.tokens = std::move(tokens);
  s.trained.assign(s.tokens.size(), 0);
  for (size_t t = n_prompt - 1; t + 1 < s.tokens.size(); ++t) s.trained[t] = 1;
  s.record = item.record->index;
  s.kind = item.kind;
  return s;
}

// A text record as a conversation: the prompt's tokens (with the generation prompt), then
// the reply up to and including its first stop token, cut to `max_tokens` in all.
std::optional<DistillSequence> text_sequence(const Model& model, const std::string& path, const WorkItem& item, int64_t max_tokens) {
  const std::vector<int32_t> prompt = chat_tokens(model, item.record->prompt, nullptr);
  std::vector<int32_t> full = chat_tokens(model, item.record->prompt, &item.record->response);
  if (full.size() <= prompt.size() || !std::equal(prompt.begin(), prompt.end(), full.begin()))
    throw InputError(path, fmt::format("record {}", item.record->index + 1),
                     "the chat template's tokens for the prompt alone are not a prefix of the whole conversation's");
  size_t end = prompt.size();
  while (end < full.size() && !model.tokenizer().is_stop(full[end])) ++end;
  full.resize(std::min(full.size(), end + 1));
  if (static_cast<int64_t>(full.size()) > max_tokens) full.resize(static_cast<size_t>(max_tokens));
  if (full.size() < prompt.size() + 2) return std::nullopt;  // no reply left to learn from
  return make_sequence(std::move(full), prompt.size(), item);
}

nlohmann::json settings_json(const DistillOptions& o) {
  // What shapes the data; the batch size and thread count do not (kernels are batch-invariant).
  // Later options appear only when set, so directories made before them still resume.
  nlohmann::json settings = {{"split", o.split},
                             {"max_prompts", o.max_prompts},
                             {"max_texts", o.max_texts},
                             {"sampled_every", o.sampled_every},
                             {"temperature", o.temperature},
                             {"max_new_tokens", o.max_new_tokens},
                             {"max_text_tokens", o.max_text_tokens},
                             {"draft_steps", o.draft_steps},
                             {"continuation_length", o.draft_steps + 1},
                             {"text_continuations", o.text_continuations},
                             {"shard_items", o.shard_items},
                             {"seed", o.seed}};
  if (!o.greedy_replies) settings["greedy_replies"] = false;
  if (!o.sampled_continuations) settings["sampled_continuations"] = false;
  if (!o.first_turns_dir.empty()) settings["second_turns"] = true;
  return settings;
}

void write_manifest(const std::string& dir, const nlohmann::json& manifest) {
  const std::string path = (fs::path(dir) / kDistillManifest).string();
  write_file_atomically(path, manifest.dump(2) + "\n");
}

// Autoregressive decoding that keeps the target's hidden state at every position it runs:
// the prompt's from the prefill, then each step's root. The reply's last token is never
// run, so a reply of R tokens leaves prompt + R - 1 rows.
class HiddenRecorder final : public Drafter {
 public:
  std::string name() const override { return "autoregressive"; }
  int32_t max_tree_nodes() const override { return 1; }
  bool wants_prompt_hidden() const override { return true; }
  void reset(int n) override { hidden_.assign(static_cast<size_t>(n), {}); }
  void begin(int seq, std::span<const int32_t>, std::span<const float> prompt_hidden) override {
    hidden_[static_cast<size_t>(seq)].assign(prompt_hidden.begin(), prompt_hidden.end());
  }
  void propose(const DraftContext& ctx, Draft& out) override { out.reset_to_root(ctx.root); }
  void accept(int seq, const AcceptedPath& path) override {
    hidden_[static_cast<size_t>(seq)].insert(hidden_[static_cast<size_t>(seq)].end(), path.hidden.begin(), path.hidden.end());
  }
  std::vector<float>& hidden(int seq) { return hidden_[static_cast<size_t>(seq)]; }

 private:
  std::vector<std::vector<float>> hidden_;
};

struct Reply {
  std::vector<int32_t> prompt, reply;
  std::vector<float> hidden;  // [prompt + reply - 1][n_embd]
};

// Replies for `items` (all greedy or all sampled), through the decoding loop in batches.
void generate_replies(const Model& model, Transformer& transformer, std::span<const WorkItem> items, const DistillOptions& o, std::vector<Reply>& out) {
  HiddenRecorder drafter;
  Decoder decoder(model, transformer, drafter);
  for (size_t b = 0; b < items.size(); b += static_cast<size_t>(o.batch_size)) {
    const size_t e = std::min(items.size(), b + static_cast<size_t>(o.batch_size));
    std::vector<std::vector<int32_t>> batch;
    for (size_t i = b; i < e; ++i) batch.push_back(reply_prompt(model, items[i]));
    DecodeOptions d;
    d.max_new_tokens = o.max_new_tokens;
    d.seed = o.seed;
    if (items[b].kind == SequenceKind::sampled_response) {
      d.sampling.temperature = o.temperature;
      // Consecutive sampled items have consecutive request ids: sequence s of this batch
      // draws as request first_request + s, whatever the batch size.
      d.first_request = static_cast<uint64_t>(items[b].sample_request);
    }
    std::vector<SequenceResult> results = decoder.generate(batch, d);
    for (size_t i = 0; i < batch.size(); ++i)
      out.push_back(Reply{std::move(batch[i]), std::move(results[i].tokens), std::move(drafter.hidden(static_cast<int>(i)))});
  }
}

// The work list, in the order items are distilled: each prompt's greedy reply (and, every
// `sampled_every` prompts, a sampled one after it), then the texts.
std::vector<WorkItem> work_items(const std::vector<CorpusRecord>& prompts, const std::vector<CorpusRecord>& texts, const DistillOptions& o) {
  std::vector<WorkItem> items;
  int64_t n_sampled = 0;
  for (size_t i = 0; i < prompts.size(); ++i) {
    if (o.greedy_replies) items.push_back({SequenceKind::greedy_response, &prompts[i], 0, {}, nullptr});
    if (o.sampled_every > 0 && i % static_cast<size_t>(o.sampled_every) == 0)
      items.push_back({SequenceKind::sampled_response, &prompts[i], n_sampled++, {}, nullptr});
  }
  for (const CorpusRecord& r : texts) items.push_back({SequenceKind::text, &r, 0, {}, nullptr});
  if (items.empty()) throw InputError(o.prompts_path.empty() ? o.texts_path : o.prompts_path, "", "no records to distill (check --split)");
  return items;
}

// The second turns: each greedy first reply in `o.first_turns_dir` (a finished distillation
// of the same prompts file by the same model) whose record has a follow-up, in that
// directory's order; at most `o.max_prompts` of them (0 = all).
std::vector<WorkItem> second_turn_items(const DistillOptions& o, const Model& model, const std::string& model_sha, const std::vector<CorpusRecord>& prompts,
                                        const std::map<std::string, std::string>& followups) {
  const DistillData first(o.first_turns_dir, true);
  const std::string manifest_path = (fs::path(o.first_turns_dir) / kDistillManifest).string();
  if (first.manifest()["target"].value("sha256", "") != model_sha)
    throw InputError(manifest_path, "field 'target.sha256'", "the first turns were distilled from another model file");
  const std::string prompts_sha = sha256_file(o.prompts_path);
  const nlohmann::json& inputs = first.manifest()["inputs"];
  if (std::none_of(inputs.begin(), inputs.end(), [&](const nlohmann::json& in) { return in.value("sha256", "") == prompts_sha; }))
    throw InputError(manifest_path, "field 'inputs'", fmt::format("the first turns were not distilled from {} (its SHA-256 is not listed)", o.prompts_path));
  std::map<int32_t, const CorpusRecord*> by_index;
  for (const CorpusRecord& r : prompts) by_index[r.index] = &r;
  const Tokenizer& tokenizer = model.tokenizer();
  std::vector<WorkItem> items;
  for (const std::string& path : first.shard_paths()) {
    const DistillShard shard(path, first.n_embd(), first.continuation_length());
    for (int64_t q = 0; q < shard.n_sequences(); ++q) {
      if (shard.kind()[q] != static_cast<uint8_t>(SequenceKind::greedy_response)) continue;
      const auto record = by_index.find(shard.record()[q]);
      if (record == by_index.end()) continue;  // another split
      const auto followup = followups.find(record->second->id);
      if (followup == followups.end()) continue;
      // A greedy sequence is trained from its last prompt position on: the reply follows it.
      int64_t t = shard.offsets()[q];
      const int64_t end = shard.offsets()[q + 1];
      while (t < end && !shard.trained()[t]) ++t;
      std::vector<int32_t> reply(shard.tokens().begin() + std::min(t + 1, end), shard.tokens().begin() + end);
      while (!reply.empty() && tokenizer.is_stop(reply.back())) reply.pop_back();
      if (reply.empty()) continue;
      // Decoded text may be cut inside a character: the chat template needs valid UTF-8.
      items.push_back({SequenceKind::second_turn, record->second, 0, replace_invalid_utf8(tokenizer.decode(reply)), &followup->second});
      if (o.max_prompts > 0 && static_cast<int64_t>(items.size()) >= o.max_prompts) return items;
    }
  }
  if (items.empty()) throw InputError(o.followups_path, "", fmt::format("no greedy first reply in {} has a follow-up here", o.first_turns_dir));
  return items;
}

// A manifest with no shard yet: the target, the settings and the inputs a resume must match.
nlohmann::json new_manifest(const DistillOptions& o, const Model& model, size_t n_prompts, size_t n_texts) {
  nlohmann::json manifest = {{"format", kDistillFormat},
                             {"version", kDistillFormatVersion},
                             {"complete", false},
                             {"target",
                              {{"path", o.model_path},
                               {"sha256", sha256_file(o.model_path)},
                               {"n_embd", model.config().n_embd},
                               {"n_vocab", model.config().n_vocab},
                               {"architecture", model.config().arch_name}}},
                             {"settings", settings_json(o)},
                             {"inputs", nlohmann::json::array()},
                             {"shards", nlohmann::json::array()},
                             {"command", o.command_line}};
  for (const auto& [path, n] : {std::pair{o.prompts_path, n_prompts}, std::pair{o.texts_path, n_texts}})
    if (!path.empty()) manifest["inputs"].push_back({{"path", path}, {"sha256", sha256_file(path)}, {"records", n}});
  return manifest;
}

// Resume: the same target, settings and inputs as the manifest already in the output
// directory, or nothing. Its finished shards, checked, are carried into `manifest`; returns
// the first item they do not cover, and `was_complete` whether the directory was finished.
// Without texts, the items of fewer prompts are a prefix of
// the items of more: a distillation may be extended (or stopped early) by --max-prompts alone.
size_t resume_shards(const DistillOptions& o, const std::string& manifest_path, bool prefix_extensible, size_t n_items, nlohmann::json& manifest,
                     DistillSummary& summary, bool& was_complete) {
  const nlohmann::json old = read_json_file(manifest_path, "distill manifest");
  was_complete = old.value("complete", false);
  for (const char* key : {"format", "version", "settings", "inputs"}) {
    nlohmann::json a = old.value(key, nlohmann::json()), b = manifest[key];
    for (auto* v : {&a, &b}) {
      if (std::string(key) == "inputs")  // paths may differ between machines; contents may not
        for (auto& input : *v) {
          input.erase("path");
          if (prefix_extensible) input.erase("records");
        }
      if (std::string(key) == "settings" && prefix_extensible && v->is_object()) v->erase("max_prompts");
    }
    if (a != b) throw InputError(manifest_path, fmt::format("field '{}'", key), "this directory was made with other options or inputs: use a new --out");
  }
  if (old["target"].value("sha256", "") != manifest["target"]["sha256"])
    throw InputError(manifest_path, "field 'target.sha256'", "this directory was made with another model file: use a new --out");
  size_t next_item = 0;
  for (const nlohmann::json& s : old["shards"]) {
    const std::string file = (fs::path(o.out_dir) / s["file"].get<std::string>()).string();
    if (!fs::exists(file) || sha256_file(file) != s["sha256"])
      throw InputError(file, "sha256", "missing or not the shard the manifest lists: delete it and the later entries, then resume");
    manifest["shards"].push_back(s);
    next_item = s["first_item"].get<size_t>() + s["items"].get<size_t>();
    ++summary.shards_skipped;
  }
  if (next_item > n_items)
    throw InputError(manifest_path, "field 'shards'", fmt::format("the finished shards cover {} items, more than the {} of these options", next_item, n_items));
  return next_item;
}

// The sequences of one shard's items, in the items' order: replies generated in two groups
// (greedy, sampled) and continuation trees over every sequence; items with nothing to
// learn from are left out.
std::vector<DistillSequence> distill_items(const Model& model, Transformer& transformer, ContinuationTree& tree, std::span<const WorkItem> shard_items,
                                           const DistillOptions& o) {
  std::vector<WorkItem> greedy, sampled;
  for (const WorkItem& it : shard_items) {
    if (it.kind == SequenceKind::greedy_response || it.kind == SequenceKind::second_turn) greedy.push_back(it);
    if (it.kind == SequenceKind::sampled_response) sampled.push_back(it);
  }
  std::vector<Reply> replies;
  generate_replies(model, transformer, greedy, o, replies);
  generate_replies(model, transformer, sampled, o, replies);
  const LabelRules rules{o.draft_steps + 1, o.sampled_continuations, o.text_continuations};
  std::vector<DistillSequence> sequences;
  size_t g = 0, s = greedy.size();
  for (const WorkItem& it : shard_items) {
    if (it.kind == SequenceKind::text) {
      std::optional<DistillSequence> seq = text_sequence(model, o.texts_path, it, o.max_text_tokens);
      if (!seq) continue;
      label_sequence(*seq, rules, model, tree, nullptr);
      sequences.push_back(std::move(*seq));
      continue;
    }
    Reply& r = replies[it.kind == SequenceKind::sampled_response ? s++ : g++];
    if (r.reply.size() < 3) continue;  // nothing to learn from
    std::vector<int32_t> tokens = r.prompt;
    tokens.insert(tokens.end(), r.reply.begin(), r.reply.end());
    DistillSequence seq = make_sequence(std::move(tokens), r.prompt.size(), it);
    label_sequence(seq, rules, model, tree, &r.hidden);
    sequences.push_back(std::move(seq));
  }
  return sequences;
}

// Writes shard `index` (items first..last) to the output directory; returns its manifest entry.
nlohmann::json write_shard(const DistillOptions& o, size_t index, const std::vector<DistillSequence>& sequences, int64_t n_embd, size_t first, size_t last,
                           Clock::time_point t_shard) {
  const std::string file = fmt::format("shard-{:05d}.safetensors", index);
  const std::string sha = write_distill_shard((fs::path(o.out_dir) / file).string(), sequences, n_embd, o.draft_steps + 1);
  int64_t n_tokens = 0, n_trained = 0;
  for (const DistillSequence& q : sequences) {
    n_tokens += static_cast<int64_t>(q.tokens.size());
    for (uint8_t t : q.trained) n_trained += t;
  }
  return {{"file", file},
          {"sha256", sha},
          {"sequences", sequences.size()},
          {"tokens", n_tokens},
          {"trained", n_trained},
          {"first_item", first},
          {"items", last - first},
          {"seconds", std::chrono::duration<double>(Clock::now() - t_shard).count()}};
}

// The manifest's totals over every shard, and the directory marked complete (written unless
// `write` is false: a directory that was complete already keeps its manifest's bytes).
void finish_manifest(const DistillOptions& o, size_t n_items, nlohmann::json& manifest, DistillSummary& summary, bool write) {
  int64_t sequences = 0, tokens = 0, trained = 0;
  for (const nlohmann::json& s : manifest["shards"]) {
    sequences += s["sequences"].get<int64_t>();
    tokens += s["tokens"].get<int64_t>();
    trained += s["trained"].get<int64_t>();
  }
  manifest["complete"] = true;
  manifest["totals"] = {{"items", n_items}, {"sequences", sequences}, {"tokens", tokens}, {"trained", trained}};
  if (write) write_manifest(o.out_dir, manifest);
  summary.items = static_cast<int64_t>(n_items);
  summary.sequences = sequences;
  summary.tokens = tokens;
  summary.trained = trained;
}

}  // namespace

void label_sequence(DistillSequence& seq, const LabelRules& rules, const Model& model, ContinuationTree& tree, std::vector<float>* recorded_hidden) {
  if (seq.kind == SequenceKind::text) return tree.run(seq, rules.text_continuations);
  if (seq.kind == SequenceKind::sampled_response && rules.sampled_continuations) return tree.run(seq, true);
  // A generated reply is its own label. Its last token was never run while generating, so
  // that row of hidden states is zero and the position before it is not trained (EAGLE
  // would regress onto the zero row). Rows recorded while generating are bit-identical to
  // a prefill's (batch-invariant kernels).
  const size_t n = seq.tokens.size(), E = static_cast<size_t>(model.config().n_embd);
  DB_CHECK(n >= 2);  // generated replies keep three tokens or more; archives two or more
  seq.trained[n - 2] = 0;
  if (recorded_hidden) {
    seq.hidden = std::move(*recorded_hidden);
    seq.hidden.resize(n * E, 0.0f);
    continuation_from_text(seq, rules.continuation_length, model.tokenizer());
  } else {
    tree.run(seq, false);
    std::fill(seq.hidden.end() - static_cast<std::ptrdiff_t>(E), seq.hidden.end(), 0.0f);
  }
}

DistillSummary run_distill(const DistillOptions& o, const std::function<void(const std::string&)>& progress, const std::function<void()>& manifest_changed) {
  const auto t_start = Clock::now();
  if (o.prompts_path.empty() && o.texts_path.empty()) throw InputError("distill", "--prompts/--texts", "give at least one corpus file");
  if (o.draft_steps < 1 || o.batch_size < 1 || o.shard_items < 1 || o.max_new_tokens < 1)
    throw InputError("distill", "options", "draft steps, batch size, shard items and max new tokens must be >= 1");

  const bool second_turns = !o.first_turns_dir.empty() || !o.followups_path.empty();
  if (second_turns && (o.first_turns_dir.empty() || o.followups_path.empty() || o.prompts_path.empty() || !o.texts_path.empty()))
    throw InputError("distill", "--followups/--first-turns", "second turns take --prompts, --followups and --first-turns together, and no --texts");
  // Second turns are limited by item (--max-prompts), not by prompt record.
  const std::vector<CorpusRecord> prompts =
      o.prompts_path.empty() ? std::vector<CorpusRecord>{} : read_corpus(o.prompts_path, false, o.split, second_turns ? 0 : o.max_prompts);
  const std::vector<CorpusRecord> texts = o.texts_path.empty() ? std::vector<CorpusRecord>{} : read_corpus(o.texts_path, true, "", o.max_texts);
  const std::map<std::string, std::string> followups = second_turns ? read_followups(o.followups_path) : std::map<std::string, std::string>{};
  auto model = Model::load(o.model_path);
  nlohmann::json manifest = new_manifest(o, *model, prompts.size(), texts.size());
  const std::vector<WorkItem> items =
      second_turns ? second_turn_items(o, *model, manifest["target"]["sha256"], prompts, followups) : work_items(prompts, texts, o);
  if (second_turns) {
    const std::string first_manifest = (fs::path(o.first_turns_dir) / kDistillManifest).string();
    manifest["inputs"].push_back({{"path", o.followups_path}, {"sha256", sha256_file(o.followups_path)}, {"records", followups.size()}});
    // The first turns by their replies, not their manifest's bytes: a directory restored on a
    // machine whose kernels round differently has other hidden states and shard checksums,
    // but the same replies, and second turns made from one may resume from the other.
    manifest["inputs"].push_back({{"path", first_manifest}, {"replies_sha256", distill_replies_sha256(o.first_turns_dir)}, {"records", items.size()}});
  }

  fs::create_directories(o.out_dir);
  const std::string manifest_path = (fs::path(o.out_dir) / kDistillManifest).string();
  DistillSummary summary;
  bool was_complete = false;
  size_t next_item = fs::exists(manifest_path) ? resume_shards(o, manifest_path, texts.empty(), items.size(), manifest, summary, was_complete) : 0;
  // A rerun with nothing left to do leaves the manifest alone: training fingerprints its
  // bytes, and the rerun's command line (another binary's path, say) changes no data.
  const bool already_complete = was_complete && next_item == items.size();
  if (!already_complete) write_manifest(o.out_dir, manifest);

  ThreadPool pool(o.threads > 0 ? o.threads : ThreadPool::default_threads());
  Transformer transformer(model->config(), model->weights(), pool);
  ContinuationTree tree(*model, transformer, o.draft_steps + 1);
  double recorded = 0;  // the slowest shard the manifest records, a first guess for the deadline
  for (const nlohmann::json& s : manifest["shards"]) recorded = std::max(recorded, s.value("seconds", 0.0));
  UnitDeadline guard(o.deadline, recorded);
  while (next_item < items.size()) {
    if (guard.must_stop(WallClock::now()) || (o.stop_after_shards > 0 && summary.shards_written >= o.stop_after_shards)) {
      summary.items = static_cast<int64_t>(items.size());
      summary.items_left = static_cast<int64_t>(items.size() - next_item);
      break;
    }
    const auto t_shard = Clock::now();
    const size_t first = next_item, last = std::min(items.size(), first + static_cast<size_t>(o.shard_items));
    const std::vector<DistillSequence> sequences = distill_items(*model, transformer, tree, std::span<const WorkItem>(items.data() + first, last - first), o);
    const nlohmann::json shard = write_shard(o, manifest["shards"].size(), sequences, model->config().n_embd, first, last, t_shard);
    manifest["shards"].push_back(shard);
    next_item = last;
    manifest["complete"] = next_item == items.size();
    write_manifest(o.out_dir, manifest);
    ++summary.shards_written;
    if (manifest_changed) manifest_changed();
    const double secs = std::chrono::duration<double>(Clock::now() - t_shard).count();
    guard.unit_took(secs);
    progress(fmt::format("{}: items {}..{} of {}, {} sequences, {} tokens ({} trained) in {:.1f} s", shard["file"].get<std::string>(), first, last,
                         items.size(), sequences.size(), shard["tokens"].get<int64_t>(), shard["trained"].get<int64_t>(), secs));
  }
  if (summary.items_left > 0) {
    summary.seconds = std::chrono::duration<double>(Clock::now() - t_start).count();
    return summary;  // the manifest lists the shards written; `complete` stays false
  }
  finish_manifest(o, items.size(), manifest, summary, !already_complete);
  if (manifest_changed && summary.shards_written > 0) manifest_changed();  // the totals are in
  summary.seconds = std::chrono::duration<double>(Clock::now() - t_start).count();
  return summary;
}

}  // namespace draftbench
