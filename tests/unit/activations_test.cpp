// The gated activations: the optimised kernels (activation_math.h, AVX2 and scalar builds)
// against each other and against the formula in float64, next to the textbook reference.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/fixtures/random_blocks.h"
#include "kernels/ops/activations.h"
#include "kernels/runtime/cpu_features.h"

using namespace draftbench;

namespace {

using GatedFn = void (*)(const float*, const float*, float*, int64_t);

// 0.5 x (1 + tanh(y)) written as x / (1 + exp(-2y)), the same function: in float64 too the
// tanh form cancels to exactly 0 once tanh(y) rounds to -1 (x < -6 or so).
double gelu_tanh_f64(double x) { return x / (1.0 + std::exp(-2.0 * 0.7978845608028654 * x * (1.0 + 0.044715 * x * x))); }
double silu_f64(double x) { return x / (1.0 + std::exp(-x)); }

// Gate values that reach every branch: zeros of both signs, subnormals, the exp clamp and
// beyond, infinities, NaN, and a dense sweep of the range where the activations bend.
std::vector<float> edge_gates() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> g = {0.0f,
                          -0.0f,
                          1e-40f,
                          -1e-40f,
                          1e-20f,
                          -1e-20f,
                          43.5f,
                          -43.5f,
                          87.0f,
                          -87.0f,
                          88.5f,
                          -88.5f,
                          1e4f,
                          -1e4f,
                          3e38f,
                          -3e38f,
                          inf,
                          -inf,
                          std::numeric_limits<float>::quiet_NaN()};
  for (float x = -12.0f; x <= 12.0f; x += 1.0f / 64) g.push_back(x);
  return g;
}

// How far got is from the float64 value, in units of the float spacing at that value.
double ulps(float got, double want) {
  const double spacing = std::ldexp(1.0, std::max(std::ilogb(static_cast<float>(want)), -126) - 23);
  return std::fabs(got - want) / spacing;
}

bool same_bits(float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) || (std::isnan(a) && std::isnan(b)); }

}  // namespace

TEST_CASE("the AVX2 activations give the scalar build's bits for every value and length", "[kernels][activations]") {
  if (!cpu_features().avx2) {
    WARN("no AVX2 on this CPU: nothing to compare the scalar build with");
    return;
  }
  std::mt19937 rng(17);
  // SiLU alone (the fused SiLU layer's epilogue) through the same signature, ignoring up.
  const GatedFn silu_fast = [](const float* g, const float*, float* o, int64_t n) { silu_avx2(g, o, n); };
  const GatedFn silu_plain = [](const float* g, const float*, float* o, int64_t n) { silu_scalar(g, o, n); };
  for (const int kind : {0, 1, 2}) {
    const GatedFn fast = kind == 0 ? geglu_tanh_avx2 : (kind == 1 ? swiglu_avx2 : silu_fast);
    const GatedFn scalar = kind == 0 ? geglu_tanh_scalar : (kind == 1 ? swiglu_scalar : silu_plain);
    std::vector<float> gate = edge_gates();
    const auto wide = random_activations(4099, rng, 8.0f);
    gate.insert(gate.end(), wide.begin(), wide.end());
    const int64_t total = static_cast<int64_t>(gate.size());
    const auto up = random_activations(total, rng);
    // Every length up to 17 and some long ones, at every offset within a vector: the tail
    // and the vector body must agree wherever a value falls.
    for (const int64_t n :
         {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{7}, int64_t{8}, int64_t{9}, int64_t{15}, int64_t{16}, int64_t{17}, int64_t{640}, total - 8}) {
      for (int64_t offset = 0; offset < 8 && offset + n <= total; ++offset) {
        std::vector<float> want(n), got(n + 1, -7.0f);
        scalar(gate.data() + offset, up.data() + offset, want.data(), n);
        fast(gate.data() + offset, up.data() + offset, got.data(), n);
        REQUIRE(got[n] == -7.0f);
        for (int64_t i = 0; i < n; ++i) {
          INFO("kind = " << kind << " (gelu, swiglu, silu), n = " << n << ", offset = " << offset << ", gate = " << gate[offset + i]);
          REQUIRE(same_bits(got[i], want[i]));
        }
      }
    }
  }
}

// The bound: exp is within about 2 ulp and the division adds half an ulp, so 8 ulp of the
// result for moderate arguments. On top comes exp's condition number: the argument
// t = -2y (GELU) or -x (SiLU) is itself rounded (y by a few ulp), and exp turns an absolute
// error e in t into a relative error e in the result, so in the negative tail, where
// gelu(x) ~ x exp(-2y), the bound grows as 4 |t| ulp: y takes five roundings and two rounded constants, up
// to about 4 ulp (x = -8.676: t = 60, 147 ulp measured;
// the textbook form returns 0 there). Below 1e-30 in magnitude an absolute 1e-30 applies.
TEST_CASE("the optimised activations are within 8 + 4|t| ulp of the float64 formula, the textbook reference is not", "[kernels][activations]") {
  std::mt19937 rng(23);
  for (const bool gelu : {true, false}) {
    std::vector<float> gate = edge_gates();
    const auto wide = random_activations(20000, rng, 6.0f);
    gate.insert(gate.end(), wide.begin(), wide.end());
    std::erase_if(gate, [](float x) { return !std::isfinite(x) || std::fabs(x) > 1e4f; });
    const int64_t n = static_cast<int64_t>(gate.size());
    const std::vector<float> ones(n, 1.0f);
    std::vector<float> fast(n), ref(n);
    (gelu ? geglu_tanh : swiglu)(gate.data(), ones.data(), fast.data(), n);
    (gelu ? geglu_tanh_ref : swiglu_ref)(gate.data(), ones.data(), ref.data(), n);
    double worst_fast = 0, worst_ref = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double want = gelu ? gelu_tanh_f64(gate[i]) : silu_f64(gate[i]);
      if (std::fabs(want) < 1e-30) {
        INFO("x = " << gate[i] << ", fast " << fast[i] << ", float64 " << want);
        REQUIRE(std::fabs(fast[i] - want) <= 1e-30);
        continue;
      }
      INFO("gelu = " << gelu << ", x = " << gate[i] << ": fast " << fast[i] << ", float64 " << want);
      const double x = gate[i], t = gelu ? 2.0 * 0.7978845608028654 * x * (1.0 + 0.044715 * x * x) : x;
      const double bound = 8.0 + 4.0 * std::fabs(t);
      REQUIRE(ulps(fast[i], want) <= bound);
      worst_fast = std::max(worst_fast, ulps(fast[i], want) / bound);
      worst_ref = std::max(worst_ref, ulps(ref[i], want) / bound);
    }
    WARN((gelu ? "geglu_tanh" : "swiglu") << ": worst error / bound " << worst_fast << " optimised, " << worst_ref << " textbook reference");
    // The textbook GELU loses its relative accuracy to cancellation in 1 + tanh(y) for
    // negative x; the sigmoid form does not. (SiLU's textbook form has no such cancellation.)
    if (gelu) CHECK(worst_ref > 100 * worst_fast);
  }
}

TEST_CASE("NaN stays NaN and the saturated ends come out right", "[kernels][activations]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> gate = {nan, inf, 1e4f, -1e4f, -100.0f}, up(gate.size(), 1.0f);
  for (const GatedFn fn : {GatedFn{geglu_tanh}, GatedFn{swiglu}}) {
    std::vector<float> out(gate.size());
    fn(gate.data(), up.data(), out.data(), static_cast<int64_t>(gate.size()));
    CHECK(std::isnan(out[0]));
    CHECK(out[1] == inf);
    CHECK(out[2] == 1e4f);
    CHECK(std::fabs(out[3]) < 1e-30f);
    CHECK(std::fabs(out[4]) < 1e-30f);
  }
}
