// The fused LM-head argmax on the real model's head (262,144 x 640, Q8_0): for hidden
// states of a real prompt and for random ones, Transformer::argmax_from_hidden equals the
// argmax of logits_from_hidden's row bit for bit, a row's id is the same alone, in a batch
// and on one or two threads, and the plain reference agrees.
#include <catch2/catch.hpp>

#include <random>
#include <span>
#include <vector>

#include "engine/decoding/sampling.h"
#include "engine/model/transformer.h"
#include "kernels/matmul/matmul_argmax.h"
#include "tests/support/default_model.h"
#include "tests/support/greedy_reference.h"

using namespace draftbench;
using draftbench::test::default_model;

namespace {

std::vector<int32_t> ids_of_logit_rows(Transformer& tf, const std::vector<float>& hidden, int64_t n, int64_t n_embd, int64_t n_vocab) {
  std::vector<float> row(static_cast<size_t>(n_vocab));
  std::vector<int32_t> ids;
  for (int64_t r = 0; r < n; ++r) {
    tf.logits_from_hidden(hidden.data() + r * n_embd, 1, row.data());
    ids.push_back(argmax(std::span<const float>(row)));
  }
  return ids;
}

}  // namespace

TEST_CASE("real model: the fused LM-head argmax is the argmax of the logit row", "[model][lm_head_argmax]") {
  const Model& m = default_model();
  const int64_t E = m.config().n_embd, V = m.config().n_vocab;
  ThreadPool one(1), two(2);
  Transformer tf(m.config(), m.weights(), two), tf_one(m.config(), m.weights(), one);

  // The final-norm hidden state at every position of a real prompt, and random states of
  // the same scale (rows of N(0, 1): the final norm's outputs are of that order).
  const auto prompt = m.tokenizer().encode("The lighthouse keeper wrote to the town council about the light", true, false);
  const std::vector<float> real = test::target_hidden_states(m, prompt);
  const std::vector<float> random = [E] {
    std::mt19937 rng(51);
    std::normal_distribution<float> normal;
    std::vector<float> values(static_cast<size_t>(12 * E));
    for (float& v : values) v = normal(rng);
    return values;
  }();

  for (const std::vector<float>* hidden : {&real, &random}) {
    const int64_t n = static_cast<int64_t>(hidden->size()) / E;
    INFO((hidden == &real ? "prompt hidden states, " : "random hidden states, ") << n << " rows, soft cap " << m.config().final_logit_softcap);
    const std::vector<int32_t> expected = ids_of_logit_rows(tf, *hidden, n, E, V);
    std::vector<int32_t> batched(static_cast<size_t>(n)), batched_one_thread(static_cast<size_t>(n));
    tf.argmax_from_hidden(hidden->data(), n, batched.data());
    tf_one.argmax_from_hidden(hidden->data(), n, batched_one_thread.data());
    REQUIRE(batched == expected);
    REQUIRE(batched_one_thread == expected);
    for (int64_t r = 0; r < n; ++r) {
      int32_t alone = -1;
      tf.argmax_from_hidden(hidden->data() + r * E, 1, &alone);
      REQUIRE(alone == expected[static_cast<size_t>(r)]);
    }
    // The plain reference (scalar products: about a second a row) on the first two rows.
    std::vector<int32_t> reference(2);
    matmul_argmax_ref(m.weights().output, hidden->data(), 2, m.config().final_logit_softcap, reference.data());
    REQUIRE(reference == std::vector<int32_t>(expected.begin(), expected.begin() + 2));
  }
}
