// RMSNorm and RoPE: the AVX2 builds give the references' bits on odd, tiny and model-sized
// shapes, in place and not; the references agree with a float64 formula; the one-call RoPE
// equals angles-then-rotation.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/fixtures/random_blocks.h"
#include "kernels/ops/rms_norm.h"
#include "kernels/ops/rope.h"
#include "kernels/runtime/cpu_features.h"

using namespace draftbench;

TEST_CASE("AVX2 RMSNorm is bit-identical to the reference", "[kernels][norm]") {
  if (!cpu_features().avx2) {
    WARN("no AVX2 on this CPU: only the reference runs");
    return;
  }
  std::mt19937 rng(21);
  for (int64_t n : {1, 3, 7, 8, 9, 17, 256, 640, 1153, 4096}) {
    const int64_t rows = 3;
    const auto x = random_activations(rows * n, rng, 3.0f);
    const auto w = random_activations(n, rng, 1.0f);
    for (const float* weight : {w.data(), static_cast<const float*>(nullptr)}) {
      std::vector<float> ref(x.size()), opt(x.size()), in_place = x;
      rms_norm_ref(x.data(), weight, ref.data(), rows, n, 1e-6f);
      rms_norm_avx2(x.data(), weight, opt.data(), rows, n, 1e-6f);
      rms_norm_avx2(in_place.data(), weight, in_place.data(), rows, n, 1e-6f);
      INFO("n = " << n << (weight ? " with" : " without") << " weight");
      REQUIRE(std::memcmp(ref.data(), opt.data(), x.size() * sizeof(float)) == 0);
      REQUIRE(std::memcmp(ref.data(), in_place.data(), x.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("RMSNorm agrees with the float64 formula", "[kernels][norm]") {
  std::mt19937 rng(22);
  const int64_t n = 640;
  const auto x = random_activations(n, rng, 3.0f);
  std::vector<float> out(n);
  rms_norm(x.data(), nullptr, out.data(), 1, n, 1e-6f);
  double ss = 0.0;
  for (float v : x) ss += static_cast<double>(v) * v;
  const double scale = 1.0 / std::sqrt(ss / n + 1e-6);
  // Float rounding of the mean, the square root, the division and the product: a few ulps.
  for (int64_t i = 0; i < n; ++i) REQUIRE(std::fabs(out[i] - x[i] * scale) <= 4e-7 * std::fabs(x[i] * scale) + 1e-30);
}

TEST_CASE("AVX2 RoPE rotations are bit-identical to the reference", "[kernels][rope]") {
  if (!cpu_features().avx2) {
    WARN("no AVX2 on this CPU: only the reference runs");
    return;
  }
  std::mt19937 rng(23);
  // Head sizes whose half is a multiple of 8 (vector path), of 4 only, and neither (fallback).
  for (int head_dim : {2, 6, 8, 16, 24, 64, 128, 256}) {
    for (int64_t pos : {int64_t{0}, int64_t{1}, int64_t{37}, int64_t{4095}}) {
      const int heads = 3;
      std::vector<float> cos(head_dim / 2), sin(head_dim / 2);
      rope_angles(pos, head_dim, 10000.0f, cos.data(), sin.data());
      const auto x = random_activations(heads * head_dim, rng);
      for (bool neox : {true, false}) {
        std::vector<float> ref = x, opt = x, one_call = x;
        (neox ? rope_neox_apply_ref : rope_norm_apply_ref)(ref.data(), heads, head_dim, cos.data(), sin.data());
        (neox ? rope_neox_apply_avx2 : rope_norm_apply_avx2)(opt.data(), heads, head_dim, cos.data(), sin.data());
        (neox ? rope_neox : rope_norm)(one_call.data(), heads, head_dim, pos, 10000.0f);
        INFO("head_dim " << head_dim << ", pos " << pos << (neox ? " neox" : " norm"));
        REQUIRE(std::memcmp(ref.data(), opt.data(), x.size() * sizeof(float)) == 0);
        REQUIRE(std::memcmp(ref.data(), one_call.data(), x.size() * sizeof(float)) == 0);
      }
    }
  }
}

TEST_CASE("RoPE rotates each pair by pos x base^(-2j/d)", "[kernels][rope]") {
  const int head_dim = 8;
  const int64_t pos = 5;
  std::vector<float> x(head_dim);
  for (int i = 0; i < head_dim; ++i) x[i] = static_cast<float>(i + 1);
  std::vector<float> neox = x, norm = x;
  rope_neox(neox.data(), 1, head_dim, pos, 10000.0f);
  rope_norm(norm.data(), 1, head_dim, pos, 10000.0f);
  for (int j = 0; j < head_dim / 2; ++j) {
    const double theta = pos * std::pow(10000.0, -2.0 * j / head_dim);
    const double c = std::cos(theta), s = std::sin(theta);
    CHECK(neox[j] == Approx(x[j] * c - x[j + 4] * s).margin(1e-5));
    CHECK(neox[j + 4] == Approx(x[j] * s + x[j + 4] * c).margin(1e-5));
    CHECK(norm[2 * j] == Approx(x[2 * j] * c - x[2 * j + 1] * s).margin(1e-5));
    CHECK(norm[2 * j + 1] == Approx(x[2 * j] * s + x[2 * j + 1] * c).margin(1e-5));
  }
}
