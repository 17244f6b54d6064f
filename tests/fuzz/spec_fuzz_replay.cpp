// Runs the spec fuzz target without libFuzzer, so every CI build exercises it: the shipped
// specs and the bad ones of tests/experiments/bad_specs as seeds, then deterministic
// mutations of them (byte flips, YAML punctuation, aliases, extreme numbers, truncations,
// repeated lines). A crash, a hang (ctest's timeout) or another exception type fails it.
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

std::vector<std::string> seeds() {
  namespace fs = std::filesystem;
  const fs::path root = DRAFTBENCH_SOURCE_DIR;
  std::vector<fs::path> files;
  for (const fs::path& dir : {root / "experiments", root / "experiments" / "paper", root / "tests" / "experiments" / "bad_specs"})
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && (e.path().extension() == ".yaml" || e.path().extension() == ".json")) files.push_back(e.path());
  return draftbench::test::read_seed_files(std::move(files));
}

void run(const std::string& s) { LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  const std::vector<std::string> corpus = seeds();
  if (corpus.size() < 10) {
    std::fprintf(stderr, "spec fuzz replay: only %zu seed specs found\n", corpus.size());
    return 1;
  }
  for (const std::string& s : corpus) run(s);
  const char* tokens[] = {"[",
                          "]",
                          "{",
                          "}",
                          ":",
                          "- ",
                          "&a ",
                          "*a",
                          "!!str ",
                          "\"",
                          "'",
                          "\n",
                          "  ",
                          "#",
                          ".nan",
                          "-.inf",
                          "1e-40",
                          "1e309",
                          "-1",
                          "9223372036854775808",
                          "{from: 0, to: 9999}",
                          "\xff",
                          "\x00",
                          "~",
                          "? ",
                          "|",
                          ">",
                          "%YAML 1.2\n"};
  std::mt19937_64 rng(2024);
  for (int it = 0; it < iterations; ++it) {
    std::string s = corpus[rng() % corpus.size()];
    const int n_mut = 1 + static_cast<int>(rng() % 4);
    for (int m = 0; m < n_mut && !s.empty(); ++m) {
      const size_t at = rng() % s.size();
      switch (rng() % 5) {
        case 0: s[at] = static_cast<char>(s[at] ^ (1u << (rng() % 8))); break;
        case 1: {
          const char* t = tokens[rng() % std::size(tokens)];
          s.insert(at, t, t[0] == 0 ? 1 : std::char_traits<char>::length(t));
          break;
        }
        case 2: s.resize(at); break;
        case 3: {  // repeat a line
          const size_t begin = s.rfind('\n', at), end = s.find('\n', at);
          const size_t b = begin == std::string::npos ? 0 : begin + 1;
          s.insert(b, s.substr(b, (end == std::string::npos ? s.size() : end + 1) - b));
          break;
        }
        default: s.erase(at, 1 + rng() % 16);
      }
    }
    run(s);
  }
  std::printf("spec fuzz replay: %zu seeds, %d mutated specs, no crash\n", corpus.size(), iterations);
  return 0;
}
