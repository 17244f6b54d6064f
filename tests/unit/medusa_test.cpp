// Static choice trees and the Medusa drafter on a tiny random Llama target: tree files parse
// into parents-first (length, lexicographic) order and bad ones are one-line errors; the
// shipped trees load and the built-in default is the shipped CPU tree; a Medusa-1
// reference-layout checkpoint and draftbench's own format load, and the proposed tree holds
// exactly each head's top-k computed by plain loops; greedy decoding through the Decoder is
// exactly autoregressive decoding for batch sizes 1 and 3.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>

#include "engine/common/error.h"
#include "engine/decoding/autoregressive.h"
#include "engine/decoding/decoder.h"
#include "engine/drafters/choice_tree.h"
#include "engine/drafters/make_drafter.h"
#include "engine/drafters/medusa/medusa.h"
#include "engine/model/safetensors_checkpoint.h"
#include "engine/model/safetensors_file.h"
#include "engine/model/safetensors_writer.h"
#include "engine/model/transformer.h"
#include "tests/support/greedy_reference.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;
using namespace draftbench::test;
using Catch::Matchers::Contains;

namespace {

namespace fs = std::filesystem;

// The repository's experiments/trees, found by walking up from the working directory (the
// tests run from the build tree or the repository root); empty if absent.
fs::path find_trees_dir() {
  for (fs::path dir = fs::current_path();; dir = dir.parent_path()) {
    if (fs::is_directory(dir / "experiments" / "trees")) return dir / "experiments" / "trees";
    if (dir == dir.parent_path()) return {};
  }
}

std::string write_text(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  write_file(path, text);
  return path;
}

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

// A Medusa-1 checkpoint in the reference layout (config.json as FasterDecoding publishes it,
// tensors as its state dict names them), own output layers, random nonzero weights.
struct ReferenceMedusa {
  int64_t H = 0, V = 0;
  int heads = 0, layers = 0;
  std::map<std::string, Tensor> t;

  ReferenceMedusa(int64_t hidden, int64_t vocab, int n_heads, int n_layers, uint64_t seed) : H(hidden), V(vocab), heads(n_heads), layers(n_layers) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto random = [&](std::vector<int64_t> shape, float scale) {
      Tensor x{shape, std::vector<float>(static_cast<size_t>(std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>())))};
      for (float& v : x.values) v = scale * normal(rng);
      return x;
    };
    for (int h = 0; h < heads; ++h) {
      for (int l = 0; l < layers; ++l) {
        t[std::to_string(h) + "." + std::to_string(l) + ".linear.weight"] = random({H, H}, 0.2f);
        t[std::to_string(h) + "." + std::to_string(l) + ".linear.bias"] = random({H}, 0.1f);
      }
      t[std::to_string(h) + "." + std::to_string(layers) + ".weight"] = random({V, H}, 1.0f);
    }
  }
  void write(const std::string& dir) const {
    fs::create_directories(dir);
    // medusa_num_heads deliberately wrong, as in the published checkpoints: heads are counted from the tensors.
    write_file(dir + "/config.json", nlohmann::json{{"base_model_name_or_path", "tiny"}, {"medusa_num_heads", 2}, {"medusa_num_layers", layers}}.dump());
    SafetensorsWriter w;
    for (const auto& [name, x] : t) w.tensor_floats(name, GgmlType::F32, x.shape, x.values);
    w.write(dir + "/model.safetensors");
  }
};

// One head by plain float loops: x = h; per block x += SiLU(W x + b); logits = output rows . x.
struct HeadWeights {
  std::vector<const float*> w, b;  // per block, [H][H] and [H]
  const float* output = nullptr;   // [n_rows][H]
  std::vector<int32_t> rows;       // output rows to use, in draft-vocabulary order
};
std::vector<float> reference_head_logits(const HeadWeights& head, const std::vector<float>& hidden) {
  const size_t H = hidden.size();
  std::vector<float> x = hidden, y(H);
  for (size_t l = 0; l < head.w.size(); ++l) {
    for (size_t i = 0; i < H; ++i) {
      float acc = head.b[l][i];
      for (size_t j = 0; j < H; ++j) acc += head.w[l][i * H + j] * x[j];
      y[i] = acc;
    }
    for (size_t i = 0; i < H; ++i) x[i] += y[i] / (1.0f + std::exp(-y[i]));
  }
  std::vector<float> logits;
  for (int32_t r : head.rows) {
    float acc = 0.0f;
    for (size_t j = 0; j < H; ++j) acc += head.output[static_cast<size_t>(r) * H + j] * x[j];
    logits.push_back(acc);
  }
  return logits;
}

// The Draft must hold, at every choice node, its head's rank-th draft id (mapped to a target
// id). The kernels sum in another order than the loops above, so a swap is tolerated only
// between logits equal to 1e-4.
void check_proposal(const Draft& draft, int32_t root, const std::vector<std::vector<float>>& head_logits, const std::vector<int32_t>& draft_vocab,
                    const ChoiceTree& tree) {
  REQUIRE(draft.tree.size() == tree.size());
  REQUIRE(draft.tree.tokens[0] == root);
  REQUIRE(draft.tree.parents == tree.parent);
  std::vector<int32_t> draft_id_of(*std::max_element(draft_vocab.begin(), draft_vocab.end()) + 1, -1);
  for (size_t i = 0; i < draft_vocab.size(); ++i) draft_id_of[static_cast<size_t>(draft_vocab[i])] = static_cast<int32_t>(i);
  for (int32_t i = 1; i < tree.size(); ++i) {
    const std::vector<float>& logits = head_logits[static_cast<size_t>(tree.depth[i] - 1)];
    std::vector<int32_t> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return logits[a] > logits[b]; });
    const int32_t expected = order[static_cast<size_t>(tree.rank[i])];
    const int32_t got = draft_id_of[static_cast<size_t>(draft.tree.tokens[i])];
    INFO("node " << i << " depth " << tree.depth[i] << " rank " << tree.rank[i]);
    REQUIRE(got >= 0);
    if (got != expected) REQUIRE(std::abs(logits[got] - logits[expected]) < 1e-4f);
  }
}

std::vector<float> floats_of(const SafetensorsTensor& t) {
  REQUIRE(t.dtype == "F32");
  std::vector<float> v(t.n_bytes / sizeof(float));
  std::memcpy(v.data(), t.data, t.n_bytes);
  return v;
}

struct Fixture {
  TempDir dir{"medusa"};
  TinyLlama tiny = make_tiny_llama();
  std::unique_ptr<Model> model;
  ReferenceMedusa ref{tiny.shape.hidden, tiny.vocab(), 4, 2, 7};
  ThreadPool pool{1};
  Fixture() {
    write_llama_gguf(tiny, dir / "tiny.gguf");
    model = Model::load(dir / "tiny.gguf");
    ref.write(dir / "reference");
  }
  std::unique_ptr<Drafter> load(const std::string& weights, const std::string& tree_file = "") {
    DrafterOptions o;
    o.kind = "medusa";
    o.weights_dir = dir / weights;
    o.tree_file = tree_file;
    return make_drafter(o, *model, pool);
  }
};

}  // namespace

TEST_CASE("choice_tree: paths become parents-first nodes in (length, lexicographic) order", "[choice_tree]") {
  TempDir dir("choice_tree_parse");
  const std::string bare = write_text(dir, "bare.json", "[[1], [0], [0, 1], [0, 0], [1, 0], [0, 0, 0]]");
  const std::string wrapped = write_text(dir, "wrapped.json", R"({"name": "t", "comment": "x", "choices": [[1], [0], [0, 1], [0, 0], [1, 0], [0, 0, 0]]})");
  for (const std::string& file : {bare, wrapped}) {
    const ChoiceTree t = load_choice_tree(file);
    // Sorted: [0] [1] [0,0] [0,1] [1,0] [0,0,0] as nodes 1..6.
    CHECK(t.parent == std::vector<int32_t>{-1, 0, 0, 1, 1, 2, 3});
    CHECK(t.depth == std::vector<int32_t>{0, 1, 1, 2, 2, 2, 3});
    CHECK(t.rank == std::vector<int32_t>{-1, 0, 1, 0, 1, 0, 0});
    CHECK(t.size() == 7);
    CHECK(t.max_depth() == 3);
    CHECK(t.max_rank() == 1);
  }
  const ChoiceTree root_only = load_choice_tree(write_text(dir, "empty.json", "[]"));
  CHECK(root_only.size() == 1);
  CHECK(root_only.max_depth() == 0);
  CHECK(root_only.max_rank() == -1);
  // Ranks compare as numbers within a length ([2] before [10]), whatever the file's order.
  const ChoiceTree wide = choice_tree_from_paths({{10}, {2}, {10, 0}, {2, 3}}, "wide");
  CHECK(wide.rank == std::vector<int32_t>{-1, 2, 10, 3, 0});
  CHECK(wide.parent == std::vector<int32_t>{-1, 0, 0, 1, 2});
}

TEST_CASE("choice_tree: bad files are one-line errors naming the file and the path", "[choice_tree]") {
  TempDir dir("choice_tree_errors");
  auto load = [&](const std::string& name, const std::string& text) { return load_choice_tree(write_text(dir, name, text)); };
  REQUIRE_THROWS_WITH(load("nojson.json", "[[0], "), Contains("nojson.json"));
  REQUIRE_THROWS_AS(load("nojson.json", "[[0], "), InputError);
  REQUIRE_THROWS_WITH(load("scalar.json", "3"), Contains("scalar.json") && Contains("expected an array of paths"));
  REQUIRE_THROWS_WITH(load("nokey.json", R"({"name": "x"})"), Contains("key 'choices'") && Contains("missing"));
  REQUIRE_THROWS_WITH(load("notarray.json", R"({"choices": 5})"), Contains("key 'choices'") && Contains("expected an array of paths"));
  REQUIRE_THROWS_WITH(load("pathnotarray.json", "[[0], 5]"), Contains("path 1") && Contains("expected an array of ranks"));
  REQUIRE_THROWS_WITH(load("float.json", "[[0], [0, 1.5]]"), Contains("path 1 entry 1") && Contains("expected an integer rank"));
  REQUIRE_THROWS_WITH(load("string.json", R"([["0"]])"), Contains("path 0 entry 0"));
  REQUIRE_THROWS_WITH(load("negative.json", "[[0], [-1]]"), Contains("negative.json: path 1 [-1]") && Contains("negative"));
  REQUIRE_THROWS_WITH(load("duplicate.json", "[[0], [1], [0]]"), Contains("path 2 [0]") && Contains("duplicate path (already path 0)"));
  REQUIRE_THROWS_WITH(load("prefix.json", "[[0], [1, 0], [0, 2]]"), Contains("path 1 [1, 0]") && Contains("prefix [1] is not a path"));
  REQUIRE_THROWS_WITH(load("emptypath.json", "[[0], []]"), Contains("path 1 []") && Contains("empty"));
  REQUIRE_THROWS_WITH(load_choice_tree(dir / "absent.json"), Contains("absent.json"));
}

TEST_CASE("choice_tree: the shipped trees load, and the built-in Medusa tree is medusa_cpu_15.json", "[choice_tree][medusa]") {
  const fs::path trees = find_trees_dir();
  INFO("working directory " << fs::current_path());
  REQUIRE(!trees.empty());  // experiments/trees must be found above the working directory
  const ChoiceTree big = load_choice_tree((trees / "medusa_63.json").string());
  CHECK(big.size() == 64);
  CHECK(big.max_depth() <= 4);
  const ChoiceTree cpu = load_choice_tree((trees / "medusa_cpu_15.json").string());
  CHECK(cpu.size() == 16);
  CHECK(cpu.max_depth() <= 4);
  for (const ChoiceTree* t : {&big, &cpu})
    for (int32_t v = 1; v < t->size(); ++v) REQUIRE(t->parent[v] < v);

  const nlohmann::json file = read_json_file((trees / "medusa_cpu_15.json").string(), "tree");
  REQUIRE(file.at("choices").get<std::vector<std::vector<int32_t>>>() == default_medusa_choices());
  REQUIRE(file.at("comment").get<std::string>().find("make_choice_tree.py") != std::string::npos);
}

TEST_CASE("medusa: proposals hold each head's top-k, for the reference and the native layout", "[medusa]") {
  Fixture f;
  std::mt19937_64 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t H = f.ref.H;
  const ChoiceTree default_tree = choice_tree_from_paths(default_medusa_choices(), "default");
  const fs::path trees = find_trees_dir();
  REQUIRE(!trees.empty());
  const std::string tree_63 = (trees / "medusa_63.json").string();
  const ChoiceTree tree63 = load_choice_tree(tree_63);

  RandomDrafterSpec spec;
  spec.kind = "medusa";
  spec.seed = 9;
  spec.num_heads = 4;
  spec.num_layers = 1;
  spec.draft_vocab = 100;
  write_random_drafter(spec, *f.model, f.dir / "native");
  const SafetensorsFile native = SafetensorsFile::open(f.dir / "native/model.safetensors");
  const SafetensorsTensor& vocab_tensor = native.tensor("draft_vocab");
  REQUIRE(vocab_tensor.dtype == "I32");
  std::vector<int32_t> native_vocab(static_cast<size_t>(vocab_tensor.n_elements()));
  std::memcpy(native_vocab.data(), vocab_tensor.data, vocab_tensor.n_bytes);
  REQUIRE(native_vocab.size() == 100);
  std::vector<int32_t> all_ids(static_cast<size_t>(f.ref.V));
  std::iota(all_ids.begin(), all_ids.end(), 0);
  const std::vector<float>& lm_head = f.tiny.tensor("lm_head.weight").values;  // [V][H], the target's output

  for (int trial = 0; trial < 3; ++trial) {
    std::vector<float> h(static_cast<size_t>(H));
    for (float& x : h) x = normal(rng);
    const std::vector<int32_t> context{1, 5, 9};
    const int32_t root = 40 + trial;

    // Reference layout: 2 blocks per head, own output layers over the whole vocabulary.
    std::vector<std::vector<float>> ref_logits, native_logits;
    std::vector<std::vector<float>> native_biases;
    for (int k = 0; k < 4; ++k) {
      HeadWeights w;
      for (int l = 0; l < 2; ++l) {
        w.w.push_back(f.ref.t.at(std::to_string(k) + "." + std::to_string(l) + ".linear.weight").values.data());
        w.b.push_back(f.ref.t.at(std::to_string(k) + "." + std::to_string(l) + ".linear.bias").values.data());
      }
      w.output = f.ref.t.at(std::to_string(k) + ".2.weight").values.data();
      w.rows = all_ids;
      ref_logits.push_back(reference_head_logits(w, h));
      // Native: W = 0 (checked), the file's bias, the target's LM head rows of the draft vocabulary.
      const std::vector<float> zero = floats_of(native.tensor(std::to_string(k) + ".0.linear.weight"));
      REQUIRE(std::all_of(zero.begin(), zero.end(), [](float x) { return x == 0.0f; }));
      native_biases.push_back(floats_of(native.tensor(std::to_string(k) + ".0.linear.bias")));
      REQUIRE(std::any_of(native_biases.back().begin(), native_biases.back().end(), [](float x) { return x != 0.0f && std::abs(x) <= 0.02f; }));
      HeadWeights n;
      n.w.push_back(zero.data());
      n.b.push_back(native_biases.back().data());
      n.output = lm_head.data();
      n.rows = native_vocab;
      native_logits.push_back(reference_head_logits(n, h));
    }

    for (const auto& [tree_file, tree] : {std::pair{std::string(), &default_tree}, std::pair{tree_63, &tree63}}) {
      INFO("trial " << trial << " tree '" << tree_file << "'");
      Draft draft;
      auto reference = f.load("reference", tree_file);
      REQUIRE(reference->name() == "medusa");
      REQUIRE(reference->max_tree_nodes() == tree->size());
      reference->propose(DraftContext{0, context, root, h}, draft);
      check_proposal(draft, root, ref_logits, all_ids, *tree);
      auto own = f.load("native", tree_file);
      own->propose(DraftContext{0, context, root, h}, draft);
      check_proposal(draft, root, native_logits, native_vocab, *tree);
    }
  }
}

TEST_CASE("medusa: greedy decoding is autoregressive decoding, for every layout, tree and batch", "[medusa][lossless]") {
  Fixture f;
  RandomDrafterSpec spec;
  spec.kind = "medusa";
  spec.seed = 5;
  write_random_drafter(spec, *f.model, f.dir / "native_target");  // the target's LM head, whole vocabulary
  spec.own_head = true;
  spec.draft_vocab = 50;
  spec.num_layers = 2;
  write_random_drafter(spec, *f.model, f.dir / "native_own");
  const auto ps = tiny_prompts(*f.model);
  std::vector<std::vector<int32_t>> truth;
  for (const auto& p : ps) truth.push_back(greedy_reference(*f.model, p, 24));
  const fs::path trees = find_trees_dir();
  REQUIRE(!trees.empty());

  Transformer tf(f.model->config(), f.model->weights(), f.pool);
  DecodeOptions opt;
  opt.max_new_tokens = 24;
  opt.ignore_eos = true;
  for (const std::string weights : {"reference", "native_target", "native_own"})
    for (const std::string& tree_file : {std::string(), (trees / "medusa_63.json").string()})
      for (size_t batch : {size_t{1}, size_t{3}}) {
        auto drafter = f.load(weights, tree_file);
        Decoder decoder(*f.model, tf, *drafter);
        for (size_t first = 0; first + batch <= ps.size(); first += batch) {
          const std::vector<std::vector<int32_t>> batch_prompts(ps.begin() + static_cast<ptrdiff_t>(first), ps.begin() + static_cast<ptrdiff_t>(first + batch));
          const auto results = decoder.generate(batch_prompts, opt);
          for (size_t i = 0; i < batch; ++i) {
            INFO(weights << " tree '" << tree_file << "' batch " << batch << " prompt " << first + i);
            REQUIRE(results[i].tokens == truth[first + i]);
            for (const StepRecord& s : results[i].steps) REQUIRE(s.drafted == drafter->max_tree_nodes() - 1);
          }
        }
      }
}

TEST_CASE("medusa: bad weights and trees are one-line errors", "[medusa]") {
  Fixture f;
  {
    ReferenceMedusa wrong = f.ref;
    wrong.t.erase("1.0.linear.bias");
    wrong.write(f.dir / "no_bias");
    REQUIRE_THROWS_WITH(f.load("no_bias"), Contains("tensor '1.0.linear.bias'") && Contains("missing"));
  }
  {
    ReferenceMedusa wrong = f.ref;
    wrong.t.erase("2.2.weight");
    wrong.write(f.dir / "one_output_missing");
    REQUIRE_THROWS_WITH(f.load("one_output_missing"), Contains("tensor '2.2.weight'") && Contains("every head or for none"));
  }
  {
    ReferenceMedusa narrow(f.ref.H / 2, f.ref.V, 4, 1, 3);
    narrow.write(f.dir / "narrow");
    REQUIRE_THROWS_WITH(f.load("narrow"),
                        Contains("tensor '0.0.linear.weight'") && Contains("shape [32, 32]") && Contains("n_embd = 64, the target's hidden size"));
  }
  {
    ReferenceMedusa wrong_vocab(f.ref.H, f.ref.V - 1, 4, 1, 3);
    wrong_vocab.write(f.dir / "wrong_vocab");
    REQUIRE_THROWS_WITH(f.load("wrong_vocab"), Contains("tensor '0.1.weight'") && Contains("n_draft_vocab"));
  }
  {
    ReferenceMedusa two_heads(f.ref.H, f.ref.V, 2, 1, 3);
    two_heads.write(f.dir / "two_heads");
    // The default tree is 3 deep.
    REQUIRE_THROWS_WITH(f.load("two_heads"), Contains("built-in Medusa tree") && Contains("tree depth 3") && Contains("has 2"));
    TempDir trees("medusa_trees");
    write_file(trees / "deep.json", "[[0], [0, 0]]");
    REQUIRE_NOTHROW(f.load("two_heads", trees / "deep.json"));
    write_file(trees / "deeper.json", "[[0], [0, 0], [0, 0, 0]]");
    REQUIRE_THROWS_WITH(f.load("two_heads", trees / "deeper.json"), Contains("deeper.json") && Contains("tree depth 3") && Contains("has 2"));
    write_file(trees / "bad.json", "[[0], [0, -2]]");
    REQUIRE_THROWS_WITH(f.load("two_heads", trees / "bad.json"), Contains("bad.json: path 1 [0, -2]"));
  }
  {
    RandomDrafterSpec spec;
    spec.kind = "medusa";
    spec.draft_vocab = 3;
    write_random_drafter(spec, *f.model, f.dir / "tiny_vocab");
    REQUIRE_THROWS_WITH(f.load("tiny_vocab"), Contains("rank 3 needs a top-4 over a draft vocabulary of 3 tokens"));
  }
  {
    RandomDrafterSpec spec;
    spec.kind = "medusa";
    write_random_drafter(spec, *f.model, f.dir / "bad_head");
    nlohmann::json config = read_json_file(f.dir / "bad_head/drafter.json", "config");
    config["head"] = "shared";
    write_file(f.dir / "bad_head/drafter.json", config.dump());
    REQUIRE_THROWS_WITH(f.load("bad_head"), Contains("field 'head'") && Contains("expected \"own\" or \"target\""));
  }
}

TEST_CASE("decoder: the step trace (DecodeOptions::on_step) rebuilds every sequence's output", "[medusa][decoder]") {
  Fixture f;
  RandomDrafterSpec spec;
  spec.kind = "medusa";
  spec.seed = 6;
  write_random_drafter(spec, *f.model, f.dir / "traced");
  const auto ps = tiny_prompts(*f.model);
  REQUIRE(ps.size() >= 3);
  const std::vector<std::vector<int32_t>> batch(ps.begin(), ps.begin() + 3);
  Transformer tf(f.model->config(), f.model->weights(), f.pool);
  auto drafter = f.load("traced", "");
  Decoder decoder(*f.model, tf, *drafter);
  DecodeOptions opt;
  opt.max_new_tokens = 24;
  opt.ignore_eos = true;
  std::vector<std::vector<int32_t>> rebuilt(batch.size());
  std::vector<int> steps_seen(batch.size(), 0);
  size_t calls = 0;
  opt.on_step = [&](const StepTrace& t) {
    ++calls;
    const Draft& draft = t.draft;
    const std::span<const int32_t> path = t.accepted;
    REQUIRE(t.step == steps_seen[static_cast<size_t>(t.sequence)]++);  // steps counted from 0, one at a time
    auto& out = rebuilt[static_cast<size_t>(t.sequence)];
    REQUIRE(!path.empty());
    REQUIRE(path[0] == 0);
    if (out.empty()) out.push_back(draft.tree.tokens[0]);  // the prefill's token
    REQUIRE(draft.tree.tokens[0] == out.back());           // each step starts at the last root
    for (size_t k = 1; k < path.size(); ++k) {
      REQUIRE(draft.tree.parents[static_cast<size_t>(path[k])] == path[k - 1]);  // a path down the tree
      out.push_back(draft.tree.tokens[static_cast<size_t>(path[k])]);
    }
    out.push_back(t.next);
  };
  const auto results = decoder.generate(batch, opt);
  size_t steps = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    INFO("sequence " << i);
    steps += results[i].steps.size();
    REQUIRE(rebuilt[i].size() >= results[i].tokens.size());
    rebuilt[i].resize(results[i].tokens.size());  // the last step may overshoot the length limit
    CHECK(rebuilt[i] == results[i].tokens);
  }
  CHECK(calls == steps);
}
