// EAGLE on the tiny random Llama: the transformer extensions it needs (incremental trees,
// given layer-0 inputs), both checkpoint layouts, the dynamic tree against a plain double
// re-implementation of the draft model and of EAGLE-2's expansion, the drafter's state
// along accepted paths, losslessness through the Decoder, and load errors.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>

#include "engine/common/error.h"
#include "engine/decoding/autoregressive.h"
#include "engine/decoding/decoder.h"
#include "engine/drafters/eagle/eagle.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/model.h"
#include "engine/model/safetensors_writer.h"
#include "engine/model/token_embedding.h"
#include "engine/model/transformer.h"
#include "tests/support/greedy_reference.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;
using namespace draftbench::test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

DrafterOptions eagle_options(const std::string& dir) {
  DrafterOptions options;
  options.kind = "eagle";
  options.weights_dir = dir;
  options.draft_weights = "file";  // parity with the float references below
  return options;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The tiny target, as GGUF (what Model::load gives), and its HF-named tensors.
struct Target {
  TempDir dir;
  TinyLlama tiny;
  std::unique_ptr<Model> model;
  explicit Target(const std::string& name, int64_t context = 256) : dir(name) {
    TinyLlamaShape shape;
    shape.context = context;
    tiny = make_tiny_llama(shape);
    write_llama_gguf(tiny, dir / "tiny.gguf");
    model = Model::load(dir / "tiny.gguf");
  }
};

// The weights of a reference-layout (EAGLE-1 config.json) checkpoint, HF names.
struct ReferenceEagle {
  int64_t hidden = 64, ff = 96, heads = 4, kv_heads = 2, head_dim = 16;
  double rms_eps = 1e-5, rope_theta = 10000.0;
  std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>> tensors;
  const std::vector<float>& at(const std::string& name) const { return tensors.at(name).second; }
};

ReferenceEagle make_reference_eagle(const TinyLlama& tiny, uint64_t seed) {
  ReferenceEagle r;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t H = r.hidden, QD = r.heads * r.head_dim, KD = r.kv_heads * r.head_dim, F = r.ff;
  auto add = [&](const std::string& name, std::vector<int64_t> shape, float mean, float scale) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = mean + scale * normal(rng);
    r.tensors[name] = {std::move(shape), std::move(v)};
  };
  add("fc.weight", {H, 2 * H}, 0, 0.15f);
  add("fc.bias", {H}, 0, 0.1f);
  add("layers.0.self_attn.q_proj.weight", {QD, H}, 0, 0.2f);
  add("layers.0.self_attn.k_proj.weight", {KD, H}, 0, 0.2f);
  add("layers.0.self_attn.v_proj.weight", {KD, H}, 0, 0.2f);
  add("layers.0.self_attn.o_proj.weight", {H, QD}, 0, 0.2f);
  add("layers.0.mlp.gate_proj.weight", {F, H}, 0, 0.2f);
  add("layers.0.mlp.up_proj.weight", {F, H}, 0, 0.2f);
  add("layers.0.mlp.down_proj.weight", {H, F}, 0, 0.2f);
  add("layers.0.post_attention_layernorm.weight", {H}, 1, 0.2f);
  const NamedTensor& embed = const_cast<TinyLlama&>(tiny).tensor("model.embed_tokens.weight");
  r.tensors["embed_tokens.weight"] = {embed.shape, embed.values};
  return r;
}

nlohmann::json reference_config(const ReferenceEagle& r, int64_t vocab) {
  return nlohmann::json{{"architectures", {"LlamaForCausalLM"}},
                        {"hidden_size", r.hidden},
                        {"intermediate_size", r.ff},
                        {"num_attention_heads", r.heads},
                        {"num_key_value_heads", r.kv_heads},
                        {"num_hidden_layers", 1},
                        {"rms_norm_eps", r.rms_eps},
                        {"rope_theta", r.rope_theta},
                        {"vocab_size", vocab},
                        {"bias", true}};
}

void write_reference_eagle(const ReferenceEagle& r, const nlohmann::json& config, const std::string& dir) {
  fs::create_directories(dir);
  SafetensorsWriter w;
  for (const auto& [name, t] : r.tensors) w.tensor_floats(name, GgmlType::F32, t.first, t.second);
  w.write(dir + "/model.safetensors");
  write_file(dir + "/config.json", config.dump(2));
}

// --- A plain double re-implementation of the reference draft model ------------------------

using Vec = std::vector<double>;

Vec matvec(const std::vector<float>& w, int64_t n_out, int64_t n_in, const Vec& x) {
  Vec y(static_cast<size_t>(n_out), 0.0);
  for (int64_t o = 0; o < n_out; ++o)
    for (int64_t i = 0; i < n_in; ++i) y[o] += static_cast<double>(w[o * n_in + i]) * x[i];
  return y;
}

// rotate_half RoPE (HF tensors): pairs (j, j + d/2).
void rope(Vec& x, int64_t n_heads, int64_t d, int64_t pos, double base) {
  for (int64_t h = 0; h < n_heads; ++h)
    for (int64_t j = 0; j < d / 2; ++j) {
      const double theta = static_cast<double>(pos) * std::pow(base, -2.0 * static_cast<double>(j) / static_cast<double>(d));
      double& a = x[h * d + j];
      double& b = x[h * d + j + d / 2];
      const double a0 = a, b0 = b;
      a = a0 * std::cos(theta) - b0 * std::sin(theta);
      b = a0 * std::sin(theta) + b0 * std::cos(theta);
    }
}

struct DraftOutput {
  Vec hidden;  // the last row's layer output (the predicted feature)
  Vec logp;    // the last row's log-softmax over the whole vocabulary
};

// The draft over pairs (token_i, feature_i) at positions 0..n-1, causal.
DraftOutput reference_draft(const ReferenceEagle& r, const TinyLlama& tiny, const std::vector<int32_t>& tokens, const std::vector<Vec>& features) {
  const int64_t H = r.hidden, D = r.head_dim, QD = r.heads * D, KD = r.kv_heads * D, F = r.ff, V = tiny.vocab();
  const auto& embed = const_cast<TinyLlama&>(tiny).tensor("model.embed_tokens.weight").values;
  const auto& head = const_cast<TinyLlama&>(tiny).tensor("lm_head.weight").values;
  const size_t n = tokens.size();
  std::vector<Vec> x(n), k(n), v(n), q(n);
  for (size_t i = 0; i < n; ++i) {
    Vec in(static_cast<size_t>(2 * H));
    for (int64_t e = 0; e < H; ++e) in[e] = embed[tokens[i] * H + e];  // embedding first
    for (int64_t e = 0; e < H; ++e) in[H + e] = features[i][e];
    x[i] = matvec(r.at("fc.weight"), H, 2 * H, in);
    for (int64_t e = 0; e < H; ++e) x[i][e] += r.at("fc.bias")[e];
    q[i] = matvec(r.at("layers.0.self_attn.q_proj.weight"), QD, H, x[i]);  // no input norm
    k[i] = matvec(r.at("layers.0.self_attn.k_proj.weight"), KD, H, x[i]);
    v[i] = matvec(r.at("layers.0.self_attn.v_proj.weight"), KD, H, x[i]);
    rope(q[i], r.heads, D, static_cast<int64_t>(i), r.rope_theta);
    rope(k[i], r.kv_heads, D, static_cast<int64_t>(i), r.rope_theta);
  }
  const size_t last = n - 1;
  Vec attn(static_cast<size_t>(QD), 0.0);
  for (int64_t h = 0; h < r.heads; ++h) {
    const int64_t kh = h / (r.heads / r.kv_heads);
    Vec s(n);
    double m = -1e300;
    for (size_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t e = 0; e < D; ++e) dot += q[last][h * D + e] * k[j][kh * D + e];
      s[j] = dot / std::sqrt(static_cast<double>(D));
      m = std::max(m, s[j]);
    }
    double sum = 0;
    for (double& e : s) sum += (e = std::exp(e - m));
    for (size_t j = 0; j < n; ++j)
      for (int64_t e = 0; e < D; ++e) attn[h * D + e] += s[j] / sum * v[j][kh * D + e];
  }
  Vec h = x[last];
  const Vec o = matvec(r.at("layers.0.self_attn.o_proj.weight"), H, QD, attn);
  for (int64_t e = 0; e < H; ++e) h[e] += o[e];
  double ss = 0;
  for (double e : h) ss += e * e;
  const double inv = 1.0 / std::sqrt(ss / static_cast<double>(H) + r.rms_eps);
  Vec hn(static_cast<size_t>(H));
  for (int64_t e = 0; e < H; ++e) hn[e] = h[e] * inv * r.at("layers.0.post_attention_layernorm.weight")[e];
  const Vec gate = matvec(r.at("layers.0.mlp.gate_proj.weight"), F, H, hn), up = matvec(r.at("layers.0.mlp.up_proj.weight"), F, H, hn);
  Vec act(static_cast<size_t>(F));
  for (int64_t e = 0; e < F; ++e) act[e] = gate[e] / (1.0 + std::exp(-gate[e])) * up[e];
  const Vec down = matvec(r.at("layers.0.mlp.down_proj.weight"), H, F, act);
  for (int64_t e = 0; e < H; ++e) h[e] += down[e];
  DraftOutput out{h, matvec(head, V, H, h)};  // no final norm, the target's LM head
  const double mx = *std::max_element(out.logp.begin(), out.logp.end());
  double z = 0;
  for (double l : out.logp) z += std::exp(l - mx);
  for (double& l : out.logp) l -= mx + std::log(z);
  return out;
}

std::vector<int32_t> top_k(const Vec& v, size_t k) {
  std::vector<int32_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int32_t a, int32_t b) { return v[a] > v[b]; });
  idx.resize(std::min(k, idx.size()));
  return idx;
}

std::span<const float> rows(const std::vector<float>& v, int64_t first, int64_t count, int64_t width) {
  return {v.data() + first * width, static_cast<size_t>(count * width)};
}

// Parents first, size bound, depth bound, root first.
void check_well_formed(const Draft& d, int32_t root, int max_nodes, int max_depth) {
  const DraftTree& t = d.tree;
  REQUIRE(t.size() >= 1);
  REQUIRE(t.size() <= max_nodes);
  CHECK(t.tokens[0] == root);
  CHECK(t.parents[0] == -1);
  std::vector<int> depth(static_cast<size_t>(t.size()), 0);
  for (int32_t i = 1; i < t.size(); ++i) {
    REQUIRE(t.parents[i] >= 0);
    REQUIRE(t.parents[i] < i);
    depth[i] = depth[t.parents[i]] + 1;
    CHECK(depth[i] <= max_depth);
  }
}

void check_lossless(const Model& m, Drafter& drafter) {
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  const auto prompts = tiny_prompts(m);
  DecodeOptions opt;
  opt.max_new_tokens = 24;
  opt.ignore_eos = true;
  std::vector<std::vector<int32_t>> truth;
  for (const auto& p : prompts) truth.push_back(greedy_reference(m, p, opt.max_new_tokens));
  Decoder decoder(m, tf, drafter);
  for (size_t batch : {size_t{1}, size_t{3}}) {
    const std::vector<std::vector<int32_t>> some(prompts.begin(), prompts.begin() + static_cast<std::ptrdiff_t>(batch));
    const auto results = decoder.generate(some, opt);
    for (size_t i = 0; i < batch; ++i) {
      INFO("batch " << batch << " prompt " << i);
      CHECK(results[i].tokens == truth[i]);
      for (const StepRecord& step : results[i].steps) CHECK(step.verified <= drafter.max_tree_nodes());
    }
  }
}

}  // namespace

TEST_CASE("eagle: a tree run in incremental calls (n_cached) equals one call, bit for bit", "[eagle]") {
  Target t("incremental");
  const Model& m = *t.model;
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  const std::vector<int32_t> prompt{1, 17, 42, 99, 7, 250};
  const std::vector<int32_t> parents{-1, 0, 0, 1, 1, 2, 3, 3, 5, 4, 8};
  const std::vector<int32_t> tokens{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const auto n = static_cast<int32_t>(parents.size());

  auto committed_cache = [&] {
    KvCache cache(m.config(), 2, 64);
    ForwardBatch pre;
    pre.sequences.push_back(SequenceInput{1, prompt, TokenTree::chain(static_cast<int32_t>(prompt.size())), {}, {}});
    ForwardResult r;
    tf.forward(pre, cache, r);
    cache.commit_prefix(1, static_cast<int64_t>(prompt.size()));
    return cache;
  };
  std::vector<int32_t> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), 0);

  KvCache whole_cache = committed_cache();
  ForwardBatch whole;
  whole.sequences.push_back(SequenceInput{1, tokens, TokenTree::from_parents(parents), all, all});
  ForwardResult expected;
  tf.forward(whole, whole_cache, expected);

  for (const std::vector<int32_t>& cuts : {std::vector<int32_t>{3, 11}, std::vector<int32_t>{1, 6, 11}, std::vector<int32_t>{5, 8, 11}}) {
    KvCache cache = committed_cache();
    std::vector<float> logits, hidden;
    int32_t done = 0;
    for (int32_t cut : cuts) {
      const std::vector<int32_t> prefix_parents(parents.begin(), parents.begin() + cut), prefix_tokens(tokens.begin(), tokens.begin() + cut);
      std::vector<int32_t> wanted(static_cast<size_t>(cut - done));
      std::iota(wanted.begin(), wanted.end(), done);
      ForwardBatch step;
      SequenceInput s{1, prefix_tokens, TokenTree::from_parents(prefix_parents), wanted, wanted};
      s.n_cached = done;
      step.sequences.push_back(std::move(s));
      ForwardResult r;
      tf.forward(step, cache, r);
      logits.insert(logits.end(), r.logits.begin(), r.logits.end());
      hidden.insert(hidden.end(), r.hidden.begin(), r.hidden.end());
      done = cut;
      CHECK(cache.committed(1) == static_cast<int64_t>(prompt.size()));
    }
    INFO("cuts " << cuts.size());
    CHECK(same_bits(logits, expected.logits));
    CHECK(same_bits(hidden, expected.hidden));
  }
}

TEST_CASE("eagle: given input embeddings equal to the token embeddings give the same result", "[eagle]") {
  Target t("embeddings");
  const Model& m = *t.model;
  ThreadPool pool(2);
  Transformer tf(m.config(), m.weights(), pool);
  const std::vector<int32_t> a{3, 14, 15, 92, 65}, b{35, 89, 79};
  auto run = [&](bool explicit_embeddings) {
    KvCache cache(m.config(), 2, 16);
    ForwardBatch batch;
    batch.sequences.push_back(SequenceInput{0, a, TokenTree::chain(5), {0, 4}, {1, 4}});
    batch.sequences.push_back(SequenceInput{1, b, TokenTree::from_parents(std::vector<int32_t>{-1, 0, 0}), {2}, {0, 1, 2}});
    std::vector<float> embeddings(static_cast<size_t>(8 * m.config().n_embd));
    embed_tokens(m.config(), m.weights(), a, embeddings.data());
    embed_tokens(m.config(), m.weights(), b, embeddings.data() + 5 * m.config().n_embd);
    if (explicit_embeddings) batch.input_embeddings = embeddings;
    ForwardResult r;
    tf.forward(batch, cache, r);
    return r;
  };
  const ForwardResult plain = run(false), given = run(true);
  CHECK(same_bits(plain.logits, given.logits));
  CHECK(same_bits(plain.hidden, given.hidden));
}

TEST_CASE("eagle: the dynamic tree matches a double re-implementation of the draft model and of EAGLE-2", "[eagle]") {
  Target t("reference_tree");
  const Model& m = *t.model;
  const ReferenceEagle ref = make_reference_eagle(t.tiny, 7);
  write_reference_eagle(ref, reference_config(ref, t.tiny.vocab()), t.dir / "eagle");
  ThreadPool pool(2);
  DrafterOptions options = eagle_options(t.dir / "eagle");
  options.depth = 2;
  options.top_k = 4;
  options.total_tokens = 60;  // more than the 4 + 2 * 16 candidates: every one is in the tree
  const auto drafter = make_drafter(options, m, pool);
  REQUIRE(drafter->wants_prompt_hidden());
  REQUIRE(drafter->max_tree_nodes() == 60);

  const int64_t E = m.config().n_embd;
  const std::vector<int32_t> prompt = m.tokenizer().encode("the cat sat on the mat", true, false);
  const auto P = static_cast<int64_t>(prompt.size());
  const std::vector<float> hidden = target_hidden_states(m, prompt);
  const int32_t root = 123;  // any token will do: the drafter takes what it is given
  drafter->reset(1);
  drafter->begin(0, prompt, hidden);
  Draft draft;
  drafter->propose(DraftContext{0, prompt, root, rows(hidden, P - 1, 1, E)}, draft);
  check_well_formed(draft, root, 60, 3);

  // Pairs (f_i, x_{i+1}), i = 0..P-1, with x_P = root.
  std::vector<int32_t> pair_tokens(prompt.begin() + 1, prompt.end());
  pair_tokens.push_back(root);
  std::vector<Vec> pair_features;
  for (int64_t i = 0; i < P; ++i) pair_features.emplace_back(hidden.begin() + i * E, hidden.begin() + (i + 1) * E);
  // A draft path's distribution: each node's input is (its parent's predicted feature, token).
  auto path_logp = [&](const std::vector<int32_t>& path) {
    std::vector<int32_t> tokens = pair_tokens;
    std::vector<Vec> features = pair_features;
    DraftOutput out = reference_draft(ref, t.tiny, tokens, features);
    for (int32_t token : path) {
      tokens.push_back(token);
      features.push_back(out.hidden);
      out = reference_draft(ref, t.tiny, tokens, features);
    }
    return out.logp;
  };

  // EAGLE-2 expansion, written out plainly.
  struct Node {
    int32_t token, parent;
    double score;
  };
  std::vector<Node> nodes;
  std::vector<int32_t> frontier;
  const Vec root_logp = path_logp({});
  for (int32_t tok : top_k(root_logp, 4)) {
    frontier.push_back(static_cast<int32_t>(nodes.size()));
    nodes.push_back({tok, -1, root_logp[tok]});
  }
  auto path_of = [&](int32_t node) {
    std::vector<int32_t> path;
    for (; node >= 0; node = nodes[node].parent) path.insert(path.begin(), nodes[node].token);
    return path;
  };
  for (int round = 0; round < 2; ++round) {
    const auto first = static_cast<int32_t>(nodes.size());
    for (int32_t f : frontier) {
      const Vec logp = path_logp(path_of(f));
      for (int32_t tok : top_k(logp, 4)) nodes.push_back({tok, f, nodes[f].score + logp[tok]});
    }
    Vec scores;
    for (size_t i = first; i < nodes.size(); ++i) scores.push_back(nodes[i].score);
    frontier.clear();
    for (int32_t i : top_k(scores, 4)) frontier.push_back(first + i);
  }

  REQUIRE(draft.tree.size() == static_cast<int32_t>(nodes.size()) + 1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    INFO("node " << i + 1);
    CHECK(draft.tree.tokens[i + 1] == nodes[i].token);
    CHECK(draft.tree.parents[i + 1] == nodes[i].parent + 1);
  }
}

TEST_CASE("eagle: a static choice tree takes each node's rank from the draft distribution at its parent", "[eagle]") {
  Target t("static_tree");
  const Model& m = *t.model;
  const ReferenceEagle ref = make_reference_eagle(t.tiny, 5);
  write_reference_eagle(ref, reference_config(ref, t.tiny.vocab()), t.dir / "eagle");
  const std::vector<std::vector<int32_t>> paths = {{0}, {1}, {2}, {0, 0}, {0, 1}, {1, 0}, {0, 0, 0}, {0, 0, 3}, {1, 0, 0}};
  write_file(t.dir / "tree.json", nlohmann::json{{"choices", paths}}.dump());
  ThreadPool pool(2);
  DrafterOptions options = eagle_options(t.dir / "eagle");
  options.eagle_static_tree = true;
  options.tree_file = t.dir / "tree.json";
  const auto drafter = make_drafter(options, m, pool);
  REQUIRE(drafter->max_tree_nodes() == 10);

  const int64_t E = m.config().n_embd;
  const std::vector<int32_t> prompt = m.tokenizer().encode("a static tree", true, false);
  const auto P = static_cast<int64_t>(prompt.size());
  const std::vector<float> hidden = target_hidden_states(m, prompt);
  const int32_t root = 77;
  drafter->reset(1);
  drafter->begin(0, prompt, hidden);
  Draft draft;
  drafter->propose(DraftContext{0, prompt, root, rows(hidden, P - 1, 1, E)}, draft);
  REQUIRE(draft.tree.size() == 10);

  std::vector<int32_t> pair_tokens(prompt.begin() + 1, prompt.end());
  pair_tokens.push_back(root);
  std::vector<Vec> pair_features;
  for (int64_t i = 0; i < P; ++i) pair_features.emplace_back(hidden.begin() + i * E, hidden.begin() + (i + 1) * E);
  // Node path by path (the file's order is already length-then-lexicographic).
  std::map<std::vector<int32_t>, std::pair<int32_t, std::vector<int32_t>>> node_of;  // ranks -> (node, tokens)
  node_of[{}] = {0, {}};
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::vector<int32_t> parent_ranks(paths[i].begin(), paths[i].end() - 1);
    const auto& [parent_node, parent_tokens] = node_of.at(parent_ranks);
    std::vector<int32_t> tokens = pair_tokens;
    std::vector<Vec> features = pair_features;
    DraftOutput out = reference_draft(ref, t.tiny, tokens, features);
    for (int32_t token : parent_tokens) {
      tokens.push_back(token);
      features.push_back(out.hidden);
      out = reference_draft(ref, t.tiny, tokens, features);
    }
    const int32_t token = top_k(out.logp, static_cast<size_t>(paths[i].back()) + 1).back();
    INFO("path " << i);
    CHECK(draft.tree.parents[i + 1] == parent_node);
    CHECK(draft.tree.tokens[i + 1] == token);
    std::vector<int32_t> path_tokens = parent_tokens;
    path_tokens.push_back(token);
    node_of[paths[i]] = {static_cast<int32_t>(i + 1), path_tokens};
  }
  check_lossless(m, *drafter);

  // A rank the draft vocabulary cannot hold.
  write_file(t.dir / "deep.json", nlohmann::json{{"choices", {{0}, {400}}}}.dump());
  options.tree_file = t.dir / "deep.json";
  REQUIRE_THROWS_WITH(make_drafter(options, m, pool), Contains("deep.json") && Contains("rank 400"));
}

TEST_CASE("eagle: accepting a path leaves the drafter where a fresh start from that context would be", "[eagle]") {
  // Long enough that the draft cache grows (it starts at 256 + scratch slots).
  Target t("accept", 1024);
  const Model& m = *t.model;
  // Weights large enough that the tree reacts to every feature (untrained N(0, 0.02) ones
  // hardly do).
  const ReferenceEagle ref = make_reference_eagle(t.tiny, 3);
  write_reference_eagle(ref, reference_config(ref, t.tiny.vocab()), t.dir / "eagle");
  ThreadPool pool(2);
  DrafterOptions options;
  options.kind = "eagle";
  options.weights_dir = t.dir / "eagle";
  const int64_t E = m.config().n_embd;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> any(3, static_cast<int32_t>(m.config().n_vocab) - 1);
  std::vector<int32_t> text(290);
  for (int32_t& tok : text) tok = any(rng);
  const std::vector<float> hidden = target_hidden_states(m, text);
  const int64_t P = 270;

  // Drafter A: prompt text[0, P), then accepted paths of 4 and 2 nodes.
  const auto a = make_drafter(options, m, pool);
  Draft draft;
  a->reset(2);
  a->begin(1, std::span<const int32_t>(text).first(P), rows(hidden, 0, P, E));
  int64_t at = P;  // text[at] is the root
  for (int64_t n_path : {4, 2}) {
    a->propose(DraftContext{1, std::span<const int32_t>(text).first(at), text[at], rows(hidden, at - 1, 1, E)}, draft);
    std::vector<int32_t> nodes(static_cast<size_t>(n_path));
    std::iota(nodes.begin(), nodes.end(), 0);
    const std::vector<int32_t> path(text.begin() + at, text.begin() + at + n_path);
    a->accept(1, AcceptedPath{nodes, path, rows(hidden, at, n_path, E), text[at + n_path]});
    at += n_path;
  }
  Draft from_a, from_b;
  a->propose(DraftContext{1, std::span<const int32_t>(text).first(at), text[at], rows(hidden, at - 1, 1, E)}, from_a);

  // Drafter B: the whole context as its prompt.
  const auto b = make_drafter(options, m, pool);
  b->reset(1);
  b->begin(0, std::span<const int32_t>(text).first(at), rows(hidden, 0, at, E));
  b->propose(DraftContext{0, std::span<const int32_t>(text).first(at), text[at], rows(hidden, at - 1, 1, E)}, from_b);

  check_well_formed(from_a, text[at], 60, 6);
  CHECK(from_a.tree.size() == 60);
  CHECK(from_a.tree.tokens == from_b.tree.tokens);
  CHECK(from_a.tree.parents == from_b.tree.parents);
}

TEST_CASE("eagle: q8_0 draft weights stay near the file's, and a capped vocabulary drafts only its tokens", "[eagle]") {
  Target t("requantized");
  const Model& m = *t.model;
  const ReferenceEagle ref = make_reference_eagle(t.tiny, 9);
  write_reference_eagle(ref, reference_config(ref, t.tiny.vocab()), t.dir / "eagle");
  ThreadPool pool(2);
  const int64_t E = m.config().n_embd;
  const std::vector<int32_t> prompt = m.tokenizer().encode("the cat sat", true, false);
  const auto P = static_cast<int64_t>(prompt.size());
  const std::vector<float> hidden = target_hidden_states(m, prompt);
  auto root_log_probs = [&](const DrafterOptions& options, Draft& draft) {
    DrafterCheckpoint checkpoint(options.weights_dir);
    const auto drafter = make_eagle_drafter(checkpoint, options, m, pool);
    drafter->reset(1);
    drafter->begin(0, prompt, hidden);
    drafter->propose(DraftContext{0, prompt, 77, rows(hidden, P - 1, 1, E)}, draft);
    const auto* eagle = dynamic_cast<const EagleDrafter*>(drafter.get());
    REQUIRE(eagle != nullptr);
    return std::vector<float>(eagle->root_log_probs().begin(), eagle->root_log_probs().end());
  };

  DrafterOptions options = eagle_options(t.dir / "eagle");
  Draft file_draft, q8_draft;
  const std::vector<float> file = root_log_probs(options, file_draft);
  options.draft_weights = "q8_0";
  const std::vector<float> q8 = root_log_probs(options, q8_draft);
  REQUIRE(file.size() == q8.size());
  // The distributions, not the log-probabilities: far in the tail of these random weights'
  // sharp distributions, Q8_0's rounding moves a log-probability of -60 by a few tenths.
  // (These weights give a KL divergence of about 0.05; broken codes or scales give far more.)
  double worst = 0, kl = 0;
  for (size_t i = 0; i < file.size(); ++i) {
    worst = std::max(worst, std::fabs(std::exp(static_cast<double>(file[i])) - std::exp(static_cast<double>(q8[i]))));
    kl += std::exp(static_cast<double>(file[i])) * (static_cast<double>(file[i]) - q8[i]);
  }
  UNSCOPED_INFO("largest probability difference " << worst << " KL " << kl);
  CHECK(worst > 0);  // requantised: the products are not the float ones
  CHECK(kl < 0.2);
  check_well_formed(q8_draft, 77, 60, 6);

  // The first 5 ids of the (whole, in order) vocabulary, then the stop ids beyond them.
  options.draft_vocab = 5;
  Draft capped;
  const std::vector<float> capped_logp = root_log_probs(options, capped);
  std::vector<int32_t> allowed = {0, 1, 2, 3, 4};
  for (int32_t id : m.tokenizer().stop_ids())
    if (id >= 5) allowed.push_back(id);
  CHECK(capped_logp.size() == allowed.size());
  // The cap sets the drafter's propose times apart (their cache entry), through
  // load_drafter_weights' wrapper too; the whole vocabulary does not.
  CHECK(load_drafter_weights(options, m, pool)->cost_variant() == fmt::format("draft_vocab={}", allowed.size()));
  options.draft_vocab = 0;
  CHECK(load_drafter_weights(options, m, pool)->cost_variant().empty());
  for (int32_t v = 1; v < capped.tree.size(); ++v) {
    INFO("node " << v);
    CHECK(std::find(allowed.begin(), allowed.end(), capped.tree.tokens[static_cast<size_t>(v)]) != allowed.end());
  }
}

TEST_CASE("eagle: capped_draft_vocab keeps the first ids, then the stop ids beyond them", "[eagle]") {
  const std::vector<int32_t> vocab = {10, 11, 12, 1, 13, 2};
  CHECK(capped_draft_vocab(vocab, 2, std::vector<int32_t>{1, 2}) == std::vector<int32_t>{10, 11, 1, 2});
  CHECK(capped_draft_vocab(vocab, 4, std::vector<int32_t>{1, 2}) == std::vector<int32_t>{10, 11, 12, 1, 2});
  CHECK(capped_draft_vocab(vocab, 0, std::vector<int32_t>{1}) == vocab);
  CHECK(capped_draft_vocab(vocab, 6, std::vector<int32_t>{1}) == vocab);
  CHECK(capped_draft_vocab(vocab, 99, {}) == vocab);
}

TEST_CASE("eagle: greedy decoding with EAGLE drafts equals autoregressive decoding", "[eagle]") {
  Target t("lossless");
  const Model& m = *t.model;
  ThreadPool pool(2);
  SECTION("reference layout (config.json), default tree") {
    const ReferenceEagle ref = make_reference_eagle(t.tiny, 11);
    write_reference_eagle(ref, reference_config(ref, t.tiny.vocab()), t.dir / "reference");
    const auto drafter = make_drafter(eagle_options(t.dir / "reference"), m, pool);
    check_lossless(m, *drafter);
  }
  SECTION("native layout from write_random_eagle, reduced draft vocabulary, small tree") {
    write_random_drafter(RandomDrafterSpec{"eagle", 100, 4}, m, t.dir / "native");
    DrafterOptions options = eagle_options(t.dir / "native");
    options.depth = 3;
    options.top_k = 3;
    options.total_tokens = 8;
    const auto drafter = make_drafter(options, m, pool);
    REQUIRE(drafter->max_tree_nodes() == 8);
    check_lossless(m, *drafter);
  }
}

TEST_CASE("eagle: broken checkpoints and options give one-line errors", "[eagle][errors]") {
  Target t("errors");
  const Model& m = *t.model;
  ThreadPool pool(2);
  const ReferenceEagle good = make_reference_eagle(t.tiny, 1);
  const nlohmann::json config = reference_config(good, t.tiny.vocab());
  auto error = [&](const ReferenceEagle& r, const nlohmann::json& c, DrafterOptions options = {}) {
    const std::string dir = t.dir / ("case" + std::to_string(rand()));
    write_reference_eagle(r, c, dir);
    options.kind = "eagle";
    options.weights_dir = dir;
    try {
      make_drafter(options, m, pool);
    } catch (const InputError& e) {
      const std::string message = e.what();
      CHECK(message.find('\n') == std::string::npos);
      return message;
    }
    return std::string();
  };
  CHECK(error(good, config).empty());

  ReferenceEagle bad_fc = good;
  bad_fc.tensors["fc.weight"].first = {64, 64};
  bad_fc.tensors["fc.weight"].second.resize(64 * 64);
  CHECK_THAT(error(bad_fc, config), Contains("tensor 'fc.weight'") && Contains("shape [64, 64]") && Contains("[64, 128]"));

  ReferenceEagle missing = good;
  missing.tensors.erase("layers.0.mlp.down_proj.weight");
  CHECK_THAT(error(missing, config), Contains("tensor 'layers.0.mlp.down_proj.weight'") && Contains("missing"));

  ReferenceEagle bad_embed = good;
  bad_embed.tensors["embed_tokens.weight"].first = {10, 64};
  bad_embed.tensors["embed_tokens.weight"].second.resize(640);
  CHECK_THAT(error(bad_embed, config), Contains("embed_tokens.weight") && Contains("shape [10, 64]"));

  ReferenceEagle extra = good;
  extra.tensors["layers.0.input_layernorm.weight"] = {{64}, std::vector<float>(64, 1.0f)};
  CHECK_THAT(error(extra, config), Contains("layers.0.input_layernorm.weight") && Contains("unexpected"));

  nlohmann::json wide = config;
  wide["hidden_size"] = 128;
  CHECK_THAT(error(good, wide), Contains("config.json") && Contains("hidden_size") && Contains("target's hidden size 64"));

  nlohmann::json no_bias = config;
  no_bias["bias"] = false;  // fc.bias is then an unexpected tensor
  CHECK_THAT(error(good, no_bias), Contains("fc.bias") && Contains("unexpected"));

  DrafterOptions zero_depth;
  zero_depth.depth = 0;
  CHECK_THAT(error(good, config, zero_depth), Contains("option 'depth' (--depth): expected an integer in [1, 64], got 0"));

  // Through the public entry point, as the CLI calls it.
  const std::string dir = t.dir / "missing_fc";
  ReferenceEagle no_fc_bias = good;
  no_fc_bias.tensors.erase("fc.bias");
  write_reference_eagle(no_fc_bias, config, dir);
  REQUIRE_THROWS_WITH(make_drafter(eagle_options(dir), m, pool), Contains("tensor 'fc.bias'") && Contains("missing"));
}
