// draftbench make-model (engine/model/synthetic_model.h) on its gemma3-tiny and qwen2-tiny
// recipes: the file loads with the recipe's config, tensors and special tokens (and, for
// qwen2-tiny, a byte-level BPE tokenizer that round-trips text and the real file's chat
// template); greedy decoding gives finite logits and varied tokens on the CPU and the
// emulated device; the bytes depend on the seed and on nothing else. And the random
// weight blocks behind it dequantise to the distribution asked for.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/decoding/autoregressive.h"
#include "engine/model/device_transformer.h"
#include "engine/model/model.h"
#include "engine/model/random_weights.h"
#include "engine/model/synthetic_model.h"
#include "engine/model/transformer.h"
#include "engine/tokenizer/chat_template.h"
#include "kernels/quant/dequantize.h"
#include "tests/support/greedy_reference.h"
#include "tests/support/logit_compare.h"
#include "tests/support/temp_dir.h"

using namespace draftbench;
using namespace draftbench::test;

namespace {

const ModelRecipe& recipe_named(const std::string& name) {
  const ModelRecipe* recipe = find_model_recipe(name);
  REQUIRE(recipe != nullptr);
  return *recipe;
}
const ModelRecipe& tiny_recipe() { return recipe_named("gemma3-tiny"); }
const ModelRecipe& qwen2_recipe() { return recipe_named("qwen2-tiny"); }

std::string file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

const std::vector<std::string> kPrompts = {"The capital of France is", "Once upon a time, in a land far away,", "def fibonacci(n):\n    return",
                                           "1, 2, 3, 4, 5,"};

bool all_finite(std::span<const float> values) {
  return std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
}

// qwen2-tiny with seed 1, written and loaded once per test binary.
const Model& qwen2_model() {
  static const TempDir dir("make_model_qwen2");
  static const std::unique_ptr<Model> model = [] {
    write_synthetic_model(qwen2_recipe(), 1, dir / "qwen2.gguf");
    return Model::load(dir / "qwen2.gguf");
  }();
  return *model;
}

}  // namespace

TEST_CASE("make-model's gemma3-tiny loads with its recipe's config, tensors and special tokens", "[make-model]") {
  const ModelRecipe& recipe = tiny_recipe();
  TempDir dir("make_model_load");
  write_synthetic_model(recipe, 1, dir / "tiny.gguf");
  const auto m = Model::load(dir / "tiny.gguf");

  const ModelConfig& c = m->config();
  const RecipeShape& s = recipe.shape;
  CHECK(c.arch == Architecture::gemma3);
  CHECK(c.n_vocab == s.n_vocab);
  CHECK(c.n_embd == s.n_embd);
  CHECK(c.n_layers == s.n_layers);
  CHECK(c.n_ff == s.n_ff);
  CHECK(c.n_heads == s.n_heads);
  CHECK(c.n_kv_heads == s.n_kv_heads);
  CHECK(c.head_dim == s.head_dim);
  CHECK(c.context_length == s.context_length);
  CHECK(c.sliding_window == s.sliding_window);
  CHECK(c.swa_period == s.sliding_window_pattern);
  CHECK(c.rms_eps == s.rms_eps);
  CHECK(c.rope_base == s.rope_base);
  int local_layers = 0;
  for (int64_t il = 0; il < c.n_layers; ++il) local_layers += c.is_local_layer(il);
  CHECK(local_layers > 0);
  CHECK(local_layers < c.n_layers);

  const std::vector<SyntheticTensor> want = synthetic_tensors(recipe);
  const std::vector<GgufTensor>& got = m->gguf()->tensors();
  REQUIRE(got.size() == want.size());
  std::set<std::string> types;
  for (size_t i = 0; i < want.size(); ++i) {
    INFO(want[i].name);
    CHECK(got[i].name == want[i].name);
    CHECK(got[i].ne == want[i].ne);
    CHECK(got[i].type == want[i].type);
    types.insert(std::string(ggml_type_name(got[i].type)));
  }
  CHECK(types == std::set<std::string>{"F32", "Q4_K", "Q5_0", "Q6_K", "Q8_0"});  // the default model's mix

  const Tokenizer& tok = m->tokenizer();
  CHECK(tok.vocab_size() == s.n_vocab);
  CHECK(tok.bos_id() == 2);
  CHECK(tok.eos_id() == 1);
  CHECK(tok.stop_ids() == std::vector<int32_t>{1, 106, 212});  // <eos>, <end_of_turn>, </s>
  const std::vector<ChatMessage> chat = {{"user", "Hello there"}};
  const auto ids = encode_chat(tok, ChatTemplate::gemma, chat, true);
  CHECK(ids.front() == 2);
  CHECK(std::count(ids.begin(), ids.end(), 105) == 2);  // <start_of_turn> user, then model
  CHECK(tok.decode(tok.encode("caf\xC3\xA9 au lait", false, false)) == "caf\xC3\xA9 au lait");
}

TEST_CASE("make-model's gemma3-tiny decodes greedily into finite logits and varied tokens", "[make-model]") {
  TempDir dir("make_model_decode");
  write_synthetic_model(tiny_recipe(), 1, dir / "tiny.gguf");
  const auto m = Model::load(dir / "tiny.gguf");
  ThreadPool pool(2);
  Transformer cpu(m->config(), m->weights(), pool);
  std::set<std::vector<int32_t>> continuations;
  for (const std::string& prompt : kPrompts) {
    const auto prompt_ids = m->tokenizer().encode(prompt, true, false);
    const auto tokens = greedy_reference(*m, cpu, prompt_ids, 32);
    const std::set<int32_t> distinct(tokens.begin(), tokens.end());
    INFO(distinct.size() << " distinct tokens: " << prompt << " -> " << m->tokenizer().decode(tokens));
    CHECK(tokens.size() == 32);
    CHECK(distinct.size() >= 8);
    std::vector<int32_t> run = prompt_ids;  // past the 16-token window
    run.insert(run.end(), tokens.begin(), tokens.end());
    const auto logits = chain_logits(cpu, m->config(), run);
    CHECK(all_finite(logits));
    continuations.insert(tokens);
  }
  CHECK(continuations.size() == kPrompts.size());
}

TEST_CASE("make-model's gemma3-tiny runs through the emulated device pass close to the CPU pass", "[make-model][device]") {
  TempDir dir("make_model_device");
  write_synthetic_model(tiny_recipe(), 1, dir / "tiny.gguf");
  const auto m = Model::load(dir / "tiny.gguf");
  ThreadPool pool(2);
  Transformer cpu(m->config(), m->weights(), pool);
  auto kernels = cuda::make_emulated_kernels();
  DeviceTransformer device(m->config(), m->weights(), *kernels);
  std::vector<int32_t> tokens = m->tokenizer().encode(kPrompts[1], true, false);
  for (int32_t i = 0; tokens.size() < 24; ++i) tokens.push_back(600 + 37 * i);  // past the window
  const auto want = chain_logits(cpu, m->config(), tokens);
  const auto got = chain_logits(device, m->config(), tokens);
  CHECK(all_finite(got));
  INFO("relative difference " << relative_difference(got, want));
  CHECK(relative_difference(got, want) < 1e-2);
}

TEST_CASE("make-model's output depends on the recipe and the seed only", "[make-model]") {
  const ModelRecipe& recipe = recipe_named(GENERATE(as<std::string>{}, "gemma3-tiny", "qwen2-tiny"));
  INFO(recipe.name);
  TempDir dir("make_model_seed");
  write_synthetic_model(recipe, 7, dir / "a.gguf");
  write_synthetic_model(recipe, 7, dir / "b.gguf");
  write_synthetic_model(recipe, 8, dir / "c.gguf");
  const std::string a = file_bytes(dir / "a.gguf"), b = file_bytes(dir / "b.gguf"), c = file_bytes(dir / "c.gguf");
  REQUIRE(!a.empty());
  CHECK(a == b);
  CHECK(a.size() == c.size());  // the seed is in general.name, with as many digits
  CHECK(a != c);
  // Every tensor differs with the seed, not only the name.
  const auto ma = Model::load(dir / "a.gguf"), mc = Model::load(dir / "c.gguf");
  for (size_t i = 0; i < ma->gguf()->tensors().size(); ++i) {
    const GgufTensor &ta = ma->gguf()->tensors()[i], &tc = mc->gguf()->tensors()[i];
    INFO(ta.name);
    CHECK(std::memcmp(ta.data, tc.data, ta.n_bytes) != 0);
  }
}

TEST_CASE("make-model's qwen2-tiny loads as Qwen 2 with Q/K/V biases, an untied head and Q4_K_M's tensor types", "[make-model][qwen2]") {
  const ModelRecipe& recipe = qwen2_recipe();
  CHECK(recipe_architecture(recipe) == "qwen2");
  const Model& m = qwen2_model();
  const ModelConfig& c = m.config();
  const RecipeShape& s = recipe.shape;
  CHECK(c.arch == Architecture::qwen2);
  CHECK(c.qkv_bias);
  CHECK_FALSE(c.qk_norm);
  CHECK_FALSE(c.post_norms);
  CHECK(c.rope_style == RopeStyle::neox);
  CHECK(c.n_vocab == s.n_vocab);
  CHECK(c.n_embd == s.n_embd);
  CHECK(c.n_layers == s.n_layers);
  CHECK(c.n_ff == s.n_ff);
  CHECK(c.n_heads == s.n_heads);
  CHECK(c.n_kv_heads == s.n_kv_heads);
  CHECK(c.head_dim == s.head_dim);  // from n_embd / n_heads: the file has no key_length, as the real one
  CHECK(c.rope_base == 1e6f);
  CHECK(c.sliding_window == 0);
  REQUIRE(m.weights().layers[0].bq != nullptr);
  CHECK(m.gguf()->find_tensor("output.weight") != nullptr);  // not tied, as in the real file

  const std::vector<SyntheticTensor> want = synthetic_tensors(recipe);
  const std::vector<GgufTensor>& got = m.gguf()->tensors();
  REQUIRE(got.size() == want.size());
  std::set<std::string> types, v_types;
  for (size_t i = 0; i < want.size(); ++i) {
    INFO(want[i].name);
    CHECK(got[i].name == want[i].name);
    CHECK(got[i].ne == want[i].ne);
    CHECK(got[i].type == want[i].type);
    CHECK((got[i].ne[0] % 256 == 0 || got[i].type == GgmlType::F32));  // K-quant rows
    types.insert(std::string(ggml_type_name(got[i].type)));
    if (got[i].name.ends_with("attn_v.weight")) v_types.insert(std::string(ggml_type_name(got[i].type)));
  }
  CHECK(types == std::set<std::string>{"F32", "Q4_K", "Q6_K"});  // the real file's mix
  CHECK(v_types == std::set<std::string>{"Q4_K", "Q6_K"});       // use_more_bits() layers and the others
}

TEST_CASE("make-model's qwen2-tiny tokenizer is byte-level BPE that round-trips text, with ChatML markers as single tokens", "[make-model][qwen2]") {
  const Model& m = qwen2_model();
  const Tokenizer& tok = m.tokenizer();
  CHECK(tok.kind() == "byte-level BPE");
  CHECK(tok.vocab_size() == qwen2_recipe().shape.n_vocab);
  const int32_t end_of_text = tok.find_token("<|endoftext|>"), im_start = tok.find_token("<|im_start|>"), im_end = tok.find_token("<|im_end|>");
  REQUIRE(end_of_text >= 0);
  CHECK(im_start == end_of_text + 1);  // the real file's order
  CHECK(im_end == end_of_text + 2);
  CHECK(tok.bos_id() == end_of_text);  // as the real file sets them
  CHECK(tok.eos_id() == im_end);
  CHECK_FALSE(tok.add_bos_by_default());
  CHECK(tok.is_stop(im_end));
  CHECK(tok.is_stop(end_of_text));

  for (const std::string text : {"The capital of France is Paris.", "def fibonacci(n):\n    return n if n < 2 else fibonacci(n - 1)",
                                 "caf\xC3\xA9 au lait, \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E and \xF0\x9F\x98\x80 123"}) {
    INFO(text);
    const auto ids = tok.encode(text, false, false);
    CHECK(tok.decode(ids) == text);
    CHECK(ids.size() < text.size());  // merged pieces, not only bytes
  }
  const std::string chat = "<|im_start|>user\nhi<|im_end|>\n";
  const auto ids = tok.encode(chat, false, true);
  CHECK(std::count(ids.begin(), ids.end(), im_start) == 1);
  CHECK(std::count(ids.begin(), ids.end(), im_end) == 1);
  CHECK(ids.front() == im_start);
  CHECK(tok.decode(ids, true) == chat);
  // Without parse_special the markers are text.
  const auto plain = tok.encode(chat, false, false);
  CHECK(std::count(plain.begin(), plain.end(), im_start) == 0);
  CHECK(tok.decode(plain) == chat);
}

TEST_CASE("make-model's qwen2-tiny carries the real file's chat template, which names qwen2.5", "[make-model][qwen2]") {
  const Model& m = qwen2_model();
  const auto file_template = m.gguf()->find_string("tokenizer.chat_template");
  REQUIRE(file_template);
  CHECK(file_template->starts_with("{%- if tools %}"));
  CHECK(chat_template_for_model("qwen2", file_template, "qwen2-tiny") == ChatTemplate::qwen2_5);
  CHECK(m.chat_template() == ChatTemplate::qwen2_5);
  const std::vector<ChatMessage> chat = {{"user", "Hello there"}};
  const auto ids = encode_chat(m.tokenizer(), m.chat_template(), chat, true);
  const int32_t im_start = m.tokenizer().find_token("<|im_start|>");
  CHECK(ids.front() == im_start);                            // no BOS, as llama.cpp for Qwen
  CHECK(std::count(ids.begin(), ids.end(), im_start) == 3);  // system, user, assistant
}

TEST_CASE("make-model's qwen2-tiny decodes greedily into finite logits and varied tokens", "[make-model][qwen2]") {
  const Model& m = qwen2_model();
  ThreadPool pool(2);
  Transformer cpu(m.config(), m.weights(), pool);
  std::set<std::vector<int32_t>> continuations;
  for (const std::string& prompt : kPrompts) {
    const auto prompt_ids = m.tokenizer().encode(prompt, false, false);
    const auto tokens = greedy_reference(m, cpu, prompt_ids, 32);
    const std::set<int32_t> distinct(tokens.begin(), tokens.end());
    INFO(distinct.size() << " distinct tokens: " << prompt << " -> " << m.tokenizer().decode(tokens));
    CHECK(tokens.size() == 32);
    CHECK(distinct.size() >= 10);
    std::vector<int32_t> run = prompt_ids;
    run.insert(run.end(), tokens.begin(), tokens.end());
    CHECK(all_finite(chain_logits(cpu, m.config(), run)));
    continuations.insert(tokens);
  }
  CHECK(continuations.size() == kPrompts.size());
}

TEST_CASE("make-model's qwen2-tiny runs through the emulated device pass close to the CPU pass", "[make-model][qwen2][device]") {
  const Model& m = qwen2_model();
  ThreadPool pool(2);
  Transformer cpu(m.config(), m.weights(), pool);
  auto kernels = cuda::make_emulated_kernels();
  DeviceTransformer device(m.config(), m.weights(), *kernels);
  const std::vector<int32_t> tokens = m.tokenizer().encode(kPrompts[2], false, false);
  const auto want = chain_logits(cpu, m.config(), tokens);
  const auto got = chain_logits(device, m.config(), tokens);
  CHECK(all_finite(got));
  INFO("relative difference " << relative_difference(got, want));
  CHECK(relative_difference(got, want) < 1e-2);
}

TEST_CASE("make-model --list names every recipe, qwen2-tiny included", "[make-model]") {
  std::vector<std::string> names;
  for (const ModelRecipe& r : model_recipes()) names.emplace_back(r.name);
  CHECK(names == std::vector<std::string>{"gemma3-270m-q4_k_m", "gemma3-tiny", "qwen2-tiny"});
  CHECK(model_recipe_names() == "gemma3-270m-q4_k_m, gemma3-tiny, qwen2-tiny");
  CHECK(find_model_recipe("qwen2-tiny") == &model_recipes()[2]);
  CHECK(find_model_recipe("qwen2") == nullptr);
}

TEST_CASE("random weight blocks dequantise to the distribution asked for", "[make-model]") {
  const int64_t n = 512, rows = 64;
  for (const GgmlType type : {GgmlType::F32, GgmlType::Q8_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K}) {
    for (const WeightDistribution dist : {WeightDistribution{0.0f, 0.05f}, WeightDistribution{0.0f, 0.02f}}) {
      INFO(ggml_type_name(type) << " stddev " << dist.stddev);
      REQUIRE(weight_distribution_fits(type, dist));
      std::vector<uint8_t> data(ggml_row_bytes(type, n) * rows);
      fill_random_weights(type, dist, 42, data);
      std::vector<float> values(static_cast<size_t>(n * rows));
      for (int64_t r = 0; r < rows; ++r) dequantize_row(type, data.data() + r * ggml_row_bytes(type, n), values.data() + r * n, n);
      REQUIRE(all_finite(values));
      double sum = 0, sum_sq = 0;
      for (float v : values) sum += v, sum_sq += static_cast<double>(v) * v;
      const double mean = sum / values.size(), stddev = std::sqrt(sum_sq / values.size() - mean * mean);
      CHECK(std::abs(mean) < 0.05 * dist.stddev);
      CHECK(stddev == Approx(dist.stddev).epsilon(0.05));
    }
  }
  const WeightDistribution norm{1.0f, 0.1f};
  std::vector<uint8_t> f32(4 * 1024);
  fill_random_weights(GgmlType::F32, norm, 1, f32);
  std::vector<float> values(1024);
  std::memcpy(values.data(), f32.data(), f32.size());
  CHECK(*std::min_element(values.begin(), values.end()) > 0.8f);
  CHECK(*std::max_element(values.begin(), values.end()) < 1.2f);
  // Scales that would be fp16 denormals are refused, and so is a mean in a quantised type.
  CHECK_FALSE(weight_distribution_fits(GgmlType::Q6_K, {0.0f, 1e-3f}));
  CHECK_FALSE(weight_distribution_fits(GgmlType::Q8_0, {1.0f, 0.1f}));
  CHECK_THROWS_AS(fill_random_weights(GgmlType::Q4_0, {}, 1, f32), std::logic_error);
}
