// Fuzz target for the distill archive reader (engine/train/distill_archive.h): any input
// either reads, and then every sequence has at least two tokens inside the manifest's
// vocabulary and a trained mask of its length with its last position untrained, or
// throws InputError. Anything else (a crash, a sanitizer report, another exception type)
// is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "engine/common/error.h"
#include "engine/train/distill_archive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const draftbench::DistillArchive archive = draftbench::read_distill_archive(in, "fuzz.jsonl");
    const int64_t n_vocab = archive.manifest["target"]["n_vocab"].get<int64_t>();
    if (archive.shards.size() != archive.manifest["shards"].size()) std::abort();
    for (const auto& shard : archive.shards)
      for (const draftbench::DistillSequence& s : shard) {
        if (s.tokens.size() < 2 || s.trained.size() != s.tokens.size() || s.trained.back() != 0) std::abort();
        for (int32_t t : s.tokens)
          if (t < 0 || t >= n_vocab) std::abort();
      }
  } catch (const draftbench::InputError&) {}
  return 0;
}
