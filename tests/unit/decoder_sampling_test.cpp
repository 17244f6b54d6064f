// End to end at temperature > 0: the Decoder with each drafter must sample exactly the
// target's distribution. On the tiny random Llama with the target filtered to its top 3
// tokens (temperature 1), the first three generated tokens have at most 27 outcomes whose
// exact probabilities come from 13 forward passes; 20,000 decodings per drafter are
// compared with them by Pearson's chi-square (alpha 1e-6, Wilson-Hilferty critical value).
// The verify rules are proven in isolation on enumerated toy models (verify_sampling_test.cpp);
// this checks their composition with real drafters, KV commits, batching and the
// per-request random keys. An oracle drafter that proposes the target's own top tokens
// (in a scrambled order, with zero-probability ones mixed in) makes acceptance common.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <numeric>

#include "engine/decoding/decoder.h"
#include "engine/drafters/make_drafter.h"
#include "engine/model/transformer.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;
using namespace draftbench::test;

namespace {

constexpr int kGenerated = 3;
constexpr int kTopK = 3;
constexpr size_t kBatch = 200;
#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
constexpr size_t kSamples = 2'000;  // sanitizer/debug builds check memory and logic, not power
#else
constexpr size_t kSamples = 20'000;
#endif

const SamplingParams kSampling{1.0f, kTopK, 1.0f};

std::vector<float> last_logits(const Model& m, Transformer& tf, const std::vector<int32_t>& tokens) {
  const auto n = static_cast<int32_t>(tokens.size());
  KvCache cache(m.config(), 1, n);
  ForwardBatch batch;
  batch.sequences.push_back(SequenceInput{0, tokens, TokenTree::chain(n), {n - 1}, {}});
  ForwardResult r;
  tf.forward(batch, cache, r);
  return r.logits;
}

// Token ids of the k largest logits, largest first.
std::vector<int32_t> top_tokens(const std::vector<float>& logits, size_t k) {
  std::vector<int32_t> ids(logits.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
  std::partial_sort(ids.begin(), ids.begin() + static_cast<ptrdiff_t>(k), ids.end(),
                    [&](int32_t a, int32_t b) { return logits[static_cast<size_t>(a)] > logits[static_cast<size_t>(b)]; });
  ids.resize(k);
  return ids;
}

// Proposes, below the first root, the target's top 5 tokens in the order of ranks 4, 1, 5,
// 2, 3 (ranks 4 and 5 have probability 0 after the top-3 filter), and below each of them
// the top 4 in the order 3, 1, 4, 2. Later steps propose nothing.
class OracleDrafter final : public Drafter {
 public:
  OracleDrafter(const Model& m, Transformer& tf, const std::vector<int32_t>& prompt) {
    for (int32_t root : top_tokens(last_logits(m, tf, prompt), kTopK)) {
      std::vector<int32_t> ctx = prompt;
      ctx.push_back(root);
      const auto children = top_tokens(last_logits(m, tf, ctx), 5);
      auto& tree = trees_[root];
      for (int rank : {3, 0, 4, 1, 2}) {
        std::vector<int32_t> ctx2 = ctx;
        ctx2.push_back(children[static_cast<size_t>(rank)]);
        const auto grandchildren = top_tokens(last_logits(m, tf, ctx2), 4);
        tree.push_back({children[static_cast<size_t>(rank)], grandchildren[2], grandchildren[0], grandchildren[3], grandchildren[1]});
      }
      prompt_length_ = prompt.size();
    }
  }
  std::string name() const override { return "oracle"; }
  int32_t max_tree_nodes() const override { return 1 + 5 * 5; }
  void reset(int) override {}
  void propose(const DraftContext& ctx, Draft& out) override {
    out.reset_to_root(ctx.root);
    if (ctx.tokens.size() != prompt_length_) return;
    for (const auto& branch : trees_.at(ctx.root)) {
      const int32_t child = out.tree.add(0, branch[0]);
      for (size_t g = 1; g < branch.size(); ++g) out.tree.add(child, branch[g]);
    }
  }

 private:
  std::map<int32_t, std::vector<std::vector<int32_t>>> trees_;
  size_t prompt_length_ = 0;
};

// Exact P(x1, x2, x3) under the filtered target, keyed by the three tokens.
std::map<std::vector<int32_t>, double> exact_distribution(const Model& m, Transformer& tf, const std::vector<int32_t>& prompt) {
  std::map<std::vector<int32_t>, double> out;
  DistributionScratch dist;
  std::function<void(std::vector<int32_t>&, std::vector<int32_t>&, double)> walk = [&](std::vector<int32_t>& ctx, std::vector<int32_t>& gen, double p) {
    if (gen.size() == kGenerated) {
      out[gen] = p;
      return;
    }
    target_distribution(last_logits(m, tf, ctx), kSampling, dist);
    const std::vector<TokenProb> here = dist.dist;
    for (const TokenProb& tp : here) {
      ctx.push_back(tp.token);
      gen.push_back(tp.token);
      walk(ctx, gen, p * tp.p);
      ctx.pop_back();
      gen.pop_back();
    }
  };
  std::vector<int32_t> ctx = prompt, gen;
  walk(ctx, gen, 1.0);
  return out;
}

struct SampleStats {
  double chi2 = 0, critical = 0;
  int64_t accepted = 0;
};

SampleStats sample_and_compare(const Model& m, Transformer& tf, Drafter& drafter, const std::vector<int32_t>& prompt,
                               const std::map<std::vector<int32_t>, double>& exact) {
  Decoder decoder(m, tf, drafter);
  DecodeOptions opt;
  opt.max_new_tokens = kGenerated;
  opt.ignore_eos = true;
  opt.sampling = kSampling;
  opt.seed = 99;
  std::map<std::vector<int32_t>, int64_t> counts;
  SampleStats s;
  const std::vector<std::vector<int32_t>> prompts(kBatch, prompt);
  for (size_t first = 0; first < kSamples; first += kBatch) {
    opt.first_request = first;
    for (const SequenceResult& r : decoder.generate(prompts, opt)) {
      ++counts[r.tokens];
      for (const StepRecord& step : r.steps) s.accepted += step.accepted;
    }
  }
  for (const auto& [seq, n] : counts) REQUIRE(exact.count(seq) == 1);  // nothing outside the filtered support
  for (const auto& [seq, p] : exact) {
    const double expected = p * static_cast<double>(kSamples);
    const double observed = counts.count(seq) ? static_cast<double>(counts.at(seq)) : 0.0;
    s.chi2 += (observed - expected) * (observed - expected) / expected;
  }
  const double df = static_cast<double>(exact.size()) - 1.0, z = 4.753;  // alpha = 1e-6
  s.critical = df * std::pow(1.0 - 2.0 / (9.0 * df) + z * std::sqrt(2.0 / (9.0 * df)), 3.0);
  return s;
}

// The tiny Llama of tests/support written to `dir` and loaded, one thread, the test prompt.
struct TinyTarget {
  explicit TinyTarget(const TempDir& dir)
      : model((write_llama_gguf(make_tiny_llama(), dir / "tiny.gguf"), Model::load(dir / "tiny.gguf"))),
        pool(1),
        tf(model->config(), model->weights(), pool),
        prompt(model->tokenizer().encode("the cat and the dog", true, false)) {}
  std::unique_ptr<Model> model;
  ThreadPool pool;
  Transformer tf;
  std::vector<int32_t> prompt;
};

// What lookups need: the prompt, its greedy continuation g1 g2 g3 and the prompt again, so
// that "dog" (then "dog g1", ...) finds g1 g2 g3 to propose.
std::vector<int32_t> repeated_prompt(const Model& m, Transformer& tf, const std::vector<int32_t>& prompt) {
  std::vector<int32_t> repeated = prompt;
  for (int i = 0; i < kGenerated; ++i) repeated.push_back(top_tokens(last_logits(m, tf, repeated), 1)[0]);
  repeated.insert(repeated.end(), prompt.begin(), prompt.end());
  return repeated;
}

// A cost model whose extra tree tokens and LM-head rows are nearly free.
std::shared_ptr<CostModel> nearly_free_rows() {
  auto cost = std::make_shared<CostModel>();
  for (int32_t n = 1; n <= 64; n *= 2) {
    cost->sizes.push_back(n);
    cost->forward_s.push_back(0.010 + 0.0001 * (n - 1));
    cost->head_s.push_back(0.005 + 0.0001 * (n - 1));
  }
  return cost;
}

}  // namespace

TEST_CASE("decoder sampling: every drafter leaves the target distribution of the first tokens unchanged", "[decoder][sampling]") {
  TempDir dir("decoder_sampling");
  TinyTarget target(dir);
  const Model& m = *target.model;
  ThreadPool& pool = target.pool;
  Transformer& tf = target.tf;
  const std::vector<int32_t>& prompt = target.prompt;
  const auto exact = exact_distribution(m, tf, prompt);
  REQUIRE(exact.size() == 27);

  {
    OracleDrafter oracle(m, tf, prompt);
    const SampleStats s = sample_and_compare(m, tf, oracle, prompt, exact);
    INFO("oracle: chi2 " << s.chi2 << " critical " << s.critical);
    CHECK(s.chi2 < s.critical);
    // The oracle's drafts are the target's own likely tokens: most first steps accept.
    CHECK(s.accepted > static_cast<int64_t>(kSamples));
  }
  {
    // Training-free lookups need repeats (repeated_prompt).
    const std::vector<int32_t> repeated = repeated_prompt(m, tf, prompt);
    DrafterOptions o;
    o.kind = "ngram";
    o.draft_tokens = 4;
    o.ngram_branches = 2;
    auto drafter = make_drafter(o, m, pool);
    const SampleStats s = sample_and_compare(m, tf, *drafter, repeated, exact_distribution(m, tf, repeated));
    INFO("ngram: chi2 " << s.chi2 << " critical " << s.critical << ", accepted drafts " << s.accepted);
    CHECK(s.chi2 < s.critical);
    CHECK(s.accepted > static_cast<int64_t>(kSamples) / 10);  // the test exercises acceptance
  }
  for (const std::string kind : {"redrafter", "medusa", "eagle"}) {
    RandomDrafterSpec spec;
    spec.kind = kind;
    spec.seed = 4;
    write_random_drafter(spec, m, dir / kind);
    DrafterOptions o;
    o.kind = kind;
    o.weights_dir = dir / kind;
    o.beam_width = 4;
    o.beam_length = 3;
    o.depth = 2;
    o.top_k = 3;
    o.total_tokens = 10;
    auto drafter = make_drafter(o, m, pool);
    const SampleStats s = sample_and_compare(m, tf, *drafter, prompt, exact);
    INFO(kind << ": chi2 " << s.chi2 << " critical " << s.critical << ", accepted drafts " << s.accepted);
    CHECK(s.chi2 < s.critical);
  }
}

TEST_CASE("decoder sampling: automatic sizing and the hybrids leave the target distribution unchanged", "[decoder][sampling]") {
  TempDir dir("decoder_sampling_sized");
  TinyTarget target(dir);
  const Model& m = *target.model;
  ThreadPool& pool = target.pool;
  Transformer& tf = target.tf;
  const std::vector<int32_t>& prompt = target.prompt;
  // As above: a prompt the lookup can draft from, so that its drafts are tried and taken.
  const std::vector<int32_t> repeated = repeated_prompt(m, tf, prompt);
  const auto exact = exact_distribution(m, tf, repeated);
  // Rows nearly free: the sizer keeps most of what is drafted, so verification sees trees.
  const auto cost = nearly_free_rows();
  for (const std::string kind : {"redrafter", "medusa", "eagle"}) {
    RandomDrafterSpec spec;
    spec.kind = kind;
    spec.seed = 5;
    write_random_drafter(spec, m, dir / kind);
    for (const std::string hybrid : {"", "+ngram"}) {
      DrafterOptions o;
      o.kind = kind + hybrid;
      o.weights_dir = dir / kind;
      o.sizing = "auto";
      o.cost = cost;
      o.beam_width = 4;
      o.beam_length = 3;
      o.depth = 2;
      o.top_k = 3;
      o.total_tokens = 10;
      auto drafter = make_drafter(o, m, pool);
      const SampleStats s = sample_and_compare(m, tf, *drafter, repeated, exact);
      INFO(o.kind << " auto: chi2 " << s.chi2 << " critical " << s.critical << ", accepted drafts " << s.accepted);
      CHECK(s.chi2 < s.critical);
      if (!hybrid.empty()) CHECK(s.accepted > static_cast<int64_t>(kSamples) / 10);  // the lookup's drafts are taken
    }
  }
}

namespace {

// Drafts, at temperature > 0, the tokens the target's own draws will be: at each depth the
// coupled pick of the target's logits there with that depth's uniform (DraftContext's key).
// Verification draws with the same uniforms, so every one of its drafts should be accepted.
class CoupledOracleDrafter final : public Drafter {
 public:
  CoupledOracleDrafter(const Model& m, Transformer& tf, int depth) : m_(m), tf_(tf), depth_(depth) {
    ids_.resize(static_cast<size_t>(m.config().n_vocab));
    std::iota(ids_.begin(), ids_.end(), 0);
  }
  std::string name() const override { return "coupled-oracle"; }
  int32_t max_tree_nodes() const override { return 1 + depth_; }
  void reset(int) override {}
  void propose(const DraftContext& ctx, Draft& out) override {
    out.reset_to_root(ctx.root);
    std::vector<int32_t> context(ctx.tokens.begin(), ctx.tokens.end());
    context.push_back(ctx.root);
    for (int d = 1, node = 0; d <= depth_; ++d) {
      RngKey key = ctx.first_draw;
      key.step += static_cast<uint64_t>(d - 1);
      const CoupledPick pick = coupled_pick(last_logits(m_, tf_, context), ids_, ids_, ctx.params, uniform(key), scratch_);
      node = out.tree.add(node, ids_[static_cast<size_t>(pick.index)]);
      context.push_back(ids_[static_cast<size_t>(pick.index)]);
    }
  }

 private:
  const Model& m_;
  Transformer& tf_;
  int depth_;
  std::vector<int32_t> ids_;
  CoupledScratch scratch_;
};

std::vector<SequenceResult> decode(const Model& m, Transformer& tf, Drafter& drafter, const std::vector<std::vector<int32_t>>& prompts, SamplingParams sampling,
                                   uint64_t seed) {
  Decoder decoder(m, tf, drafter);
  DecodeOptions opt;
  opt.max_new_tokens = 24;
  opt.ignore_eos = true;
  opt.sampling = sampling;
  opt.seed = seed;
  opt.first_request = 7;
  return decoder.generate(prompts, opt);
}

}  // namespace

TEST_CASE("decoder sampling: every drafter commits autoregressive sampling's tokens, bit for bit", "[decoder][sampling][lossless]") {
  TempDir dir("decoder_sampling_coupled");
  TinyTarget target(dir);
  const Model& m = *target.model;
  Transformer& tf = target.tf;
  const std::vector<std::vector<int32_t>> prompts = {target.prompt, repeated_prompt(m, tf, target.prompt), {1, 5, 9}};
  const auto cost = nearly_free_rows();
  for (const std::string kind : {"redrafter", "medusa", "eagle"}) {
    RandomDrafterSpec spec;
    spec.kind = kind;
    spec.seed = 6;
    write_random_drafter(spec, m, dir / kind);
  }
  const SamplingParams filtered{0.7f, 5, 0.9f};
  for (const SamplingParams sampling : {SamplingParams{1.0f, 0, 1.0f}, filtered}) {
    for (const uint64_t seed : {3u, 11u}) {
      AutoregressiveDrafter autoregressive;
      const auto baseline = decode(m, tf, autoregressive, prompts, sampling, seed);
      auto same_tokens = [&](Drafter& drafter, const std::string& what) {
        const auto results = decode(m, tf, drafter, prompts, sampling, seed);
        int64_t accepted = 0;
        for (size_t i = 0; i < prompts.size(); ++i) {
          INFO(what << ", T " << sampling.temperature << ", seed " << seed << ", prompt " << i);
          CHECK(results[i].tokens == baseline[i].tokens);
          for (const StepRecord& step : results[i].steps) accepted += step.accepted;
        }
        return accepted;
      };
      CoupledOracleDrafter oracle(m, tf, 3);
      // Every draft accepted: 24 tokens in 6 steps of 3 drafts and a bonus each, less the first.
      CHECK(same_tokens(oracle, "coupled oracle") == static_cast<int64_t>(prompts.size()) * 18);
      for (const std::string kind : {"ngram", "redrafter", "medusa", "eagle", "redrafter+ngram", "medusa+ngram", "eagle+ngram"}) {
        for (const std::string sizing : {"auto", "fixed"}) {
          if (kind.find('+') != std::string::npos && sizing == "fixed") continue;
          DrafterOptions o;
          o.kind = kind;
          if (kind != "ngram") o.weights_dir = dir / kind.substr(0, kind.find('+'));
          o.sizing = sizing;
          o.cost = cost;
          o.beam_width = 3;
          o.beam_length = 3;
          o.depth = 3;
          o.top_k = 3;
          o.total_tokens = 10;
          auto drafter = make_drafter(o, m, target.pool);
          same_tokens(*drafter, kind + " " + sizing);
        }
      }
    }
  }
}
