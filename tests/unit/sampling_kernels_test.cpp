// The sampling kernels: the AVX2 argmax and softmax weights are bit-identical to the
// references on odd, tiny and vocabulary-sized lengths (ties and the clamp included); the
// weights agree with libm's exp; top_k and top_mass give exactly the full sort's ids.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/fixtures/random_blocks.h"
#include "kernels/runtime/cpu_features.h"
#include "kernels/sampling/softmax.h"
#include "kernels/sampling/top_k.h"

using namespace draftbench;

namespace {

// Logits with repeated values (ties for the argmax and the order), a spread wide enough
// that some fall below the clamp at low temperature, and the maximum placed anywhere.
std::vector<float> logits_with_ties(int64_t n, std::mt19937& rng) {
  auto x = random_activations(n, rng, 8.0f);
  std::uniform_int_distribution<int64_t> at(0, n - 1);
  for (int64_t k = 0; k < n / 4; ++k) x[at(rng)] = x[at(rng)];
  if (n > 3) x[at(rng)] = x[at(rng)] = 40.0f;  // a tied maximum
  return x;
}

const int64_t kLengths[] = {1, 2, 7, 8, 9, 15, 16, 17, 63, 1000, 262144};

}  // namespace

TEST_CASE("AVX2 argmax and softmax weights are bit-identical to the references", "[sampling-kernels]") {
  if (!cpu_features().avx2) {
    WARN("no AVX2 on this CPU: only the reference runs");
    return;
  }
  std::mt19937 rng(5);
  for (int64_t n : kLengths) {
    for (int rep = 0; rep < 3; ++rep) {
      const auto x = logits_with_ties(n, rng);
      INFO("n = " << n << ", rep " << rep);
      REQUIRE(argmax_avx2(x.data(), n) == argmax_ref(x.data(), n));
      const float max = x[argmax_ref(x.data(), n)];
      for (float inv_t : {1.0f, 1.0f / 0.7f, 50.0f}) {
        std::vector<float> w_ref(n), w_opt(n);
        const double s_ref = softmax_exp_ref(x.data(), n, max, inv_t, w_ref.data());
        const double s_opt = softmax_exp_avx2(x.data(), n, max, inv_t, w_opt.data());
        REQUIRE(std::memcmp(w_ref.data(), w_opt.data(), n * sizeof(float)) == 0);
        REQUIRE(std::memcmp(&s_ref, &s_opt, sizeof s_ref) == 0);
      }
    }
  }
}

TEST_CASE("softmax weights match libm's exp and vanish below the clamp", "[sampling-kernels]") {
  std::mt19937 rng(6);
  const int64_t n = 4096;
  const auto x = logits_with_ties(n, rng);
  const float max = x[argmax(x.data(), n)];
  for (float inv_t : {1.0f, 4.0f}) {
    std::vector<float> w(n);
    const double sum = softmax_exp(x.data(), n, max, inv_t, w.data());
    double exact_sum = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const double t = (static_cast<double>(x[i]) - max) * inv_t;
      const double exact = t < -87.0 ? 0.0 : std::exp(t);
      exact_sum += exact;
      INFO("i = " << i << ", t = " << t);
      // The polynomial is within a few ulps; the argument's float rounding adds |t| ulps of
      // relative error at most (|t| <= 87), hence the bound of 1e-4 relative.
      if (t < -87.0) REQUIRE(w[i] == 0.0f);
      else REQUIRE(std::fabs(w[i] - exact) <= 1e-4 * exact);
    }
    REQUIRE(std::fabs(sum - exact_sum) <= 1e-4 * exact_sum);
    REQUIRE(w[argmax(x.data(), n)] == 1.0f);
  }
}

TEST_CASE("top_k and top_mass return exactly the full sort's ids", "[sampling-kernels]") {
  std::mt19937 rng(7);
  for (int64_t n : {1, 5, 64, 65, 1000, 50000}) {
    const auto x = logits_with_ties(n, rng);
    std::vector<float> w(n);
    const double sum = softmax_exp(x.data(), n, x[argmax(x.data(), n)], 1.0f, w.data());
    std::vector<int32_t> fast, ref;
    for (int64_t k : {int64_t{1}, int64_t{3}, int64_t{64}, int64_t{500}, n, n + 10}) {
      top_k(w.data(), n, k, fast);
      top_k_ref(w.data(), n, k, ref);
      INFO("n = " << n << ", k = " << k);
      REQUIRE(fast == ref);
    }
    for (double p : {0.0, 0.1, 0.5, 0.9, 0.999, 1.0, 1.5}) {
      top_mass(w.data(), n, p * sum, fast);
      top_mass_ref(w.data(), n, p * sum, ref);
      INFO("n = " << n << ", p = " << p);
      REQUIRE(fast == ref);
      REQUIRE(!ref.empty());
    }
  }
  // Equal weights: the order falls back to the index.
  const std::vector<float> flat(100, 0.5f);
  std::vector<int32_t> ids;
  top_k(flat.data(), 100, 5, ids);
  REQUIRE(ids == std::vector<int32_t>{0, 1, 2, 3, 4});
}
