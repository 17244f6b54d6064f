// A distill directory without its hidden states: the manifest's exact text and every
// shard's sequences (tokens, trained positions, corpus record, kind).
//
// Why: generating the replies is most of distillation's time (the target decodes them one
// token per step), while their hidden states and continuations take about one prefill's
// work. An archive is small (about 6 bytes a token, JSON; git compresses it further), so
// the replies of hours of distillation can be kept in the repository and turned back into
// training data on any machine: `draftbench distill --restore ARCHIVE --out DIR`.
//
// A restored shard is byte-identical to the original where the kernels give the same bits
// as on the machine that made it (the manifest's checksums prove it shard by shard; the
// manifest is then written back verbatim). Where they differ (another instruction set), the
// hidden states are this machine's own: the shard is kept, its new checksum goes into the
// manifest, and the manifest records how many shards differ under "restored".
//
// Format (JSON Lines):
//   line 1: {"format": "draftbench-distill-archive", "version": 1, "manifest": "<text>"}
//           where <text> is manifest.json's exact text;
//   then one line per shard the manifest lists, in its order:
//     {"file": "shard-00000.safetensors", "sequences": [{"record": int, "kind": int,
//      "tokens": [int...], "trained": [[begin, end], ...]}, ...]}
//   "trained" lists the half-open runs of trained positions, ascending.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/common/deadline.h"
#include "engine/train/distill_data.h"

namespace draftbench {

inline constexpr const char* kDistillArchiveFormat = "draftbench-distill-archive";
inline constexpr int kDistillArchiveVersion = 1;

// Writes the archive of the distill directory `dir` (finished or not) to `archive_path`,
// atomically. Returns the number of sequences. Throws InputError naming the file for a
// directory that is not a distillation, or with `verify_checksums` a corrupt shard
// (hashing reads every shard's hidden states: skip it for shards just written).
int64_t write_distill_archive(const std::string& dir, const std::string& archive_path, bool verify_checksums = true);

// An archive read and checked: the manifest (its text and parsed), and each listed shard's
// sequences with tokens, trained, record and kind set (no hidden states or continuations).
struct DistillArchive {
  std::string manifest_text;
  nlohmann::json manifest;
  std::vector<std::vector<DistillSequence>> shards;
};

// Reads a whole archive from `in` (`name` is the file named in errors), checking every
// field: the format, a draftbench-distill manifest with the target's SHA-256 and vocabulary
// size, one line per listed shard in its order, token ids inside that vocabulary, trained
// runs inside their sequence. Throws InputError naming `name`, the line and the field.
DistillArchive read_distill_archive(std::istream& in, const std::string& name);

// SHA-256 (hex) of the directory's replies: its archive's shard lines (tokens, trained runs,
// records, kinds), without the manifest. The same wherever the directory was made or
// restored, whatever the hidden states' rounding.
std::string distill_replies_sha256(const std::string& dir);

struct RestoreSummary {
  int64_t shards_restored = 0, shards_skipped = 0, shards_differing = 0, sequences = 0;
  int64_t shards_left = 0;  // > 0: stopped for the deadline, the manifest not written yet
  double seconds = 0;
};

// Rebuilds `out_dir` from the archive with the model at `model_path` (the archive's target:
// its SHA-256 must match). Shards already there with the listed checksum are kept, so an
// interrupted restore resumes. The manifest is written last; a directory holding another
// distillation's manifest is refused. Throws InputError naming the
// archive, its line and the field for malformed or mismatched input. `progress` gets one
// line per shard. With a deadline, no shard is begun that would not end before it (the
// slowest shard so far, engine/common/deadline.h); a rerun continues.
RestoreSummary restore_distill_archive(const std::string& archive_path, const std::string& model_path, const std::string& out_dir, int threads,
                                       const std::function<void(const std::string&)>& progress, std::optional<WallClock::time_point> deadline = std::nullopt);

}  // namespace draftbench
