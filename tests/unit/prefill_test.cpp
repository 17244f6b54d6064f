// Chunked prefill (engine/decoding/prefill.h) is bit-identical to one forward over the
// whole prompt, for any chunk size, several sequences of different lengths at once, and
// hidden states of every position or only the last.
#include <catch2/catch.hpp>

#include <random>

#include "engine/decoding/prefill.h"
#include "engine/model/model.h"
#include "engine/model/transformer.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;
using namespace draftbench::test;

TEST_CASE("prefill: chunks give exactly the one-shot forward's logits and hidden states", "[prefill]") {
  TempDir dir("prefill");
  const TinyLlama tiny = make_tiny_llama();
  write_llama_gguf(tiny, dir / "tiny.gguf");
  const auto model = Model::load(dir / "tiny.gguf");
  ThreadPool pool(2);
  Transformer tf(model->config(), model->weights(), pool);
  std::mt19937_64 rng(1);
  std::vector<std::vector<int32_t>> prompts;
  for (int len : {41, 7, 1, 64}) {
    std::vector<int32_t> p;
    for (int i = 0; i < len; ++i) p.push_back(static_cast<int32_t>(rng() % static_cast<uint64_t>(tiny.vocab())));
    prompts.push_back(p);
  }
  // One-shot reference: every prompt whole, all hidden rows.
  KvCache ref_cache(model->config(), 4, 80);
  ForwardBatch batch;
  for (int s = 0; s < 4; ++s) {
    const auto len = static_cast<int32_t>(prompts[static_cast<size_t>(s)].size());
    SequenceInput in{s, prompts[static_cast<size_t>(s)], TokenTree::chain(len), {len - 1}, {}};
    for (int32_t r = 0; r < len; ++r) in.hidden_rows.push_back(r);
    batch.sequences.push_back(in);
  }
  ForwardResult ref;
  tf.forward(batch, ref_cache, ref);

  for (int32_t chunk : {1, 5, 16, 64, 512})
    for (bool all_hidden : {true, false}) {
      INFO("chunk " << chunk << " all_hidden " << all_hidden);
      KvCache cache(model->config(), 4, 80);
      std::vector<PrefillInput> inputs;
      for (int s = 0; s < 4; ++s) inputs.push_back(PrefillInput{s, prompts[static_cast<size_t>(s)], all_hidden});
      PrefillOutput out;
      prefill(tf, cache, inputs, out, chunk);
      int64_t ref_row = 0;
      for (size_t s = 0; s < 4; ++s) {
        const auto len = static_cast<int64_t>(prompts[s].size());
        REQUIRE(cache.committed(static_cast<int>(s)) == len);
        const auto l = out.logits_of(s), lr = ref.logits_row(static_cast<int64_t>(s));
        REQUIRE(std::equal(l.begin(), l.end(), lr.begin(), lr.end()));
        const auto h = out.hidden_of(s);
        const int64_t first = all_hidden ? 0 : len - 1;
        REQUIRE(static_cast<int64_t>(h.size()) == (len - first) * model->config().n_embd);
        for (int64_t r = first; r < len; ++r) {
          const auto hr = ref.hidden_row(ref_row + r);
          REQUIRE(std::equal(hr.begin(), hr.end(), h.begin() + (r - first) * model->config().n_embd));
        }
        ref_row += len;
      }
    }
}
