// make-model's gemma3-270m-q4_k_m recipe (engine/model/synthetic_model.h) against the
// default model itself: the same tensors (names, shapes, types, in file order), the same
// ModelConfig in every field, the same architecture and tokenizer keys, vocabulary size
// and special ids. This is what keeps the recipe honest. And the random-weight model it
// writes decodes greedily into finite logits and varied tokens.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <set>

#include "engine/model/gguf_vocab.h"
#include "engine/model/model.h"
#include "engine/model/synthetic_model.h"
#include "engine/model/transformer.h"
#include "tests/support/default_model.h"
#include "tests/support/greedy_reference.h"
#include "tests/support/logit_compare.h"
#include "tests/support/temp_dir.h"

using namespace draftbench;
using namespace draftbench::test;

namespace {

// Written and loaded once per test binary.
const Model& synthetic_270m() {
  static const TempDir dir("make_model_270m");
  static const std::unique_ptr<Model> model = [] {
    const ModelRecipe* recipe = find_model_recipe("gemma3-270m-q4_k_m");
    REQUIRE(recipe != nullptr);
    write_synthetic_model(*recipe, 1, dir / "synthetic.gguf");
    return Model::load(dir / "synthetic.gguf");
  }();
  return *model;
}

// A metadata value as text: scalars only (the keys compared here are scalars).
std::string scalar_text(const GgufValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, uint64_t> || std::is_same_v<T, int64_t> || std::is_same_v<T, double> || std::is_same_v<T, bool>)
          return fmt::format("{}", x);
        else if constexpr (std::is_same_v<T, std::string>) return x;
        else return "array";
      },
      v.data);
}

std::vector<std::string> config_fields(const ModelConfig& c) {
  return {fmt::format("arch {} {}", static_cast<int>(c.arch), c.arch_name),
          fmt::format("n_vocab {} n_embd {} n_layers {} n_ff {}", c.n_vocab, c.n_embd, c.n_layers, c.n_ff),
          fmt::format("heads {} kv {} head_dim {} context {}", c.n_heads, c.n_kv_heads, c.head_dim, c.context_length),
          fmt::format("rms_eps {} rope {} local {} style {}", c.rms_eps, c.rope_base, c.rope_base_local, static_cast<int>(c.rope_style)),
          fmt::format("window {} period {} scale {}", c.sliding_window, c.swa_period, c.attention_scale),
          fmt::format("scale_embeddings {} qk_norm {} post_norms {} softcap {} activation {}", c.scale_embeddings, c.qk_norm, c.post_norms,
                      c.final_logit_softcap, static_cast<int>(c.activation))};
}

}  // namespace

TEST_CASE("make-model's gemma3-270m-q4_k_m recipe is the default model's shape", "[model][make-model]") {
  const Model& real = default_model();
  const Model& fake = synthetic_270m();

  const std::vector<GgufTensor>& want = real.gguf()->tensors();
  const std::vector<GgufTensor>& got = fake.gguf()->tensors();
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("tensor " << i << ": " << want[i].name);
    CHECK(got[i].name == want[i].name);
    CHECK(got[i].ne == want[i].ne);
    CHECK(ggml_type_name(got[i].type) == ggml_type_name(want[i].type));
    CHECK(got[i].n_bytes == want[i].n_bytes);
  }

  CHECK(config_fields(fake.config()) == config_fields(real.config()));
  CHECK(fake.config() == real.config());

  // Every key the engine reads lives under general.architecture's name or tokenizer.ggml;
  // the synthetic file has each of the real file's with the same type and value (the
  // vocabulary arrays: same length), and no key the real file lacks.
  const auto& real_keys = real.gguf()->metadata();
  const auto& fake_keys = fake.gguf()->metadata();
  for (const auto& [key, value] : real_keys) {
    const bool read_by_engine = key.starts_with("gemma3.") || key.starts_with("tokenizer.ggml.") || key == "general.architecture" ||
                                key == "general.file_type" || key == "general.quantization_version" || key == "general.alignment";
    if (!read_by_engine) continue;
    INFO(key);
    REQUIRE(fake_keys.count(key) == 1);
    const GgufValue& mine = fake_keys.at(key);
    CHECK(gguf_value_type_name(mine.type) == gguf_value_type_name(value.type));
    if (value.type != GgufValueType::ARRAY) CHECK(scalar_text(mine) == scalar_text(value));
  }
  for (const auto& [key, value] : fake_keys) {
    INFO(key);
    CHECK(real_keys.count(key) == 1);
  }

  const VocabSpec real_vocab = vocab_spec_from_gguf(*real.gguf()), fake_vocab = vocab_spec_from_gguf(*fake.gguf());
  CHECK(fake_vocab.pieces.size() == real_vocab.pieces.size());
  CHECK(fake_vocab.bos_id == real_vocab.bos_id);
  CHECK(fake_vocab.eos_id == real_vocab.eos_id);
  CHECK(fake_vocab.unk_id == real_vocab.unk_id);
  CHECK(fake_vocab.pad_id == real_vocab.pad_id);
  const Tokenizer &real_tok = real.tokenizer(), &fake_tok = fake.tokenizer();
  CHECK(fake_tok.vocab_size() == real_tok.vocab_size());
  CHECK(fake_tok.stop_ids() == real_tok.stop_ids());
  for (const char* piece : {"<bos>", "<eos>", "<pad>", "<unk>", "<start_of_turn>", "<end_of_turn>", "</s>", "<0x00>", "<0xFF>"}) {
    INFO(piece);
    CHECK(fake_tok.find_token(piece) == real_tok.find_token(piece));
  }
}

TEST_CASE("make-model's gemma3-270m-q4_k_m decodes greedily into finite logits and varied tokens", "[model][make-model]") {
  const Model& m = synthetic_270m();
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  std::set<std::vector<int32_t>> continuations;
  for (const char* prompt : {"The capital of France is", "Once upon a time, in a land far away,", "def fibonacci(n):\n    return"}) {
    const auto prompt_ids = m.tokenizer().encode(prompt, true, false);
    const auto tokens = greedy_reference(m, tf, prompt_ids, 32);
    const std::set<int32_t> distinct(tokens.begin(), tokens.end());
    INFO(prompt << " -> " << distinct.size() << " distinct tokens");
    CHECK(distinct.size() >= 8);
    std::vector<int32_t> run = prompt_ids;
    run.insert(run.end(), tokens.begin(), tokens.end());
    const auto logits = chain_logits(tf, m.config(), run);
    CHECK(std::all_of(logits.begin(), logits.end(), [](float v) { return std::isfinite(v); }));
    continuations.insert(tokens);
  }
  CHECK(continuations.size() == 3);
}
