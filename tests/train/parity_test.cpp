// The trainer's libtorch drafters against the engine's: random weights, exported in F32,
// loaded by the engine's drafter factories, and both forwards run on the same random
// inputs. On F32 targets (tiny Llama, tiny Gemma) they must agree to float rounding; on the
// real Gemma (Q8_0 LM head: the engine quantises activations to Q8_0 for it) to what that
// quantisation allows.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "engine/drafters/draft_head.h"
#include "engine/drafters/drafter_checkpoint.h"
#include "engine/drafters/eagle/eagle.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/model.h"
#include "engine/train/torch/draft_target.h"
#include "engine/train/torch/torch_backend.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"
#include "tests/train/train_fixtures.h"

using namespace draftbench;
using namespace draftbench::test;

namespace {

enum class TinyArch { llama, gemma, qwen2 };

struct Target {
  TempDir dir;
  std::unique_ptr<Model> model;
  Target(const std::string& name, bool gemma) : Target(name, gemma ? TinyArch::gemma : TinyArch::llama) {}
  Target(const std::string& name, TinyArch arch) : dir(name) {
    if (arch == TinyArch::gemma) write_tiny_gemma_gguf(dir / "tiny.gguf");
    else if (arch == TinyArch::llama) write_llama_gguf(make_tiny_llama(), dir / "tiny.gguf");
    else write_qwen2_gguf(make_tiny_llama(TinyLlamaShape{.rope_theta = 1e6f, .qkv_bias = true}), dir / "tiny.gguf", GgmlType::F32);
    model = Model::load(dir / "tiny.gguf");
  }
};

// A shuffled subset of the target's ids: the draft vocabulary's row order is arbitrary.
std::vector<int32_t> random_vocab(int64_t n_vocab, int64_t n, uint64_t seed) {
  std::vector<int32_t> ids(static_cast<size_t>(n_vocab));
  for (int64_t i = 0; i < n_vocab; ++i) ids[static_cast<size_t>(i)] = static_cast<int32_t>(i);
  std::mt19937_64 rng(seed);
  seeded_shuffle(ids, rng);
  ids.resize(static_cast<size_t>(std::min(n, n_vocab)));
  return ids;
}

std::vector<float> normal_values(size_t n, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// A libtorch drafter with every parameter random (none of the trainer's identity starts),
// exported in F32 for the engine.
struct TorchDrafter {
  std::string kind;
  DraftTarget target;
  std::unique_ptr<TorchSession> session;
  TorchDrafter(const Model& model, std::vector<int32_t> vocab, const std::string& kind_, int64_t steps, int64_t layers, uint64_t seed,
               bool previous_token = false)
      : kind(kind_), target(model, std::move(vocab)) {
    SessionSpec spec;
    spec.kind = kind;
    spec.steps = steps;
    spec.layers = layers;
    spec.eagle = target.eagle_layer();
    spec.eagle.previous_token = previous_token;
    session = open_torch_session(spec, target.rows());
    session->randomize(seed);
  }
  void export_f32(const std::string& dir) const {
    nlohmann::json config = native_drafter_config(kind);
    config.update(session->config());
    SafetensorsWriter writer;
    for (const NamedFloats& t : session->weights()) writer.tensor_floats(t.name, GgmlType::F32, t.shape, t.values);
    write_native_drafter(dir, config, writer, target.draft_vocab(), target.model().config().n_vocab);
  }
  int64_t n_draft_vocab() const { return static_cast<int64_t>(target.draft_vocab().size()); }
};

void log_softmax_rows(std::vector<float>& v, int64_t width) {
  for (size_t r = 0; r * static_cast<size_t>(width) < v.size(); ++r)
    log_softmax(std::span<float>(v).subspan(r * static_cast<size_t>(width), static_cast<size_t>(width)));
}

double max_abs_diff(std::span<const float> a, std::span<const float> b) {
  REQUIRE(a.size() == b.size());
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
  return m;
}

double max_abs(std::span<const float> a) {
  double m = 0;
  for (float x : a) m = std::max(m, std::abs(static_cast<double>(x)));
  return m;
}

int64_t argmax(std::span<const float> v) { return std::max_element(v.begin(), v.end()) - v.begin(); }

// ReDrafter, beam width 1: the engine's beam is the greedy path, and its q per node is the
// draft distribution the next token was chosen from. libtorch, teacher-forced along the same
// path, must give the same log-probabilities at every step.
void redrafter_parity(const Model& model, std::vector<int32_t> vocab, double tolerance, const std::string& dir) {
  const TorchDrafter torch_drafter(model, std::move(vocab), "redrafter", 4, 2, 5);
  torch_drafter.export_f32(dir);
  DrafterOptions options;
  options.kind = "redrafter";
  options.weights_dir = dir;
  options.beam_width = 1;
  options.beam_length = 5;
  options.keep_draft_distributions = true;
  ThreadPool pool(2);
  const auto drafter = make_drafter(options, model, pool);
  const int64_t H = model.config().n_embd, Vd = torch_drafter.n_draft_vocab(), T = 4;
  const std::vector<int32_t>& ids = torch_drafter.target.draft_vocab();
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 3; ++trial) {
    const std::vector<float> h = normal_values(static_cast<size_t>(H), rng);
    const int32_t root = static_cast<int32_t>((trial * 7919 + 13) % model.config().n_vocab);
    Draft draft;
    drafter->propose(DraftContext{0, {}, root, h}, draft);
    REQUIRE(draft.tree.size() == 5);
    REQUIRE(draft.has_q());
    std::vector<int32_t> inputs{root};
    for (int32_t i = 1; i < T; ++i) inputs.push_back(draft.tree.tokens[static_cast<size_t>(i)]);
    BackendBatch batch;
    batch.size = 1;
    batch.steps = T;
    batch.hidden = h;
    batch.input_embeddings.resize(static_cast<size_t>(T * H));
    torch_drafter.target.embed(inputs, batch.input_embeddings.data());
    std::vector<float> logp = torch_drafter.session->forward(batch).logits;  // [1][T][Vd]
    REQUIRE(static_cast<int64_t>(logp.size()) == T * Vd);
    log_softmax_rows(logp, Vd);
    for (int64_t step = 0; step < T; ++step) {
      CHECK(draft.tree.parents[static_cast<size_t>(step + 1)] == step);
      const std::span<const float> ours(logp.data() + step * Vd, static_cast<size_t>(Vd));
      std::vector<float> engine;
      for (int32_t e = draft.q_offsets[static_cast<size_t>(step)]; e < draft.q_offsets[static_cast<size_t>(step + 1)]; ++e) {
        REQUIRE(draft.q_entries[static_cast<size_t>(e)].token == ids[engine.size()]);
        engine.push_back(static_cast<float>(std::log(draft.q_entries[static_cast<size_t>(e)].p)));
      }
      REQUIRE(static_cast<int64_t>(engine.size()) == Vd);
      INFO("trial " << trial << " step " << step);
      CHECK(max_abs_diff(ours, engine) < tolerance);
      CHECK(ids[static_cast<size_t>(argmax(ours))] == draft.tree.tokens[static_cast<size_t>(step + 1)]);
    }
  }
}

// Medusa: each head's logits through the engine's DraftHead (bound from the exported
// checkpoint exactly as make_medusa_drafter binds it), and the drafter's default tree,
// whose depth-d nodes are head d-1's top ranks.
void medusa_parity(const Model& model, std::vector<int32_t> vocab, double tolerance, const std::string& dir) {
  const TorchDrafter torch_drafter(model, std::move(vocab), "medusa", 3, 2, 6);
  torch_drafter.export_f32(dir);
  const int64_t H = model.config().n_embd, Vd = torch_drafter.n_draft_vocab();
  const std::vector<int32_t>& ids = torch_drafter.target.draft_vocab();
  ThreadPool pool(2);
  DrafterCheckpoint checkpoint(dir);
  std::vector<DraftHead> heads;
  for (int k = 0; k < 3; ++k) {
    std::vector<ResidualBlock> blocks;
    for (int l = 0; l < 2; ++l)
      blocks.push_back(ResidualBlock{checkpoint.bind().matrix(fmt::format("{}.{}.linear.weight", k, l), H, H, "[H, H]"),
                                     checkpoint.bind().vector(fmt::format("{}.{}.linear.bias", k, l), H, "[H]")});
    heads.emplace_back(std::move(blocks), model.weights().output, true, checkpoint.draft_vocab(model.config().n_vocab));
  }
  DrafterOptions options;
  options.kind = "medusa";
  options.weights_dir = dir;
  const auto drafter = make_drafter(options, model, pool);
  std::mt19937_64 rng(10);
  for (int trial = 0; trial < 3; ++trial) {
    BackendBatch batch;
    batch.size = 1;
    batch.steps = 3;
    batch.hidden = normal_values(static_cast<size_t>(H), rng);
    const std::vector<float> logits = torch_drafter.session->forward(batch).logits;  // [K][1][Vd]
    REQUIRE(static_cast<int64_t>(logits.size()) == 3 * Vd);
    for (int k = 0; k < 3; ++k) {
      std::vector<float> x = batch.hidden, engine(static_cast<size_t>(Vd));
      heads[static_cast<size_t>(k)].forward(x.data(), 1, engine.data(), pool);
      INFO("trial " << trial << " head " << k);
      CHECK(max_abs_diff(std::span<const float>(logits.data() + k * Vd, static_cast<size_t>(Vd)), engine) < tolerance * std::max(1.0, max_abs(engine)));
    }
    // The default tree (experiments/trees/medusa_cpu_15.json): nodes 1-4 = head 0's top 4,
    // 5-8 = head 1's top 4 (under node 1), 12-14 = head 2's top 3.
    Draft draft;
    drafter->propose(DraftContext{0, {}, 1, batch.hidden}, draft);
    REQUIRE(draft.tree.size() == 16);
    const std::vector<std::pair<int, std::vector<int32_t>>> expected_nodes{{0, {1, 2, 3, 4}}, {1, {5, 6, 7, 8}}, {2, {12, 13, 14}}};
    for (const auto& [k, nodes] : expected_nodes) {
      std::vector<int32_t> top;
      top_k_indices(std::span<const float>(logits.data() + k * Vd, static_cast<size_t>(Vd)), static_cast<int64_t>(nodes.size()), top);
      for (size_t r = 0; r < nodes.size(); ++r) CHECK(draft.tree.tokens[static_cast<size_t>(nodes[r])] == ids[static_cast<size_t>(top[r])]);
    }
  }
}

// EAGLE: a prompt's pairs (f_i, x_{i+1}) and the root's pair through the engine's draft
// layer; its root distribution and predicted feature against libtorch's last row. Then the
// root's first child (depth 1: the pair (predicted root feature, child token)), against
// libtorch's row for that pair appended; with the copy input, each pair's own token too.
void eagle_parity(const Model& model, std::vector<int32_t> vocab, double feature_tolerance, double logp_tolerance, const std::string& dir,
                  bool previous_token = false) {
  const TorchDrafter torch_drafter(model, std::move(vocab), "eagle", 1, 0, 7, previous_token);
  torch_drafter.export_f32(dir);
  ThreadPool pool(2);
  DrafterCheckpoint checkpoint(dir);
  DrafterOptions options;
  options.kind = "eagle";
  options.weights_dir = dir;
  options.draft_weights = "file";  // libtorch multiplies the float weights
  options.depth = 1;               // one level fed: the root's children
  options.top_k = 3;
  options.total_tokens = 4;
  const auto drafter = make_eagle_drafter(checkpoint, options, model, pool);
  auto* eagle = dynamic_cast<EagleDrafter*>(drafter.get());
  REQUIRE(eagle);
  const int64_t H = model.config().n_embd, Vd = torch_drafter.n_draft_vocab();
  std::mt19937_64 rng(11);
  for (int64_t P : {1, 9, 23}) {
    std::vector<int32_t> prompt;
    for (int64_t i = 0; i < P; ++i) prompt.push_back(static_cast<int32_t>((i * 37 + P) % model.config().n_vocab));
    const int32_t root = static_cast<int32_t>((P * 101) % model.config().n_vocab);
    const std::vector<float> features = normal_values(static_cast<size_t>(P * H), rng);
    eagle->reset(1);
    eagle->begin(0, prompt, features);
    Draft draft;
    eagle->propose(DraftContext{0, prompt, root, std::span<const float>(features).subspan(static_cast<size_t>((P - 1) * H))}, draft);

    std::vector<int32_t> next(prompt.begin() + 1, prompt.end());
    next.push_back(root);
    BackendBatch batch;
    batch.size = P;
    batch.steps = 1;
    batch.hidden = features;
    batch.input_embeddings.resize(static_cast<size_t>(P * H));
    torch_drafter.target.embed(next, batch.input_embeddings.data());
    if (previous_token) {
      batch.previous_embeddings.resize(static_cast<size_t>(P * H));
      torch_drafter.target.embed(prompt, batch.previous_embeddings.data());  // pair i's own token x_i
    }
    batch.lengths = {P};
    ForwardOutput out = torch_drafter.session->forward(batch);
    log_softmax_rows(out.logits, Vd);
    const std::span<const float> ours_feature(out.features.data() + (P - 1) * H, static_cast<size_t>(H));
    const std::span<const float> ours_logp(out.logits.data() + (P - 1) * Vd, static_cast<size_t>(Vd));
    INFO("prompt length " << P);
    CHECK(max_abs_diff(ours_feature, eagle->root_feature()) < feature_tolerance * std::max(1.0, max_abs(eagle->root_feature())));
    CHECK(max_abs_diff(ours_logp, eagle->root_log_probs()) < logp_tolerance);

    // The first child: the pair (engine's predicted root feature, child), its own token the root.
    REQUIRE(draft.tree.size() >= 2);
    const int32_t child = draft.tree.tokens[1];
    BackendBatch longer;
    longer.size = P + 1;
    longer.steps = 1;
    longer.hidden = features;
    longer.hidden.insert(longer.hidden.end(), eagle->root_feature().begin(), eagle->root_feature().end());
    next.push_back(child);
    longer.input_embeddings.resize(static_cast<size_t>((P + 1) * H));
    torch_drafter.target.embed(next, longer.input_embeddings.data());
    if (previous_token) {
      std::vector<int32_t> own(prompt.begin(), prompt.end());  // pair i's own token x_i
      own.push_back(root);
      longer.previous_embeddings.resize(static_cast<size_t>((P + 1) * H));
      torch_drafter.target.embed(own, longer.previous_embeddings.data());
    }
    longer.lengths = {P + 1};
    ForwardOutput child_out = torch_drafter.session->forward(longer);
    log_softmax_rows(child_out.logits, Vd);
    const std::span<const float> child_logp(child_out.logits.data() + P * Vd, static_cast<size_t>(Vd));
    REQUIRE(eagle->last_level_log_probs().size() >= static_cast<size_t>(Vd));
    CHECK(max_abs_diff(child_logp, eagle->last_level_log_probs().subspan(0, static_cast<size_t>(Vd))) < logp_tolerance);
  }
}

const Model* real_model() {
  static const std::unique_ptr<Model> model = [] {
    const char* path = std::getenv("DRAFTBENCH_MODEL");
    return path ? Model::load(path) : nullptr;
  }();
  return model.get();
}

}  // namespace

TEST_CASE("parity: ReDrafter's step log-probs along a path equal the engine's (tiny Llama)", "[train][parity]") {
  SKIP_WITHOUT_TORCH();
  Target t("parity_redrafter", false);
  redrafter_parity(*t.model, random_vocab(t.model->config().n_vocab, 150, 1), 1e-4, t.dir / "drafter");
}

TEST_CASE("parity: Medusa's head logits and tree equal the engine's (tiny Llama)", "[train][parity]") {
  SKIP_WITHOUT_TORCH();
  Target t("parity_medusa", false);
  medusa_parity(*t.model, random_vocab(t.model->config().n_vocab, 150, 2), 1e-5, t.dir / "drafter");
}

TEST_CASE("parity: EAGLE's predicted feature and log-probs equal the engine's (tiny Llama)", "[train][parity]") {
  SKIP_WITHOUT_TORCH();
  Target t("parity_eagle_llama", false);
  eagle_parity(*t.model, random_vocab(t.model->config().n_vocab, 150, 3), 1e-5, 1e-4, t.dir / "drafter");
}

TEST_CASE("parity: EAGLE with the copy input (each pair's own token) equals the engine's, root and child (tiny Llama)", "[train][parity]") {
  SKIP_WITHOUT_TORCH();
  Target t("parity_eagle_previous", false);
  const std::string dir = t.dir / "drafter";
  eagle_parity(*t.model, random_vocab(t.model->config().n_vocab, 150, 5), 1e-5, 1e-4, dir, true);
  CHECK(read_json(dir + "/drafter.json")["previous_token"] == true);
}

TEST_CASE("parity: EAGLE with a Gemma 3 layer (QK-norm, post-norms, GeGLU) equals the engine's (tiny Gemma)", "[train][parity]") {
  SKIP_WITHOUT_TORCH();
  Target t("parity_eagle_gemma", true);
  REQUIRE(t.model->config().qk_norm);
  REQUIRE(t.model->config().final_logit_softcap > 0);  // the drafter must not apply it
  eagle_parity(*t.model, random_vocab(t.model->config().n_vocab, 150, 4), 1e-5, 1e-4, t.dir / "drafter");
}

// Qwen 2's layer: NeoX RoPE (pairs (j, j + half), the engine's and the trainer's other
// branch from the tiny Llama's), base 1e6, and Q/K/V biases in the target that the draft
// layer must not take over.
TEST_CASE("parity: EAGLE with a Qwen 2 target (NeoX RoPE, base 1e6, biased target) equals the engine's (tiny Qwen 2)", "[train][parity]") {
  SKIP_WITHOUT_TORCH();
  Target t("parity_eagle_qwen2", TinyArch::qwen2);
  REQUIRE(t.model->config().rope_style == RopeStyle::neox);
  REQUIRE(t.model->config().qkv_bias);
  const std::string dir = t.dir / "drafter";
  eagle_parity(*t.model, random_vocab(t.model->config().n_vocab, 150, 6), 1e-5, 1e-4, dir, true);
  CHECK(read_json(dir + "/drafter.json")["rope_base"] == 1e6);
}

// The real Gemma 3 270M: its LM head is Q8_0, and the engine's matmul quantises the
// activations to Q8_0 for it, so logits agree to that quantisation's error only; the draft
// layer's own F32 weights keep EAGLE's feature exact to float rounding.
TEST_CASE("parity: all three drafters on the real Gemma 3 (Q8_0 LM head)", "[train][parity][model]") {
  SKIP_WITHOUT_TORCH();
  const Model* model = real_model();
  if (!model) {
    WARN("DRAFTBENCH_MODEL is not set: skipping the real-model parity test");
    return;
  }
  TempDir dir("parity_gemma");
  const std::vector<int32_t> vocab = default_draft_vocab(*model, 4096);
  SECTION("redrafter") { redrafter_parity(*model, vocab, 0.08, dir / "redrafter"); }
  SECTION("medusa") { medusa_parity(*model, vocab, 0.02, dir / "medusa"); }
  SECTION("eagle") { eagle_parity(*model, vocab, 1e-4, 0.08, dir / "eagle"); }
}
