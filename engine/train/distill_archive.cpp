#include "engine/train/distill_archive.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "engine/common/sha256.h"
#include "engine/model/model.h"
#include "engine/model/safetensors_checkpoint.h"
#include "engine/train/continuation_tree.h"
#include "engine/train/distill.h"
#include "engine/train/distill_data.h"

namespace draftbench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// One shard's line: its file name and sequences, with trained positions as runs.
void append_shard_line(std::string& out, const std::string& file, const DistillShard& shard) {
  auto to = std::back_inserter(out);
  fmt::format_to(to, R"({{"file": {}, "sequences": [)", nlohmann::json(file).dump());
  for (int64_t s = 0; s < shard.n_sequences(); ++s) {
    const int64_t b = shard.offsets()[s], e = shard.offsets()[s + 1];
    fmt::format_to(to, R"({}{{"record": {}, "kind": {}, "tokens": [{}], "trained": [)", s ? ", " : "", shard.record()[s], shard.kind()[s],
                   fmt::join(shard.tokens().subspan(static_cast<size_t>(b), static_cast<size_t>(e - b)), ","));
    const char* separator = "";
    for (int64_t t = b; t < e; ++t) {
      if (!shard.trained()[t]) continue;
      const int64_t run = t;
      while (t < e && shard.trained()[t]) ++t;
      fmt::format_to(to, "{}[{},{}]", separator, run - b, t - b);
      separator = ",";
    }
    out += "]}";
  }
  out += "]}\n";
}

// Every shard's line, in the manifest's order; `sequences` counts them.
std::string shard_lines(const DistillData& data, int64_t& sequences) {
  std::string out;
  sequences = 0;
  for (const std::string& path : data.shard_paths()) {
    const DistillShard shard(path, data.n_embd(), data.continuation_length());
    append_shard_line(out, fs::path(path).filename().string(), shard);
    sequences += shard.n_sequences();
  }
  return out;
}

// Reads the archive line by line; errors name the file and the line.
class ArchiveReader {
 public:
  ArchiveReader(std::istream& in, const std::string& name) : in_(in), name_(name) {}
  std::string where() const { return fmt::format("{}:{}", name_, line_no_); }
  // The next non-blank line as a JSON object; false at the end of the input.
  bool next(nlohmann::json& out) {
    std::string line;
    while (std::getline(in_, line)) {
      ++line_no_;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      out = nlohmann::json::parse(line, nullptr, false);
      if (out.is_discarded() || !out.is_object()) throw InputError(where(), "", "expected one JSON object per line");
      return true;
    }
    return false;
  }

 private:
  std::istream& in_;
  std::string name_;
  int64_t line_no_ = 0;
};

// Whether `j` is an object whose `key` holds `value` (a missing key or another type: no;
// never throws, unlike json::value with a default).
template <class T>
bool has_value(const nlohmann::json& j, const char* key, const T& value) {
  return j.is_object() && j.contains(key) && j[key] == value;
}

bool is_int_in(const nlohmann::json& v, int64_t lo, int64_t hi) { return v.is_number_integer() && v.get<int64_t>() >= lo && v.get<int64_t>() <= hi; }

// One archived sequence, checked: record >= 0, a known kind, at least two tokens of the
// vocabulary, trained runs ascending inside [0, n - 1).
DistillSequence parse_sequence(const nlohmann::json& j, const std::string& where, int64_t index, int64_t n_vocab) {
  const std::string field = fmt::format("sequences[{}]", index);
  auto bad = [&](const char* key, const std::string& expected) { return InputError(where, fmt::format("field '{}.{}'", field, key), expected); };
  if (!j.is_object()) throw InputError(where, fmt::format("field '{}'", field), "expected an object");
  DistillSequence seq;
  if (!j.contains("record") || !is_int_in(j["record"], 0, INT32_MAX)) throw bad("record", "expected an integer >= 0");
  if (!j.contains("kind") || !is_int_in(j["kind"], 0, static_cast<int64_t>(SequenceKind::second_turn))) throw bad("kind", "expected an integer 0..3");
  if (!j.contains("tokens") || !j["tokens"].is_array() || j["tokens"].size() < 2) throw bad("tokens", "expected an array of at least two token ids");
  if (!j.contains("trained") || !j["trained"].is_array()) throw bad("trained", "expected an array of [begin, end] runs");
  seq.record = j["record"].get<int32_t>();
  seq.kind = static_cast<SequenceKind>(j["kind"].get<int>());
  for (const nlohmann::json& t : j["tokens"]) {
    if (!is_int_in(t, 0, n_vocab - 1)) throw bad("tokens", fmt::format("expected token ids in [0, {})", n_vocab));
    seq.tokens.push_back(t.get<int32_t>());
  }
  const int64_t n = static_cast<int64_t>(seq.tokens.size());
  seq.trained.assign(seq.tokens.size(), 0);
  int64_t previous_end = 0;
  for (const nlohmann::json& run : j["trained"]) {
    if (!run.is_array() || run.size() != 2 || !is_int_in(run[0], previous_end, n - 2) || !is_int_in(run[1], run[0].get<int64_t>() + 1, n - 1))
      throw bad("trained", fmt::format("expected ascending, disjoint [begin, end] runs inside [0, {}]", n - 1));
    for (int64_t t = run[0].get<int64_t>(); t < run[1].get<int64_t>(); ++t) seq.trained[static_cast<size_t>(t)] = 1;
    previous_end = run[1].get<int64_t>();
  }
  return seq;
}

// The archived manifest, checked as far as restoring needs it.
nlohmann::json parse_manifest(const nlohmann::json& header, const std::string& where) {
  if (!has_value(header, "format", kDistillArchiveFormat)) throw InputError(where, "field 'format'", fmt::format("expected \"{}\"", kDistillArchiveFormat));
  if (!has_value(header, "version", kDistillArchiveVersion)) throw InputError(where, "field 'version'", fmt::format("expected {}", kDistillArchiveVersion));
  if (!header.contains("manifest") || !header["manifest"].is_string()) throw InputError(where, "field 'manifest'", "expected the manifest's text as a string");
  const nlohmann::json m = nlohmann::json::parse(header["manifest"].get<std::string>(), nullptr, false);
  const auto bad = [&](const char* field, const char* expected) { return InputError(where, fmt::format("field 'manifest.{}'", field), expected); };
  if (m.is_discarded() || !m.is_object()) throw bad("", "expected a JSON object");
  if (!has_value(m, "format", kDistillFormat) || !has_value(m, "version", kDistillFormatVersion))
    throw bad("format", "expected a draftbench-distill manifest, version 1");
  if (!m.contains("target") || !m["target"].is_object() || !m["target"].contains("sha256") || !m["target"]["sha256"].is_string())
    throw bad("target.sha256", "expected the target model's SHA-256");
  if (!m["target"].contains("n_vocab") || !is_int_in(m["target"]["n_vocab"], 1, INT32_MAX)) throw bad("target.n_vocab", "expected a positive integer");
  if (!m.contains("settings") || !m["settings"].is_object() || !m["settings"].contains("continuation_length") ||
      !is_int_in(m["settings"]["continuation_length"], 2, 65))
    throw bad("settings.continuation_length", "expected an integer 2..65");
  for (const char* flag : {"sampled_continuations", "text_continuations"})
    if (m["settings"].contains(flag) && !m["settings"][flag].is_boolean()) throw bad("settings", "expected true or false in its continuation flags");
  if (!m.contains("shards") || !m["shards"].is_array()) throw bad("shards", "expected an array");
  for (const nlohmann::json& s : m["shards"])
    if (!s.is_object() || !s.contains("file") || !s["file"].is_string() || !s.contains("sha256") || !s["sha256"].is_string() ||
        s["file"].get<std::string>().find('/') != std::string::npos)
      throw bad("shards", "expected entries with a \"file\" name and a \"sha256\"");
  return m;
}

}  // namespace

std::string distill_replies_sha256(const std::string& dir) {
  int64_t sequences = 0;
  return sha256_hex(shard_lines(DistillData(dir, false, true), sequences));
}

int64_t write_distill_archive(const std::string& dir, const std::string& archive_path, bool verify_checksums) {
  const DistillData data(dir, verify_checksums, true);
  std::ifstream manifest_in(fs::path(dir) / kDistillManifest, std::ios::binary);
  std::ostringstream manifest_text;
  manifest_text << manifest_in.rdbuf();
  int64_t sequences = 0;
  const std::string lines = shard_lines(data, sequences);
  write_file_atomically(
      archive_path,
      nlohmann::json{{"format", kDistillArchiveFormat}, {"version", kDistillArchiveVersion}, {"manifest", manifest_text.str()}}.dump() + "\n" + lines);
  return sequences;
}

DistillArchive read_distill_archive(std::istream& in, const std::string& name) {
  ArchiveReader reader(in, name);
  nlohmann::json header;
  if (!reader.next(header)) throw InputError(name, "", "empty: expected a distill archive");
  DistillArchive archive;
  archive.manifest = parse_manifest(header, reader.where());
  archive.manifest_text = header["manifest"].get<std::string>();
  const int64_t n_vocab = archive.manifest["target"]["n_vocab"].get<int64_t>();
  const nlohmann::json& shards = archive.manifest["shards"];
  for (size_t k = 0; k < shards.size(); ++k) {
    nlohmann::json line;
    if (!reader.next(line)) throw InputError(name, "", fmt::format("ends after {} of the {} shards its manifest lists", k, shards.size()));
    const std::string file = shards[k]["file"].get<std::string>();
    if (!has_value(line, "file", file)) throw InputError(reader.where(), "field 'file'", fmt::format("expected \"{}\", the manifest's shard {}", file, k));
    if (!line.contains("sequences") || !line["sequences"].is_array()) throw InputError(reader.where(), "field 'sequences'", "expected an array");
    std::vector<DistillSequence>& sequences = archive.shards.emplace_back();
    for (const nlohmann::json& j : line["sequences"]) sequences.push_back(parse_sequence(j, reader.where(), static_cast<int64_t>(sequences.size()), n_vocab));
    if (shards[k].contains("sequences") && shards[k]["sequences"] != sequences.size())
      throw InputError(reader.where(), "field 'sequences'", fmt::format("expected the {} sequences the manifest lists", shards[k]["sequences"].dump()));
  }
  nlohmann::json extra;
  if (reader.next(extra)) throw InputError(reader.where(), "", fmt::format("more shard lines than the {} the manifest lists", shards.size()));
  return archive;
}

RestoreSummary restore_distill_archive(const std::string& archive_path, const std::string& model_path, const std::string& out_dir, int threads,
                                       const std::function<void(const std::string&)>& progress, std::optional<WallClock::time_point> deadline) {
  const auto t_start = Clock::now();
  std::ifstream in(archive_path);
  if (!in) throw InputError(archive_path, "", "cannot open the distill archive");
  DistillArchive archive = read_distill_archive(in, archive_path);
  nlohmann::json& manifest = archive.manifest;
  const std::string where = archive_path + ":1";
  if (sha256_file(model_path) != manifest["target"]["sha256"].get<std::string>())
    throw InputError(where, "field 'manifest.target.sha256'", fmt::format("the archive was distilled from another model file than {}", model_path));
  auto model = Model::load(model_path);
  if (model->config().n_vocab != manifest["target"]["n_vocab"].get<int64_t>())
    throw InputError(where, "field 'manifest.target.n_vocab'", fmt::format("expected {}, the vocabulary of {}", model->config().n_vocab, model_path));
  const nlohmann::json& settings = manifest["settings"];
  const LabelRules rules{settings["continuation_length"].get<int64_t>(), !has_value(settings, "sampled_continuations", false),
                         !has_value(settings, "text_continuations", false)};
  ThreadPool pool(threads > 0 ? threads : ThreadPool::default_threads());
  Transformer transformer(model->config(), model->weights(), pool);
  ContinuationTree tree(*model, transformer, rules.continuation_length);
  // A directory may hold this archive's restore, finished or not; never another distillation.
  const std::string manifest_path = (fs::path(out_dir) / kDistillManifest).string();
  if (fs::exists(manifest_path)) {
    const nlohmann::json there = read_json_file(manifest_path, "distill manifest");
    const bool this_restore = there == manifest ||  // not yet changed by a differing shard
                              (there.contains("restored") && has_value(there["restored"], "archive_sha256", sha256_file(archive_path)));
    if (!this_restore) throw InputError(manifest_path, "", "another distillation is already here (not this archive's): restore into a new --out");
  }
  fs::create_directories(out_dir);

  RestoreSummary summary;
  UnitDeadline guard(deadline, 0);
  for (size_t k = 0; k < archive.shards.size(); ++k) {
    nlohmann::json& entry = manifest["shards"][k];
    const std::string file = entry["file"].get<std::string>(), path = (fs::path(out_dir) / file).string();
    if (fs::exists(path) && sha256_file(path) == entry["sha256"].get<std::string>()) {
      ++summary.shards_skipped;
      continue;
    }
    if (guard.must_stop(WallClock::now())) {
      summary.shards_left = static_cast<int64_t>(archive.shards.size() - k);
      break;
    }
    const auto t_shard = Clock::now();
    std::vector<DistillSequence>& sequences = archive.shards[k];
    for (DistillSequence& seq : sequences) label_sequence(seq, rules, *model, tree, nullptr);
    const std::string sha = write_distill_shard(path, sequences, model->config().n_embd, rules.continuation_length);
    const int64_t n_sequences = static_cast<int64_t>(sequences.size());
    sequences = {};  // the hidden states are on disk now
    const bool differs = sha != entry["sha256"].get<std::string>();
    if (differs) {
      entry["sha256"] = sha;
      ++summary.shards_differing;
    }
    ++summary.shards_restored;
    summary.sequences += n_sequences;
    const double secs = std::chrono::duration<double>(Clock::now() - t_shard).count();
    guard.unit_took(secs);
    progress(fmt::format("{} ({} of {}): {:.1f} s{}", file, k + 1, archive.shards.size(), secs,
                         differs ? " (not the archived bytes: this machine's kernels round differently)" : ""));
  }
  if (summary.shards_left > 0) {
    // Stopped for the deadline: no manifest yet, so the directory is not taken for finished
    // data; the next run keeps the shards written and restores the rest.
  } else if (summary.shards_differing == 0) {
    write_file_atomically(manifest_path, archive.manifest_text);
  } else {
    // This machine's kernels round differently: its own hidden states, its own checksums.
    manifest["restored"] = {{"archive_sha256", sha256_file(archive_path)}, {"shards_differing", summary.shards_differing}};
    write_file_atomically(manifest_path, manifest.dump(2) + "\n");
  }
  summary.seconds = std::chrono::duration<double>(Clock::now() - t_start).count();
  return summary;
}

}  // namespace draftbench
