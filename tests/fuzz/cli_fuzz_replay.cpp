// Runs the CLI fuzz target without libFuzzer, so every CI build exercises it: the seed
// corpus of tests/fuzz/corpus/cli (one argv per file, a word per line), then deterministic
// mutations of it (number-shaped words swapped in, words dropped, repeated or cut, bytes
// flipped). A crash, a sanitizer report or an accepted non-finite number fails it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/seed_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::string> seeds(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  return draftbench::test::read_seed_files(std::move(files));
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> words(1);
  for (char c : s) {
    if (c == '\n') words.emplace_back();
    else words.back() += c;
  }
  return words;
}

std::string join_lines(const std::vector<std::string>& words) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) s += (i ? "\n" : "") + words[i];
  return s;
}

void run(const std::string& s) { LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20000;
  const std::vector<std::string> corpus = seeds(std::filesystem::path(DRAFTBENCH_SOURCE_DIR) / "tests/fuzz/corpus/cli");
  if (corpus.size() < 10) {
    std::fprintf(stderr, "cli fuzz replay: only %zu seeds found\n", corpus.size());
    return 1;
  }
  for (const std::string& s : corpus) run(s);
  const char* numbers[] = {"nan",
                           "-nan",
                           "NaN",
                           "inf",
                           "-inf",
                           "infinity",
                           "1e309",
                           "-1e309",
                           "1e-40",
                           "4.9e-324",
                           "-0",
                           "0x10",
                           "0x1p-1074",
                           "-1",
                           "0",
                           "1",
                           "9223372036854775807",
                           "9223372036854775808",
                           "-9223372036854775809",
                           "18446744073709551616",
                           "2147483648",
                           "1e3",
                           "3.5",
                           "12abc",
                           " 7",
                           "",
                           "+1",
                           "1_000",
                           "0b101",
                           "auto",
                           "1/2",
                           "--",
                           "="};
  std::mt19937_64 rng(30);
  for (int it = 0; it < iterations; ++it) {
    std::vector<std::string> w = split_lines(corpus[rng() % corpus.size()]);
    const int n_mut = 1 + static_cast<int>(rng() % 3);
    for (int m = 0; m < n_mut; ++m) {
      const size_t at = 1 + rng() % std::max<size_t>(1, w.size() - 1);
      if (at >= w.size()) break;
      switch (rng() % 5) {
        case 0: w[at] = numbers[rng() % std::size(numbers)]; break;
        case 1: w[at] = w[at] + "=" + numbers[rng() % std::size(numbers)]; break;
        case 2: w.erase(w.begin() + static_cast<std::ptrdiff_t>(at)); break;
        case 3: w.insert(w.begin() + static_cast<std::ptrdiff_t>(at), w[at]); break;
        default:
          if (!w[at].empty()) w[at][rng() % w[at].size()] ^= static_cast<char>(1u << (rng() % 8));
      }
    }
    run(join_lines(w));
  }
  std::printf("cli fuzz replay: %zu seeds, %d mutated command lines, no crash\n", corpus.size(), iterations);
  return 0;
}
