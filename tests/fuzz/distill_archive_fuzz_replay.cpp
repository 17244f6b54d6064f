// Runs the distill archive fuzz target without libFuzzer, so every CI build exercises it:
// every file of tests/fuzz/corpus/archive, then deterministic mutations of the valid
// archive two_shards.jsonl (byte flips, digits and JSON punctuation written over it,
// truncations, splices). A crash or sanitizer report fails the test.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>

#include "engine/train/distill_archive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20000;
  std::ifstream in(DRAFTBENCH_SOURCE_DIR "/tests/fuzz/corpus/archive/two_shards.jsonl", std::ios::binary);
  const std::string seed(std::istreambuf_iterator<char>(in), {});
  if (seed.empty()) {
    std::fprintf(stderr, "distill archive fuzz replay: cannot read the seed tests/fuzz/corpus/archive/two_shards.jsonl\n");
    return 1;
  }
  std::istringstream seed_in(seed);  // the seed itself reads: mutations start from valid input
  if (draftbench::read_distill_archive(seed_in, "two_shards.jsonl").shards.size() != 2) return 1;
  // Every file of the corpus, inputs libFuzzer once crashed on among them (found_*.jsonl).
  int corpus_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DRAFTBENCH_SOURCE_DIR "/tests/fuzz/corpus/archive")) {
    std::ifstream file(entry.path(), std::ios::binary);
    const std::string input(std::istreambuf_iterator<char>(file), {});
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    ++corpus_files;
  }

  std::mt19937_64 rng(2026);
  const std::string pieces[] = {"0", "-1", "9", "299", "300", "2147483648", "1e3", "[", "]", "{", "}", ",", "\"", ":", "null", "[[0,5]]", "\n"};
  for (int it = 0; it < iterations; ++it) {
    std::string b = seed;
    const int n_mut = 1 + static_cast<int>(rng() % 3);
    for (int m = 0; m < n_mut && !b.empty(); ++m) {
      const size_t at = rng() % b.size();
      switch (rng() % 4) {
        case 0: b[at] = static_cast<char>(b[at] ^ (1 << (rng() % 8))); break;
        case 1: b.replace(at, rng() % 4, pieces[rng() % std::size(pieces)]); break;
        case 2: b.resize(at); break;
        default: {
          const size_t from = rng() % seed.size(), len = rng() % 40;
          b.insert(at, seed.substr(from, len));
        }
      }
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(b.data()), b.size());
  }
  std::printf("distill archive fuzz replay: %d corpus files, %d mutated inputs, no crash\n", corpus_files, iterations);
  return 0;
}
