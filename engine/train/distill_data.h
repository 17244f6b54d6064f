// Training data for drafters, as `draftbench distill` writes it (engine/DESIGN.md §7): a directory
// with `manifest.json` and shards `shard-NNNNN.safetensors`.
//
// A shard holds whole sequences (chat-templated conversations), concatenated:
//   tokens        I32 [N]          the sequence tokens (prompt, then response)
//   offsets       I64 [S + 1]      sequence s is tokens[offsets[s] .. offsets[s+1])
//   trained       U8  [N]          1 at position t when token t+1 is a response token: the
//                                  positions a drafter learns at (the target's own head
//                                  predicts t+1 from hidden[t], so drafts start at t+2)
//   hidden        F16 [N, n_embd]  the target's last-layer hidden state after the final
//                                  norm at every position (the frozen LLM's input to drafters)
//   continuation  I32 [N, C]       at trained positions: c_1..c_C, the target's own greedy
//                                  continuation after position t (c_1 = argmax at t, then
//                                  each next token given the previous ones); -1 where
//                                  unknown (untrained positions, or past the end of a greedy
//                                  response that stopped). C = draft_steps + 1.
//   record        I32 [S]          the corpus record each sequence came from
//   kind          U8  [S]          SequenceKind
//
// Labels, for a drafter with T = C - 1 draft steps at trained position t of a sequence:
//   ground truth: root = tokens[t+1], step i (0-based) target tokens[t+i+2] (-1 past the end)
//   distilled:    root = continuation[t][0], step i target continuation[t][i+1]
// For a greedy response the two agree inside the response: the text is the target's own
// continuation.
//
// manifest.json: {"format": "draftbench-distill", "version": 1, "complete": bool,
//   "target": {"path", "sha256", "n_embd", "n_vocab", "architecture"},
//   "settings": {...the distill options that shape the data...},
//   "inputs": [{"path", "sha256", "records"}],
//   "shards": [{"file", "sha256", "sequences", "tokens", "trained", "first_item", "items"}],
//   "totals": {...}}
// Items are the run's work list in order (a record's greedy and sampled responses are two
// items); shard k covers items [first_item, first_item + items). Shards and the manifest are
// written to a temporary name and renamed, so a killed run leaves only whole shards and
// resumes after the last one listed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace draftbench {

inline constexpr const char* kDistillFormat = "draftbench-distill";
inline constexpr int kDistillFormatVersion = 1;
inline constexpr const char* kDistillManifest = "manifest.json";

enum class SequenceKind : uint8_t {
  greedy_response = 0,   // the target's greedy reply: continuation = the text itself
  sampled_response = 1,  // the target's sampled reply: continuation from the token tree
  text = 2,              // a reply not written by the target (ground-truth corpus)
  second_turn = 3,       // the target's greedy reply to a follow-up after its own first reply
};

// One sequence, as the distiller builds it in memory before a shard is written.
struct DistillSequence {
  std::vector<int32_t> tokens;
  std::vector<uint8_t> trained;       // [n]
  std::vector<float> hidden;          // [n][n_embd]
  std::vector<int32_t> continuation;  // [n][C]
  int32_t record = 0;
  SequenceKind kind = SequenceKind::text;
};

// Writes one shard file (atomically: temporary name, then rename) and returns its SHA-256
// (hex). Throws InputError naming the path on I/O failure.
std::string write_distill_shard(const std::string& path, std::span<const DistillSequence> sequences, int64_t n_embd, int64_t continuation_length);

// A shard, mapped. Spans stay valid while the object lives.
class DistillShard {
 public:
  // Checks names, dtypes and shapes against each other and against n_embd / C; throws
  // InputError naming the file and the tensor.
  DistillShard(const std::string& path, int64_t n_embd, int64_t continuation_length);
  ~DistillShard();
  DistillShard(const DistillShard&) = delete;
  DistillShard& operator=(const DistillShard&) = delete;

  int64_t n_sequences() const { return static_cast<int64_t>(offsets_.size()) - 1; }
  int64_t n_tokens() const { return static_cast<int64_t>(tokens_.size()); }
  std::span<const int32_t> tokens() const { return tokens_; }
  std::span<const int64_t> offsets() const { return offsets_; }
  std::span<const uint8_t> trained() const { return trained_; }
  std::span<const uint16_t> hidden_f16() const { return hidden_; }         // [N][n_embd], IEEE half bits
  std::span<const int32_t> continuation() const { return continuation_; }  // [N][C]
  std::span<const int32_t> record() const { return record_; }
  std::span<const uint8_t> kind() const { return kind_; }

 private:
  struct Mapping;
  std::unique_ptr<Mapping> file_;
  std::span<const int32_t> tokens_, continuation_, record_;
  std::span<const int64_t> offsets_;
  std::span<const uint8_t> trained_, kind_;
  std::span<const uint16_t> hidden_;
};

// A distill directory: the manifest checked (format, version, complete unless
// allow_incomplete), every shard's checksum verified when `verify_checksums`.
class DistillData {
 public:
  DistillData(const std::string& dir, bool verify_checksums, bool allow_incomplete = false);

  const std::string& dir() const { return dir_; }
  const nlohmann::json& manifest() const { return manifest_; }
  int64_t n_embd() const { return n_embd_; }
  int64_t continuation_length() const { return continuation_length_; }  // C = draft steps + 1
  std::vector<std::string> shard_paths() const;

 private:
  std::string dir_;
  nlohmann::json manifest_;
  int64_t n_embd_ = 0, continuation_length_ = 0;
};

}  // namespace draftbench
