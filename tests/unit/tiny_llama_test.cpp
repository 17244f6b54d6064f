// A tiny random Llama (vocab 308, hidden 64, 2 layers, 4 heads, 2 KV heads, head_dim 16,
// ff 128) written as a Hugging Face checkpoint and as the GGUF file llama.cpp's converter
// makes from it, both loaded through Model::load. The two files store q/k differently
// (GGUF rows permuted for interleaved RoPE pairs, HF unpermuted for rotate_half), so
// agreement checks the safetensors loader, the RoPE styles and the permutation together.
//
// Why F32 logits agree to ~2e-7 but not bit for bit: every matmul output of the two
// models is bit-identical (same rows, same f32 activations, same dot_float order; the
// permutation only moves whole q/k rows), and rope_norm on pair (2j, 2j+1) computes exactly
// what rope_neox computes on (j, j + d/2). But q.k in attention sums over head_dim in
// storage order, and the permuted storage pairs different products in the 16-lane
// reduction, so scores differ in the last bits and that propagates. Two tests pin this
// down: the first position (one key, softmax weight exactly 1, so the score does not
// matter) is bit-identical, and with head_dim 2 (one pair per head, nothing to reorder)
// every logit is.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/decoding/autoregressive.h"
#include "engine/model/model.h"
#include "engine/model/transformer.h"
#include "engine/model/safetensors_writer.h"
#include "tests/support/greedy_reference.h"
#include "tests/support/logit_compare.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;
using namespace draftbench::test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kPrompts = {
    "the cat and the dog",
    "in the end, the answer is",
    "snow \xE2\x98\x83 and caf\xC3\xA9",  // byte-fallback pieces
    "once upon a time there was a tiny model that spoke only in random words and yet it was "
    "loved by every test that ran it, again and again",
};

// Logits of every prompt position, [n][n_vocab]; `config` overrides the model's.
std::vector<float> prompt_logits(const Model& m, const std::vector<int32_t>& tokens, const ModelConfig* config = nullptr) {
  const ModelConfig& c = config ? *config : m.config();
  ThreadPool pool(2);
  Transformer tf(c, m.weights(), pool);
  return chain_logits(c, tf, tokens);
}

struct Agreement {
  double worst_relative = 0;
  bool all_identical = true;
  bool first_positions_identical = true;
};

// Same tokens from both tokenizers, then logits of every position compared.
Agreement compare_models(const Model& hf, const Model& gguf) {
  Agreement agreement;
  for (const std::string& text : kPrompts) {
    const auto tokens = hf.tokenizer().encode(text, true, false);
    INFO(text);
    REQUIRE(tokens == gguf.tokenizer().encode(text, true, false));
    const auto a = prompt_logits(hf, tokens), b = prompt_logits(gguf, tokens);
    agreement.worst_relative = std::max(agreement.worst_relative, relative_difference(a, b));
    agreement.all_identical = agreement.all_identical && same_bits(a, b);
    const auto width = static_cast<std::ptrdiff_t>(hf.config().n_vocab);
    agreement.first_positions_identical =
        agreement.first_positions_identical && same_bits(std::vector<float>(a.begin(), a.begin() + width), std::vector<float>(b.begin(), b.begin() + width));
  }
  return agreement;
}

void check_same_greedy(const Model& a, const Model& b) {
  for (const std::string& text : kPrompts) {
    const auto prompt = a.tokenizer().encode(text, true, false);
    INFO(text);
    CHECK(greedy_reference(a, prompt, 24) == greedy_reference(b, prompt, 24));
  }
}

// The one-line InputError Model::load throws, or "" if it loads.
std::string load_error(const std::string& path) {
  try {
    Model::load(path);
  } catch (const InputError& e) {
    const std::string message = e.what();
    CHECK(message.find('\n') == std::string::npos);
    return message;
  }
  return "";
}

}  // namespace

TEST_CASE("tiny llama: the HF checkpoint and its GGUF conversion agree (F32)", "[hf][tiny_llama]") {
  const TinyLlama model = make_tiny_llama();
  TempDir dir("tiny_llama_f32");
  write_hf_checkpoint(model, dir / "hf");
  write_llama_gguf(model, dir / "tiny.gguf");
  const auto hf = Model::load(dir / "hf");
  const auto gguf = Model::load(dir / "tiny.gguf");

  CHECK(hf->gguf() == nullptr);
  CHECK(hf->safetensors().size() == 1);
  CHECK(gguf->safetensors().empty());
  const ModelConfig &a = hf->config(), &b = gguf->config();
  CHECK(a.arch == Architecture::llama);
  CHECK(a.n_vocab == 308);
  CHECK((a.n_vocab == b.n_vocab && a.n_embd == b.n_embd && a.n_layers == b.n_layers && a.n_ff == b.n_ff));
  CHECK((a.n_heads == b.n_heads && a.n_kv_heads == 2 && b.n_kv_heads == 2 && a.head_dim == b.head_dim));
  CHECK((a.context_length == b.context_length && a.rms_eps == b.rms_eps && a.rope_base == b.rope_base));
  CHECK(a.attention_scale == b.attention_scale);
  CHECK(a.rope_style == RopeStyle::neox);  // HF: unpermuted q/k
  CHECK(b.rope_style == RopeStyle::norm);  // GGUF: the converter's permuted q/k
  CHECK(hf->weights().layers[0].wq.type == GgmlType::F32);
  CHECK(hf->tokenizer().stop_ids() == gguf->tokenizer().stop_ids());

  const Agreement agreement = compare_models(*hf, *gguf);
  INFO("worst relative difference " << agreement.worst_relative << ", bit-identical: " << agreement.all_identical);
  CHECK(agreement.worst_relative <= 1e-5);  // measured 2.3e-7
  CHECK(agreement.first_positions_identical);
  check_same_greedy(*hf, *gguf);

  // The tolerances here and below discriminate: the HF weights with the GGUF pairing
  // (rope_norm on unpermuted q/k) move the logits by a large fraction of their range.
  ModelConfig wrong_pairs = hf->config();
  wrong_pairs.rope_style = RopeStyle::norm;
  const auto tokens = hf->tokenizer().encode(kPrompts[3], true, false);
  CHECK(relative_difference(prompt_logits(*hf, tokens, &wrong_pairs), prompt_logits(*gguf, tokens)) > 0.1);
}

TEST_CASE("tiny llama: with head_dim 2 (nothing to reorder in q.k) the logits are bit-identical", "[hf][tiny_llama]") {
  const TinyLlama model = make_tiny_llama({.head_dim = 2, .seed = 5});
  TempDir dir("tiny_llama_head_dim_2");
  write_hf_checkpoint(model, dir / "hf");
  write_llama_gguf(model, dir / "tiny.gguf");
  const auto hf = Model::load(dir / "hf");
  const auto gguf = Model::load(dir / "tiny.gguf");
  REQUIRE(hf->config().head_dim == 2);
  REQUIRE(gguf->config().head_dim == 2);
  CHECK(compare_models(*hf, *gguf).all_identical);
}

TEST_CASE("tiny llama: a sharded checkpoint is the same model, bit for bit", "[hf][tiny_llama]") {
  const TinyLlama model = make_tiny_llama();
  TempDir dir("tiny_llama_sharded");
  write_hf_checkpoint(model, dir / "single");
  write_hf_checkpoint(model, dir / "sharded", {.shards = 3});
  const auto single = Model::load(dir / "single");
  const auto sharded = Model::load(dir / "sharded");
  CHECK(sharded->safetensors().size() == 3);
  for (const std::string& text : kPrompts) {
    const auto tokens = single->tokenizer().encode(text, true, false);
    CHECK(same_bits(prompt_logits(*single, tokens), prompt_logits(*sharded, tokens)));
  }
}

TEST_CASE("tiny llama: misaligned tensor data is copied, not misread", "[hf][tiny_llama]") {
  const TinyLlama model = make_tiny_llama();
  TempDir dir("tiny_llama_misaligned");
  for (GgmlType type : {GgmlType::F32, GgmlType::BF16}) {
    const std::string name(ggml_type_name(type));
    INFO(name);
    write_hf_checkpoint(model, dir / ("aligned_" + name), {.dtype = type});
    write_hf_checkpoint(model, dir / ("misaligned_" + name), {.dtype = type, .misaligned_data = true});
    const auto aligned = Model::load(dir / ("aligned_" + name));
    const auto misaligned = Model::load(dir / ("misaligned_" + name));
    REQUIRE(reinterpret_cast<uintptr_t>(misaligned->safetensors()[0].tensor("lm_head.weight").data) % 2 == 1);
    CHECK(reinterpret_cast<uintptr_t>(misaligned->weights().output.data) % 4 == 0);
    // Every tensor copied; the aligned F32 file needs no copies at all.
    CHECK(misaligned->weights().owned_vectors.size() == model.tensors.size());
    if (type == GgmlType::F32) CHECK(aligned->weights().owned_vectors.empty());
    const auto tokens = aligned->tokenizer().encode(kPrompts[1], true, false);
    CHECK(same_bits(prompt_logits(*aligned, tokens), prompt_logits(*misaligned, tokens)));
  }
}

TEST_CASE("tiny llama: tied embeddings (no lm_head, no output.weight)", "[hf][tiny_llama]") {
  const TinyLlama model = make_tiny_llama({.tied_embeddings = true, .seed = 7});
  TempDir dir("tiny_llama_tied");
  write_hf_checkpoint(model, dir / "hf");
  write_llama_gguf(model, dir / "tiny.gguf");
  const auto hf = Model::load(dir / "hf");
  const auto gguf = Model::load(dir / "tiny.gguf");
  CHECK(hf->weights().output.data == hf->weights().token_embd.data);
  CHECK(compare_models(*hf, *gguf).worst_relative <= 1e-5);
  check_same_greedy(*hf, *gguf);
}

// Half-precision checkpoints. Against a GGUF holding the same rounded values (matrices in
// the same 16-bit type, norms as the rounded values in F32) the maths is the F32 case
// again: same tolerance, same greedy tokens. Against the unrounded F32 model the weights
// themselves differ, by up to half an ulp: 2^-11 relative for F16, 2^-8 for BF16 (rms
// about 1.4e-4 and 1.1e-3). Those errors have random signs, so each dot product keeps
// roughly that relative error, and they add in quadrature over the ~10 matmuls on a
// logit's path (embedding, 2 x 7 per layer, LM head), ~3x. Measured on this model, the
// largest logit difference is 6.7e-4 (F16) and 6.7e-3 (BF16) of the largest logit; the
// bounds are 5e-3 and 5e-2, ~7x the measurement, and still well below the >0.1 that a
// real mistake (the wrong RoPE pairing, checked above) produces. Greedy tokens are not
// compared with the F32 model: with differences this size a near-tie may flip.
TEST_CASE("tiny llama: F16 and BF16 checkpoints", "[hf][tiny_llama]") {
  const TinyLlama model = make_tiny_llama({.seed = 3});
  TempDir dir("tiny_llama_half");
  write_llama_gguf(model, dir / "f32.gguf");
  const auto reference = Model::load(dir / "f32.gguf");
  for (const auto& [type, loose_bound] : {std::pair{GgmlType::F16, 5e-3}, std::pair{GgmlType::BF16, 5e-2}}) {
    const std::string name(ggml_type_name(type));
    INFO(name);
    write_hf_checkpoint(model, dir / ("hf_" + name), {.dtype = type});
    write_llama_gguf(rounded_to(model, type), dir / (name + ".gguf"), type);
    const auto hf = Model::load(dir / ("hf_" + name));
    const auto gguf = Model::load(dir / (name + ".gguf"));
    CHECK(hf->weights().layers[0].wq.type == type);
    CHECK(gguf->weights().layers[0].wq.type == type);

    const Agreement same_values = compare_models(*hf, *gguf);
    CHECK(same_values.worst_relative <= 1e-5);
    check_same_greedy(*hf, *gguf);

    const Agreement rounded = compare_models(*hf, *reference);
    INFO("relative difference to the F32 model " << rounded.worst_relative);
    CHECK(rounded.worst_relative <= loose_bound);  // measured 6.7e-4 (F16), 6.7e-3 (BF16)
    CHECK(rounded.worst_relative > 0);             // the rounding is really there
  }
}

TEST_CASE("tiny llama: broken HF checkpoints give one-line errors", "[hf][tiny_llama][errors]") {
  TempDir dir("tiny_llama_errors");
  const std::string ckpt = dir / "ckpt";
  const auto fresh = [&](const TinyLlama& m, const HfWriteOptions& options = {}) {
    fs::remove_all(ckpt);
    write_hf_checkpoint(m, ckpt, options);
  };
  const auto with_config = [&](const auto& edit) {
    const TinyLlama m = make_tiny_llama();
    fresh(m);
    nlohmann::json config = nlohmann::json::parse(hf_config_json(m));
    edit(config);
    write_file(ckpt + "/config.json", config.dump());
    return load_error(ckpt);
  };

  SECTION("wrong shape") {
    TinyLlama m = make_tiny_llama();
    NamedTensor& k = m.tensor("model.layers.0.self_attn.k_proj.weight");
    k.shape = {64, 64};
    k.values.resize(64 * 64);
    fresh(m);
    CHECK(load_error(ckpt) == ckpt +
                                  "/model.safetensors: tensor 'model.layers.0.self_attn.k_proj.weight': shape [64, 64] "
                                  "(expected [32, 64] = [num_key_value_heads * head_dim, hidden_size])");
  }
  SECTION("missing tensor") {
    TinyLlama m = make_tiny_llama();
    std::erase_if(m.tensors, [](const NamedTensor& t) { return t.name == "model.layers.1.mlp.up_proj.weight"; });
    fresh(m);
    CHECK(load_error(ckpt) == ckpt + "/model.safetensors: tensor 'model.layers.1.mlp.up_proj.weight': missing");
  }
  SECTION("missing lm_head without tied embeddings") {
    TinyLlama m = make_tiny_llama();
    std::erase_if(m.tensors, [](const NamedTensor& t) { return t.name == "lm_head.weight"; });
    fresh(m);
    CHECK_THAT(load_error(ckpt), Contains("tensor 'lm_head.weight': missing (config.json has tie_word_embeddings false)"));
  }
  SECTION("unexpected tensor (a bias)") {
    TinyLlama m = make_tiny_llama();
    m.tensors.push_back({"model.layers.0.self_attn.q_proj.bias", {64}, std::vector<float>(64, 0.0f)});
    fresh(m);
    CHECK_THAT(load_error(ckpt), Contains("tensor 'model.layers.0.self_attn.q_proj.bias': unexpected in a Llama checkpoint"));
  }
  SECTION("a weight that is not float") {
    const TinyLlama m = make_tiny_llama();
    fresh(m);
    SafetensorsWriter w;
    for (const NamedTensor& t : m.tensors) {
      if (t.name == "model.norm.weight") w.tensor(t.name, "I32", t.shape, encode_floats(GgmlType::F32, t.values));
      else w.tensor_floats(t.name, GgmlType::F32, t.shape, t.values);
    }
    w.write(ckpt + "/model.safetensors");
    CHECK(load_error(ckpt) == ckpt + "/model.safetensors: tensor 'model.norm.weight': dtype I32 is not supported for weights (expected F32, F16 or BF16)");
  }
  SECTION("config.json problems") {
    CHECK(with_config([](auto& c) {
            c["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}};
          }) == ckpt + "/config.json: field 'rope_scaling': RoPE scaling 'linear' is not supported (expected null)");
    CHECK(with_config([](auto& c) {
            c["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}};
          }) == ckpt + "/config.json: field 'rope_scaling': RoPE scaling 'llama3' is not supported (expected null)");
    CHECK(with_config([](auto& c) { c.erase("hidden_size"); }) == ckpt + "/config.json: field 'hidden_size': missing (expected an integer)");
    CHECK(with_config([](auto& c) { c["num_hidden_layers"] = "2"; }) == ckpt + "/config.json: field 'num_hidden_layers': holds \"2\" (expected an integer)");
    CHECK_THAT(with_config([](auto& c) { c["model_type"] = "gpt2"; }), Contains("field 'model_type': 'gpt2' is not supported"));
    CHECK_THAT(with_config([](auto& c) { c["num_key_value_heads"] = 3; }), Contains("3 does not divide head_count 4"));
    CHECK_THAT(with_config([](auto& c) { c["hidden_act"] = "gelu"; }), Contains("field 'hidden_act': 'gelu' is not supported (expected silu)"));
    CHECK_THAT(with_config([](auto& c) { c["attention_bias"] = true; }), Contains("field 'attention_bias': true is not supported"));
    CHECK_THAT(with_config([](auto& c) {
                 c["model_type"] = "mistral";
                 c["sliding_window"] = 16;
               }),
               Contains("field 'sliding_window'"));
    CHECK(with_config([](auto& c) {  // Mistral without a window is a Llama
            c["model_type"] = "mistral";
            c["sliding_window"] = nullptr;
          }) == "");
    CHECK(with_config([](auto& c) {
            c["num_key_value_heads"] = nullptr;
            c["num_attention_heads"] = 2;
            c["head_dim"] = 32;
          }) == ckpt +
                    "/model.safetensors: tensor 'model.layers.0.self_attn.k_proj.weight': shape [32, 64] "
                    "(expected [64, 64] = [num_key_value_heads * head_dim, hidden_size])");
    CHECK(with_config([](auto& c) {
            c["rope_scaling"] = {{"rope_type", 3}};
          }) == ckpt + "/config.json: field 'rope_scaling': RoPE scaling 'an object of 1' is not supported (expected null)");
    write_file(ckpt + "/config.json", std::string("{\"model_type\": \"llama\",,}"));
    CHECK_THAT(load_error(ckpt), Contains(ckpt + "/config.json: not valid JSON"));
    write_file(ckpt + "/config.json", std::string(1'000'000, '[') + std::string(1'000'000, ']'));
    CHECK(load_error(ckpt) == ckpt + "/config.json: holds an array of 1 (expected a JSON object)");
  }
  SECTION("shard index problems") {
    const TinyLlama m = make_tiny_llama();
    fresh(m, {.shards = 2});
    const std::string index_path = ckpt + "/model.safetensors.index.json";
    const nlohmann::json index = nlohmann::json::parse(std::ifstream(index_path));
    const auto with_index = [&](const auto& edit) {
      nlohmann::json edited = index;
      edit(edited["weight_map"]);
      write_file(index_path, edited.dump());
      return load_error(ckpt);
    };
    CHECK_THAT(with_index([](auto& map) { map["model.norm.weight"] = "model-00009-of-00009.safetensors"; }),
               Contains(ckpt + "/model-00009-of-00009.safetensors: shard not found"));
    CHECK_THAT(with_index([](auto& map) { map["model.norm.weight"] = "../elsewhere.safetensors"; }),
               Contains("weight_map 'model.norm.weight': '../elsewhere.safetensors' is not a file name in the checkpoint directory"));
    CHECK_THAT(with_index([](auto& map) { map["model.norm.weight"] = "model-00001-of-00002.safetensors"; }),
               Contains("weight_map 'model.norm.weight': names shard " + ckpt + "/model-00001-of-00002.safetensors but the tensor is not in it"));
    CHECK_THAT(with_index([](auto& map) { map = nlohmann::json::array(); }), Contains("field 'weight_map': missing or not an object"));
    fs::remove(index_path);
    CHECK_THAT(load_error(ckpt), Contains(ckpt + ": model.safetensors: missing, and no model.safetensors.index.json either"));
  }
  SECTION("tokenizer problems") {
    TinyLlama m = make_tiny_llama();
    fresh(m, {.write_tokenizer = false});
    CHECK(load_error(ckpt) == ckpt + ": tokenizer.model: missing (only SentencePiece tokenizers are supported, not tokenizer.json alone)");
    m.tokenizer.pieces.pop_back();
    write_file(ckpt + "/tokenizer.model", serialize_sentencepiece_model(m.tokenizer));
    CHECK(load_error(ckpt) == ckpt +
                                  "/tokenizer.model: pieces: 307 pieces but config.json has vocab_size 308 "
                                  "(added tokens outside tokenizer.model are not supported)");
  }
  SECTION("a directory that is not a checkpoint") {
    CHECK_THAT(load_error(dir / ""), Contains("config.json: missing: a model directory must be a Hugging Face checkpoint"));
  }
}

TEST_CASE("tiny llama: broken GGUF conversions give one-line errors", "[gguf][tiny_llama][errors]") {
  TempDir dir("tiny_llama_gguf_errors");
  const std::string path = dir / "tiny.gguf";
  SECTION("wrong shape") {
    TinyLlama m = make_tiny_llama();
    NamedTensor& k = m.tensor("model.layers.0.self_attn.k_proj.weight");
    k.shape = {64, 64};
    k.values.resize(64 * 64);
    write_llama_gguf(m, path);
    CHECK(load_error(path) == path + ": tensor 'blk.0.attn_k.weight': shape [64, 64] (expected [64, 32])");
  }
  SECTION("missing tensor") {
    TinyLlama m = make_tiny_llama();
    std::erase_if(m.tensors, [](const NamedTensor& t) { return t.name == "model.layers.1.mlp.up_proj.weight"; });
    write_llama_gguf(m, path);
    CHECK(load_error(path) == path + ": tensor 'blk.1.ffn_up.weight': required tensor is missing");
  }
}

TEST_CASE("tiny llama: the q/k permutation moves rows to interleaved pairs", "[tiny_llama]") {
  // One head of dimension 4 with one input: rows (r0, r1 | r2, r3) become (r0, r2, r1, r3),
  // so that pair (2j, 2j+1) of the GGUF rows is pair (j, j + 2) of the HF rows.
  CHECK(permute_for_interleaved_rope({0, 1, 2, 3}, 1, 1) == std::vector<float>{0, 2, 1, 3});
  CHECK(permute_for_interleaved_rope({0, 1, 2, 3, 4, 5, 6, 7}, 2, 1) == std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7});
}
