// The device forward pass (engine/model/device_transformer.h) run through the emulated
// device kernels on tiny Llamas the test writes: float weights (the cuBLASLt path), its
// agreement with the CPU pass, its batch invariance and the device KV cache's commits,
// bit for bit. The quantised products are covered on the real Gemma (model tests).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/common/error.h"
#include "engine/model/device_transformer.h"
#include "engine/model/model.h"
#include "engine/model/transformer.h"
#include "tests/support/logit_compare.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;
using namespace draftbench::test;
using Catch::Matchers::Contains;

namespace {

const std::vector<int32_t> kTokens = {1, 17, 42, 99, 150, 7, 230, 64, 12, 301};

std::unique_ptr<Model> tiny_model(const TempDir& dir, GgmlType dtype) {
  const TinyLlama tiny = make_tiny_llama();
  write_hf_checkpoint(dtype == GgmlType::F32 ? tiny : rounded_to(tiny, dtype), dir.str(), HfWriteOptions{dtype});
  return Model::load(dir.str());
}

}  // namespace

TEST_CASE("emulated device forward agrees with the CPU forward on float weights", "[device]") {
  // F32: the same products in another summation order (cuBLAS stands in as dot_rows_ref),
  // and the CUDA attention's own order: agreement to float rounding. F16/BF16: the device
  // also rounds each product's activations to the weight's type, as cuBLAS needs.
  for (const auto& [dtype, tolerance] : {std::pair{GgmlType::F32, 1e-5}, std::pair{GgmlType::F16, 5e-3}, std::pair{GgmlType::BF16, 3e-2}}) {
    TempDir dir(std::string("device_tf_") + std::string(ggml_type_name(dtype)));
    const auto m = tiny_model(dir, dtype);
    ThreadPool pool(2);
    Transformer cpu(m->config(), m->weights(), pool);
    auto device = cuda::make_emulated_kernels();
    DeviceTransformer gpu(m->config(), m->weights(), *device);
    const auto want = chain_logits(cpu, m->config(), kTokens);
    const auto got = chain_logits(gpu, m->config(), kTokens);
    INFO(ggml_type_name(dtype) << ": relative difference " << relative_difference(got, want));
    CHECK(relative_difference(got, want) < tolerance);
    const int64_t V = m->config().n_vocab;
    for (size_t r = 0; r < kTokens.size(); ++r) {  // and so the same greedy choice everywhere
      const auto row = [&](const std::vector<float>& l) { return std::max_element(l.begin() + r * V, l.begin() + (r + 1) * V) - l.begin(); };
      CHECK(row(got) == row(want));
    }
  }
}

TEST_CASE("emulated device forward agrees with the CPU forward when products on the same rows mix weight types", "[device]") {
  // q Q8_0, k F16, v Q8_0; gate Q8_0, up BF16: the device prepares rows that several
  // products read once per type (quantised for q and v, rounded for k), and each product
  // must read its own preparation.
  TempDir dir("device_tf_mixed");
  write_llama_gguf(make_tiny_llama(), dir / "mixed.gguf", GgmlType::Q8_0, {{"self_attn.k_proj.weight", GgmlType::F16}, {"mlp.up_proj.weight", GgmlType::BF16}});
  const auto m = Model::load(dir / "mixed.gguf");
  REQUIRE(m->weights().layers[0].wk.type == GgmlType::F16);
  REQUIRE(m->weights().layers[0].w_up.type == GgmlType::BF16);
  ThreadPool pool(2);
  Transformer cpu(m->config(), m->weights(), pool);
  auto device = cuda::make_emulated_kernels();
  DeviceTransformer gpu(m->config(), m->weights(), *device);
  const auto want = chain_logits(cpu, m->config(), kTokens), got = chain_logits(gpu, m->config(), kTokens);
  INFO("relative difference " << relative_difference(got, want));
  CHECK(relative_difference(got, want) < 3e-2);  // the BF16 bound of the test above
  const int64_t V = m->config().n_vocab;
  for (size_t r = 0; r < kTokens.size(); ++r) {
    const auto row = [&](const std::vector<float>& l) { return std::max_element(l.begin() + r * V, l.begin() + (r + 1) * V) - l.begin(); };
    CHECK(row(got) == row(want));
  }
}

TEST_CASE("device forward is batch-invariant and its cache commits trees like the CPU's", "[device]") {
  TempDir dir("device_tf_invariance");
  const auto m = tiny_model(dir, GgmlType::F16);
  const ModelConfig& c = m->config();
  const int64_t V = c.n_vocab;
  auto device = cuda::make_emulated_kernels();
  DeviceTransformer tf(c, m->weights(), *device);
  const auto all = chain_logits(tf, c, kTokens);

  // One token at a time through the device cache: each step's logits are the batch's row.
  KvCache cache(c, 1, 32, device.get());
  for (size_t i = 0; i < kTokens.size(); ++i) {
    ForwardBatch b;
    b.sequences.push_back(SequenceInput{0, {kTokens[i]}, TokenTree::chain(1), {0}, {}});
    ForwardResult r;
    tf.forward(b, cache, r);
    cache.commit_prefix(0, 1);
    INFO("position " << i);
    REQUIRE(same_bits(r.logits_row(0), std::span<const float>(all.data() + i * V, V)));
  }

  // A tree whose accepted path is not its first nodes: commit moves K/V rows on the
  // device; the next token then sees exactly the chain of the accepted tokens.
  KvCache tree_cache(c, 1, 32, device.get());
  ForwardBatch b;
  const std::vector<int32_t> parents = {-1, 0, 0, 2, 1};
  b.sequences.push_back(SequenceInput{0, {kTokens[0], 5, kTokens[1], kTokens[2], 9}, TokenTree::from_parents(parents), {0, 1, 2, 3, 4}, {}});
  ForwardResult r;
  tf.forward(b, tree_cache, r);
  for (int node : {0, 2, 3})  // nodes on the path 0 -> 2 -> 3 are chain positions 0, 1, 2
    CHECK(same_bits(r.logits_row(node), std::span<const float>(all.data() + (node == 0 ? 0 : node - 1) * V, V)));
  const std::vector<int32_t> path = {0, 2, 3};
  tree_cache.commit(0, path);
  ForwardBatch next;
  next.sequences.push_back(SequenceInput{0, {kTokens[3]}, TokenTree::chain(1), {0}, {}});
  tf.forward(next, tree_cache, r);
  CHECK(same_bits(r.logits_row(0), std::span<const float>(all.data() + 3 * V, V)));
}

TEST_CASE("device forward refuses what it cannot run", "[device]") {
  TempDir dir("device_tf_refusals");
  const auto m = tiny_model(dir, GgmlType::F32);
  auto device = cuda::make_emulated_kernels();

  ModelWeights q4_0 = m->weights();
  q4_0.layers[1].w_up.type = GgmlType::Q4_0;  // no device product (and never read: refused first)
  REQUIRE_THROWS_WITH(DeviceTransformer(m->config(), q4_0, *device), Contains("blk.1.ffn_up") && Contains("Q4_0"));

  DeviceTransformer tf(m->config(), m->weights(), *device);
  KvCache cache(m->config(), 1, 32, device.get());
  ForwardBatch b;
  b.sequences.push_back(SequenceInput{0, {1, 2}, TokenTree::chain(2), {1}, {}, 1});
  ForwardResult r;
  REQUIRE_THROWS_WITH(tf.forward(b, cache, r), Contains("n_cached"));
}
