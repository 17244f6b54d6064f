// Runs the GGUF fuzz target without libFuzzer, so every CI build exercises it: a valid
// file, then deterministic mutations of it (byte flips, overwrites with extreme values,
// truncations, splices). A crash or sanitizer report fails the test.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "engine/model/gguf_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20000;
  draftbench::GgufWriter w;
  w.kv("general.architecture", std::string("llama"));
  w.kv("llama.block_count", uint32_t{1});
  w.kv_strings("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a"});
  w.kv_floats("tokenizer.ggml.scores", {0, 0, 0, -1});
  w.tensor_f32("token_embd.weight", {4, 4}, std::vector<float>(16, 0.5f));
  std::vector<uint8_t> q8(34 * 2, 0);
  w.tensor("blk.0.attn_q.weight", draftbench::GgmlType::Q8_0, {32, 2}, q8);
  const std::vector<uint8_t> seed = w.bytes();
  LLVMFuzzerTestOneInput(seed.data(), seed.size());

  std::mt19937_64 rng(12345);
  const uint64_t extremes[] = {0, 1, 0x7F, 0xFF, 0xFFFF, 0xFFFFFFFF, 0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x8000000000000000, 32, 31};
  for (int it = 0; it < iterations; ++it) {
    std::vector<uint8_t> b = seed;
    const int n_mut = 1 + static_cast<int>(rng() % 4);
    for (int m = 0; m < n_mut; ++m) {
      const size_t at = rng() % b.size();
      switch (rng() % 4) {
        case 0: b[at] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
        case 1: {
          const uint64_t v = extremes[rng() % std::size(extremes)];
          const size_t width = size_t{1} << (rng() % 4);
          if (at + width <= b.size()) std::memcpy(&b[at], &v, width);
          break;
        }
        case 2: b.resize(at); break;
        default: {
          const size_t from = rng() % seed.size(), len = rng() % 32;
          if (from + len <= seed.size() && at + len <= b.size()) std::memcpy(&b[at], &seed[from], len);
        }
      }
      if (b.empty()) break;
    }
    LLVMFuzzerTestOneInput(b.data(), b.size());
  }
  std::printf("gguf fuzz replay: %d mutated inputs, no crash\n", iterations);
  return 0;
}
