// The fused SiLU layer (kernels/matmul/linear_silu.h): bit-identical to its reference for
// one and two terms, with and without bias and residual (also in place), on weight types
// the drafters and models use, odd output counts that leave partial tiles, several thread
// counts; batch-invariant; and within float rounding of the unfused composition it replaces
// (two matmuls, the bias, libm's SiLU).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/fixtures/random_blocks.h"
#include "kernels/matmul/linear_silu.h"
#include "kernels/ops/activations.h"

using namespace draftbench;

namespace {

struct Layer {
  std::vector<std::vector<uint8_t>> weights;
  std::vector<std::vector<float>> inputs;
  std::vector<LinearTerm> terms;
  std::vector<float> bias, residual;
};

// n_in per term; all terms share n_out.
Layer random_layer(GgmlType type, std::initializer_list<int64_t> n_in, int64_t n_out, int64_t n, std::mt19937& rng) {
  Layer l;
  for (const int64_t k : n_in) {
    l.weights.push_back(random_rows(type, k, n_out, rng));
    l.inputs.push_back(random_activations(n * k, rng, 1.0f));
  }
  for (size_t k = 0; k < l.weights.size(); ++k) l.terms.push_back({WeightMatrix{type, *(n_in.begin() + k), n_out, l.weights[k].data()}, l.inputs[k].data()});
  l.bias = random_activations(n_out, rng, 0.5f);
  l.residual = random_activations(n * n_out, rng, 1.0f);
  return l;
}

std::vector<float> run_fused(LinearSiluArgs a, ThreadPool& pool) {
  std::vector<float> y(static_cast<size_t>(a.n * a.n_out()));
  a.y = y.data();
  std::vector<uint8_t> scratch(linear_silu_scratch_bytes(a.terms, a.n, pool.size()));
  linear_silu(a, pool, scratch);
  return y;
}

std::vector<float> run_ref(LinearSiluArgs a) {
  std::vector<float> y(static_cast<size_t>(a.n * a.n_out()));
  a.y = y.data();
  linear_silu_ref(a);
  return y;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

const GgmlType kTypes[] = {GgmlType::F16, GgmlType::F32, GgmlType::BF16, GgmlType::Q8_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K};

int64_t block_of(GgmlType type) { return std::max<int64_t>(32, ggml_type_info(type).block_size); }

}  // namespace

TEST_CASE("linear_silu is bit-identical to its reference", "[linear_silu]") {
  std::mt19937 rng(21);
  ThreadPool one(1), two(2), three(3);
  for (const GgmlType type : kTypes) {
    const int64_t b = block_of(type);
    for (const int64_t n_out : {1, 63, 130}) {
      for (const int64_t n : {1, 3, 9}) {
        // A recurrent step's two terms (different widths, as an input projection would
        // have) and a residual block's one.
        for (const bool two_terms : {false, true}) {
          Layer l = two_terms ? random_layer(type, {b * 2, b * 3}, n_out, n, rng) : random_layer(type, {b * 2}, n_out, n, rng);
          for (const int variant : {0, 1, 2}) {  // bare; bias; bias and residual
            LinearSiluArgs a{l.terms, variant >= 1 ? l.bias.data() : nullptr, variant == 2 ? l.residual.data() : nullptr, n, nullptr};
            const std::vector<float> ref = run_ref(a);
            INFO(ggml_type_name(type) << " n_out " << n_out << " n " << n << " terms " << l.terms.size() << " variant " << variant);
            for (ThreadPool* pool : {&one, &two, &three}) REQUIRE(same_bits(run_fused(a, *pool), ref));
          }
        }
      }
    }
  }
}

TEST_CASE("linear_silu takes its residual from y or from an input in place", "[linear_silu]") {
  std::mt19937 rng(22);
  ThreadPool two(2);
  const int64_t n = 5, d = 64;
  Layer l = random_layer(GgmlType::F16, {d}, d, n, rng);
  const LinearSiluArgs from_copy{l.terms, l.bias.data(), l.inputs[0].data(), n, nullptr};
  const std::vector<float> expected = run_ref(from_copy);
  // A draft head's block: x + SiLU(W x + b), the residual being the term's own input.
  REQUIRE(same_bits(run_fused(from_copy, two), expected));
  // The residual in y itself: y starts as a copy of x and is overwritten.
  std::vector<float> y = l.inputs[0];
  std::vector<uint8_t> scratch(linear_silu_scratch_bytes(l.terms, n, two.size()));
  linear_silu({l.terms, l.bias.data(), y.data(), n, y.data()}, two, scratch);
  REQUIRE(same_bits(y, expected));
  std::vector<float> y_ref = l.inputs[0];
  linear_silu_ref({l.terms, l.bias.data(), y_ref.data(), n, y_ref.data()});
  REQUIRE(same_bits(y_ref, expected));
}

TEST_CASE("linear_silu rows do not depend on the batch", "[linear_silu][invariance]") {
  std::mt19937 rng(23);
  ThreadPool two(2);
  for (const GgmlType type : {GgmlType::F16, GgmlType::Q8_0, GgmlType::Q4_K}) {
    const int64_t b = block_of(type), n = 11;
    Layer l = random_layer(type, {b * 2, b * 2}, 100, n, rng);
    const std::vector<float> batched = run_fused({l.terms, l.bias.data(), l.residual.data(), n, nullptr}, two);
    for (int64_t r = 0; r < n; ++r) {
      std::vector<LinearTerm> one_row = l.terms;
      for (LinearTerm& t : one_row) t.x += r * t.w.n_in;
      const std::vector<float> single = run_fused({one_row, l.bias.data(), l.residual.data() + r * 100, 1, nullptr}, two);
      INFO(ggml_type_name(type) << " row " << r);
      REQUIRE(std::memcmp(single.data(), batched.data() + r * 100, 100 * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("linear_silu agrees with the unfused layer it replaces", "[linear_silu]") {
  // matmul per term, + bias, libm SiLU: the same products, so the only differences are the
  // polynomial exp (about 2 ulp) and the order of the bias addition.
  std::mt19937 rng(24);
  ThreadPool two(2);
  const int64_t n = 4, d = 96;
  Layer l = random_layer(GgmlType::F16, {d, d}, d, n, rng);
  const std::vector<float> fused = run_fused({l.terms, l.bias.data(), nullptr, n, nullptr}, two);
  std::vector<float> a(n * d), b(n * d);
  std::vector<uint8_t> scratch(matmul_scratch_bytes(l.terms[0].w, n, 2));
  matmul(l.terms[0].w, l.inputs[0].data(), n, a.data(), two, scratch);
  matmul(l.terms[1].w, l.inputs[1].data(), n, b.data(), two, scratch);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t i = 0; i < d; ++i) {
      const float expected = silu_ref(a[r * d + i] + (b[r * d + i] + l.bias[i]));
      INFO("row " << r << " output " << i);
      REQUIRE(std::fabs(fused[r * d + i] - expected) <= 1e-5f * (1.0f + std::fabs(expected)));
    }
}
