// ReDrafter on a tiny random Llama target: the reference checkpoint layout loads, beam
// search matches a plain float re-implementation written from the method's formulas,
// packed and unpacked beams agree, and greedy decoding through the Decoder is exactly
// autoregressive greedy decoding for every beam shape, tree attention on and off, and
// batch sizes 1 and 3.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>

#include "engine/common/error.h"
#include "engine/decoding/autoregressive.h"
#include "engine/decoding/decoder.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/safetensors_writer.h"
#include "engine/model/token_embedding.h"
#include "engine/model/transformer.h"
#include "tests/support/greedy_reference.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;
using namespace draftbench::test;
using Catch::Matchers::Contains;

namespace {

struct RefTensor {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

// A reference-layout ReDrafter checkpoint (config.json as apple/ml-recurrent-drafter
// writes it) with an own output layer over the whole vocabulary.
struct ReferenceRedrafter {
  int64_t H = 0, V = 0, D = 0;
  int layers = 2;
  std::map<std::string, RefTensor> t;

  ReferenceRedrafter(int64_t hidden, int64_t vocab, uint64_t seed) : H(hidden), V(vocab), D(2 * hidden) {
    std::mt19937_64 rng(seed);
    auto add = [&](const std::string& name, std::vector<int64_t> shape, float scale) {
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      std::normal_distribution<float> normal(0.0f, scale);
      RefTensor r{shape, std::vector<float>(static_cast<size_t>(n))};
      for (float& x : r.values) x = normal(rng);
      t[name] = std::move(r);
    };
    add("rnn_w.weight", {H, H}, 0.3f);
    add("rnn_u.weight", {H, H}, 0.3f);
    add("rnn_u.bias", {H}, 0.1f);
    for (int i = 0; i < layers; ++i) {
      add("lm_head." + std::to_string(i) + ".linear.weight", {D, D}, 0.05f);
      add("lm_head." + std::to_string(i) + ".linear.bias", {D}, 0.1f);
    }
    add("lm_head." + std::to_string(layers) + ".weight", {V, D}, 0.5f);
  }

  void write(const std::string& dir) const {
    std::filesystem::create_directories(dir);
    SafetensorsWriter w;
    for (const auto& [name, r] : t) w.tensor_floats(name, GgmlType::F32, r.shape, r.values);
    w.write(dir + "/model.safetensors");
    const nlohmann::json config = {
        {"model_type", "recurrent_drafting_drafter"}, {"vocab_size", V}, {"hidden_size", H}, {"exit_dim", D}, {"num_draft_layers", layers}, {"rnn", true}};
    write_file(dir + "/config.json", config.dump());
  }

  // y = W x + b with plain double accumulation.
  std::vector<float> affine(const std::string& w, const std::string& b, const std::vector<float>& x) const {
    const RefTensor& m = t.at(w);
    std::vector<float> y(static_cast<size_t>(m.shape[0]));
    for (int64_t o = 0; o < m.shape[0]; ++o) {
      double acc = b.empty() ? 0.0 : t.at(b).values[static_cast<size_t>(o)];
      for (int64_t i = 0; i < m.shape[1]; ++i) acc += static_cast<double>(m.values[static_cast<size_t>(o * m.shape[1] + i)]) * x[static_cast<size_t>(i)];
      y[static_cast<size_t>(o)] = static_cast<float>(acc);
    }
    return y;
  }
  static float silu(float x) { return x / (1.0f + std::exp(-x)); }

  std::vector<float> next_state(const std::vector<float>& s, const std::vector<float>& e) const {
    const auto a = affine("rnn_w.weight", "", e), b = affine("rnn_u.weight", "rnn_u.bias", s);
    std::vector<float> out(a.size());
    for (size_t i = 0; i < a.size(); ++i) out[i] = silu(a[i] + b[i]);
    return out;
  }
  std::vector<double> log_q(const std::vector<float>& h, const std::vector<float>& s) const {
    std::vector<float> x(h);
    x.insert(x.end(), s.begin(), s.end());
    for (int i = 0; i < layers; ++i) {
      const auto y = affine("lm_head." + std::to_string(i) + ".linear.weight", "lm_head." + std::to_string(i) + ".linear.bias", x);
      for (size_t k = 0; k < x.size(); ++k) x[k] += silu(y[k]);
    }
    const auto logits = affine("lm_head." + std::to_string(layers) + ".weight", "", x);
    double m = -1e300, sum = 0;
    for (float l : logits) m = std::max(m, static_cast<double>(l));
    for (float l : logits) sum += std::exp(l - m);
    std::vector<double> out(logits.size());
    for (size_t k = 0; k < logits.size(); ++k) out[k] = logits[k] - m - std::log(sum);
    return out;
  }
};

struct Beam {
  std::vector<int32_t> tokens;
  std::vector<float> state;
  double score;
};

// Beam search exactly as engine/DESIGN.md §2.1 states it, with no shared code.
std::vector<Beam> reference_beam_search(const ReferenceRedrafter& r, const Model& m, const std::vector<float>& h, int32_t root, int W, int L) {
  std::vector<Beam> beams{Beam{{root}, std::vector<float>(static_cast<size_t>(r.H), 0.0f), 0.0}};
  for (int t = 1; t < L; ++t) {
    struct Cand {
      double score;
      size_t beam;
      int32_t token;
    };
    std::vector<Cand> cands;
    std::vector<std::vector<float>> states;
    for (size_t b = 0; b < beams.size(); ++b) {
      std::vector<float> e(static_cast<size_t>(r.H));
      embed_tokens(m.config(), m.weights(), std::span<const int32_t>(&beams[b].tokens.back(), 1), e.data());
      states.push_back(r.next_state(beams[b].state, e));
      const auto lq = r.log_q(h, states.back());
      for (size_t v = 0; v < lq.size(); ++v) cands.push_back(Cand{beams[b].score + lq[v], b, static_cast<int32_t>(v)});
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.score > b.score; });
    std::vector<Beam> next;
    for (int k = 0; k < W && k < static_cast<int>(cands.size()); ++k) {
      Beam nb{beams[cands[k].beam].tokens, states[cands[k].beam], cands[k].score};
      nb.tokens.push_back(cands[k].token);
      next.push_back(std::move(nb));
    }
    beams = std::move(next);
  }
  return beams;
}

struct Fixture {
  TempDir dir{"redrafter"};
  TinyLlama tiny = make_tiny_llama();
  std::unique_ptr<Model> model;
  ReferenceRedrafter ref{tiny.shape.hidden, tiny.vocab(), 7};
  Fixture() {
    write_llama_gguf(tiny, dir / "tiny.gguf");
    model = Model::load(dir / "tiny.gguf");
    ref.write(dir / "reference");
  }
};

}  // namespace

TEST_CASE("redrafter: beam search on a reference checkpoint matches a plain re-implementation", "[redrafter]") {
  Fixture f;
  ThreadPool pool(1);
  std::mt19937_64 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (auto [W, L] : {std::pair{1, 4}, std::pair{4, 3}, std::pair{6, 5}}) {
    DrafterOptions o;
    o.kind = "redrafter";
    o.weights_dir = f.dir / "reference";
    o.beam_width = W;
    o.beam_length = L;
    o.tree_attention = false;  // the unpacked layout is the beams themselves
    auto drafter = make_drafter(o, *f.model, pool);
    REQUIRE(drafter->max_tree_nodes() == W * L);
    std::vector<float> h(static_cast<size_t>(f.ref.H));
    for (float& x : h) x = normal(rng);
    const int32_t root = 42;
    const std::vector<int32_t> context{1, 5, 9};
    Draft d;
    drafter->propose(DraftContext{0, context, root, h}, d);
    const auto expected = reference_beam_search(f.ref, *f.model, h, root, W, L);
    INFO("W " << W << " L " << L);
    REQUIRE(d.n_beams == W);
    REQUIRE(d.tree.size() == W * L);
    for (int b = 0; b < W; ++b)
      for (int j = 0; j < L; ++j) REQUIRE(d.tree.tokens[static_cast<size_t>(b * L + j)] == expected[static_cast<size_t>(b)].tokens[static_cast<size_t>(j)]);
  }
}

TEST_CASE("redrafter: packed beams hold the same paths as unpacked ones, q is kept per node", "[redrafter]") {
  Fixture f;
  ThreadPool pool(1);
  DrafterOptions o;
  o.kind = "redrafter";
  o.weights_dir = f.dir / "reference";
  o.beam_width = 8;
  o.beam_length = 4;
  o.keep_draft_distributions = true;
  auto packed = make_drafter(o, *f.model, pool);
  o.tree_attention = false;
  auto unpacked = make_drafter(o, *f.model, pool);
  const std::vector<float> h(static_cast<size_t>(f.ref.H), 0.25f);
  const std::vector<int32_t> context{1, 2};
  Draft dp, du;
  packed->propose(DraftContext{0, context, 17, h}, dp);
  unpacked->propose(DraftContext{0, context, 17, h}, du);
  REQUIRE(dp.tree.size() < du.tree.size());  // beams share at least the root
  for (int b = 0; b < 8; ++b)
    for (int j = 0; j < 4; ++j)
      REQUIRE(dp.tree.tokens[static_cast<size_t>(dp.beam_nodes[static_cast<size_t>(b * 4 + j)])] ==
              du.tree.tokens[static_cast<size_t>(du.beam_nodes[static_cast<size_t>(b * 4 + j)])]);
  // q: one distribution per node that has children, summing to 1, holding the child tokens.
  REQUIRE(dp.q_offsets.size() == static_cast<size_t>(dp.tree.size()) + 1);
  for (int32_t v = 1; v < dp.tree.size(); ++v) {
    const int32_t parent = dp.tree.parents[static_cast<size_t>(v)];
    double sum = 0, child_q = 0;
    for (int32_t k = dp.q_offsets[static_cast<size_t>(parent)]; k < dp.q_offsets[static_cast<size_t>(parent) + 1]; ++k) {
      sum += dp.q_entries[static_cast<size_t>(k)].p;
      if (dp.q_entries[static_cast<size_t>(k)].token == dp.tree.tokens[static_cast<size_t>(v)]) child_q = dp.q_entries[static_cast<size_t>(k)].p;
    }
    REQUIRE(sum == Approx(1.0).epsilon(1e-5));  // f32 log-softmax over ~300 entries
    REQUIRE(child_q > 0.0);
  }
}

TEST_CASE("redrafter: greedy decoding is autoregressive decoding for every beam shape and batch", "[redrafter][lossless]") {
  Fixture f;
  RandomDrafterSpec spec;
  spec.kind = "redrafter";
  spec.seed = 5;
  spec.draft_vocab = 100;
  write_random_drafter(spec, *f.model, f.dir / "native");
  const auto ps = tiny_prompts(*f.model);
  std::vector<std::vector<int32_t>> truth;
  for (const auto& p : ps) truth.push_back(greedy_reference(*f.model, p, 24));
  ThreadPool pool(1);
  Transformer tf(f.model->config(), f.model->weights(), pool);
  DecodeOptions opt;
  opt.max_new_tokens = 24;
  opt.ignore_eos = true;
  for (const std::string weights : {"reference", "native"})
    for (auto [W, L] : {std::pair{1, 1}, std::pair{1, 3}, std::pair{3, 2}, std::pair{8, 5}})
      for (bool tree_attention : {true, false})
        for (size_t batch : {size_t{1}, size_t{3}}) {
          DrafterOptions o;
          o.kind = "redrafter";
          o.weights_dir = f.dir / weights;
          o.beam_width = W;
          o.beam_length = L;
          o.tree_attention = tree_attention;
          auto drafter = make_drafter(o, *f.model, pool);
          Decoder decoder(*f.model, tf, *drafter);
          const std::vector<std::vector<int32_t>> batch_prompts(ps.begin(), ps.begin() + static_cast<ptrdiff_t>(batch));
          const auto results = decoder.generate(batch_prompts, opt);
          for (size_t i = 0; i < batch; ++i) {
            INFO(weights << " W " << W << " L " << L << " tree attention " << tree_attention << " batch " << batch << " prompt " << i);
            REQUIRE(results[i].tokens == truth[i]);
          }
        }
}

TEST_CASE("redrafter: bad weights and options are one-line errors", "[redrafter]") {
  Fixture f;
  ThreadPool pool(1);
  DrafterOptions o;
  o.kind = "redrafter";
  o.weights_dir = f.dir / "reference";
  {
    ReferenceRedrafter wrong = f.ref;
    wrong.t.erase("rnn_u.bias");
    wrong.write(f.dir / "no_bias");
    o.weights_dir = f.dir / "no_bias";
    REQUIRE_THROWS_WITH(make_drafter(o, *f.model, pool), Contains("tensor 'rnn_u.bias'") && Contains("missing"));
  }
  {
    ReferenceRedrafter wrong(f.ref.H * 2, f.ref.V, 1);
    wrong.write(f.dir / "wide");
    o.weights_dir = f.dir / "wide";
    REQUIRE_THROWS_WITH(make_drafter(o, *f.model, pool), Contains("hidden_size") && Contains("does not match"));
  }
  o.weights_dir = f.dir / "reference";
  o.beam_width = 0;
  REQUIRE_THROWS_WITH(make_drafter(o, *f.model, pool), Contains("beam_width"));
  o.beam_width = 2;
  o.kind = "medusa";
  REQUIRE_THROWS_WITH(make_drafter(o, *f.model, pool), Contains("holds a redrafter drafter (expected medusa)"));
  o.kind = "lookahead";
  REQUIRE_THROWS_WITH(make_drafter(o, *f.model, pool), Contains("unknown") && Contains("redrafter"));
  o.kind = "redrafter";
  o.weights_dir = f.dir / "nowhere";
  REQUIRE_THROWS_WITH(make_drafter(o, *f.model, pool), Contains("not a directory"));
}
