// Float-weight products (F32, F16, BF16): every build (AVX2, AVX-512, AVX-512 BF16) is
// bit-identical to the reference, single row, indexed and batched, at every length's tail
// and batch size; BF16 rows also with values outside the AVX2 build's exact range (its
// fallback) and with sums that cancel to tiny values (the flush); F32/F16 rows also with
// weights of any finite bit pattern and activations over many octaves. The BF16 activation
// rounding of every build is the reference's on adversarial inputs.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/fixtures/random_blocks.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/cpu_features.h"

using namespace draftbench;

namespace {

bool have_avx512() { return cpu_features().avx512vnni && cpu_features().avx512bw && cpu_features().avx512vl && cpu_features().avx2; }
bool have_avx512bf16() { return have_avx512() && cpu_features().avx512bf16; }

uint16_t bf16_bits(float v) { return fp32_to_bf16_rne(v); }

// BF16 weight rows with values that the AVX2 build's f32 products cannot take exactly:
// denormals, tiny and huge values, so that its reference fallback runs; and rows whose
// partial sums cancel to below 2^-126 (flushed), with products near 2^-126.
void add_adversarial_bf16(std::vector<uint8_t>& w, int64_t n, int64_t rows, std::mt19937& rng) {
  auto* h = reinterpret_cast<uint16_t*>(w.data());
  std::uniform_int_distribution<int64_t> at(0, n - 1);
  for (int64_t r = 0; r < rows; ++r) {
    uint16_t* row = h + r * n;
    switch (r % 5) {
      case 1: row[at(rng)] = 0x0005; break;             // a denormal
      case 2: row[at(rng)] = bf16_bits(3e-25f); break;  // tiny: products below 2^-126
      case 3: row[at(rng)] = bf16_bits(-7e22f); break;  // huge
      case 4:                                           // near 2^-63: products near 2^-126, cancelling
        for (int64_t i = 0; i < n; ++i) row[i] = bf16_bits((i % 2 ? -1.0f : 1.0f) * std::ldexp(1.0f + (rng() % 128) / 128.0f, -62));
        break;
      default: break;
    }
  }
}

// F32/F16 weights of any finite bit pattern: every exponent, denormals and zeros of both
// signs (products stay finite).
void randomise_bits(GgmlType type, std::vector<uint8_t>& w, std::mt19937& rng) {
  if (type == GgmlType::F32) {
    auto* f = reinterpret_cast<uint32_t*>(w.data());
    for (size_t i = 0; i < w.size() / 4; ++i) do
        f[i] = static_cast<uint32_t>(rng());
      while ((f[i] & 0x7F800000u) == 0x7F800000u || (f[i] & 0x7F800000u) > 0x5F000000u);
    return;
  }
  auto* h = reinterpret_cast<uint16_t*>(w.data());
  for (size_t i = 0; i < w.size() / 2; ++i) do
      h[i] = static_cast<uint16_t>(rng());
    while ((h[i] & 0x7C00) == 0x7C00);
}

void check_builds(GgmlType type, int64_t n, int64_t rows, int64_t n_x, std::mt19937& rng, bool adversarial) {
  auto w = random_rows(type, n, rows, rng);
  if (adversarial && type == GgmlType::BF16) add_adversarial_bf16(w, n, rows, rng);
  if (adversarial && type != GgmlType::BF16) randomise_bits(type, w, rng);
  const size_t w_stride = ggml_row_bytes(type, n), xq_bytes = activation_row_bytes(type, n);
  std::vector<uint8_t> xq(xq_bytes * static_cast<size_t>(n_x));
  for (int64_t x = 0; x < n_x; ++x) {
    auto xs = random_activations(n, rng);
    if (adversarial && type != GgmlType::BF16)  // magnitudes over many octaves, some tiny enough for denormal products
      for (float& v : xs) v = std::ldexp(v, static_cast<int>(rng() % 80) - 40);
    if (adversarial && type == GgmlType::BF16 && x % 3 == 1) xs[rng() % n] = 1e-30f;  // an activation row out of the fast range
    if (adversarial && type == GgmlType::BF16 && x % 3 == 2)
      for (int64_t i = 0; i < n; ++i) xs[i] = std::ldexp(1.0f + (rng() % 128) / 128.0f, -64 + static_cast<int>(rng() % 3));
    quantize_activation_row(type, xs.data(), xq.data() + x * xq_bytes, n);
  }
  std::vector<int32_t> ids(rows);
  for (int64_t r = 0; r < rows; ++r) ids[r] = static_cast<int32_t>(rows - 1 - r);

  std::vector<float> ref(rows * n_x);
  for (int64_t x = 0; x < n_x; ++x) dot_rows_ref(type, w.data(), w_stride, rows, xq.data() + x * xq_bytes, n, ref.data() + x * rows);

  using Rows = void (*)(GgmlType, const uint8_t*, size_t, int64_t, const void*, int64_t, float*);
  using Indexed = void (*)(GgmlType, const uint8_t*, size_t, const int32_t*, int64_t, const void*, int64_t, float*);
  using Batch = void (*)(GgmlType, const uint8_t*, size_t, int64_t, const uint8_t*, size_t, int64_t, int64_t, float*, size_t);
  struct Build {
    const char* name;
    bool runs;
    Rows rows;
    Indexed indexed;
    Batch batch;
  };
  const Build builds[] = {
      {"avx2", cpu_features().avx2, dot_rows_avx2, dot_rows_indexed_avx2, dot_rows_batch_avx2},
      {"avx512vnni", have_avx512(), dot_rows_avx512vnni, dot_rows_indexed_avx512vnni, dot_rows_batch_avx512vnni},
      {"avx512bf16", have_avx512bf16(), dot_rows_avx512bf16, dot_rows_indexed_avx512bf16, dot_rows_batch_avx512bf16},
      {"dispatch", true, dot_rows, dot_rows_indexed, dot_rows_batch},
  };
  for (const Build& b : builds) {
    if (!b.runs) continue;
    INFO(ggml_type_name(type) << " " << b.name << " n=" << n << " rows=" << rows << " n_x=" << n_x << (adversarial ? " adversarial" : ""));
    std::vector<float> batch(rows * n_x, -1.0f), single(rows), indexed(rows);
    b.batch(type, w.data(), w_stride, rows, xq.data(), xq_bytes, n_x, n, batch.data(), rows);
    REQUIRE(std::memcmp(ref.data(), batch.data(), batch.size() * 4) == 0);
    for (int64_t x = 0; x < n_x; ++x) {
      b.rows(type, w.data(), w_stride, rows, xq.data() + x * xq_bytes, n, single.data());
      b.indexed(type, w.data(), w_stride, ids.data(), rows, xq.data() + x * xq_bytes, n, indexed.data());
      REQUIRE(std::memcmp(ref.data() + x * rows, single.data(), rows * 4) == 0);
      for (int64_t r = 0; r < rows; ++r) REQUIRE(std::memcmp(&ref[x * rows + rows - 1 - r], &indexed[r], 4) == 0);
    }
  }
}

}  // namespace

TEST_CASE("float-weight products: every build bit-identical to the reference", "[quant][float_dot]") {
  std::mt19937 rng(4242);
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::BF16})
    for (int64_t n : {1, 2, 7, 15, 16, 17, 31, 32, 33, 45, 63, 64, 65, 100, 640, 1001, 4096, 4099})
      for (int64_t n_x : {1, 2, 3, 4, 5, 8, 9, 17}) check_builds(type, n, n_x % 2 ? 9 : 4, n_x, rng, false);
}

TEST_CASE("F32/F16 products: any finite weight bits stay bit-identical", "[quant][float_dot]") {
  std::mt19937 rng(76);
  for (GgmlType type : {GgmlType::F32, GgmlType::F16})
    for (int64_t n : {5, 32, 47, 96, 640, 4096})
      for (int64_t n_x : {1, 3, 8, 11}) check_builds(type, n, 10, n_x, rng, true);
}

TEST_CASE("BF16 products: out-of-range values and cancelling sums stay bit-identical", "[quant][float_dot]") {
  std::mt19937 rng(77);
  for (int64_t n : {5, 32, 47, 96, 640, 4096})
    for (int64_t n_x : {1, 3, 8, 11}) check_builds(GgmlType::BF16, n, 10, n_x, rng, true);
}

TEST_CASE("BF16 reference product follows vdpbf16ps's lane order and flushing", "[quant][float_dot]") {
  const uint16_t one = bf16_bits(1.0f);
  auto dot = [](std::vector<uint16_t> w, std::vector<uint16_t> x) {
    float y = 0.0f;
    dot_rows_ref(GgmlType::BF16, reinterpret_cast<const uint8_t*>(w.data()), w.size() * 2, 1, x.data(), static_cast<int64_t>(w.size()), &y);
    return y;
  };
  // Lane 0 takes values 1, 0, 33, 32 in that order: ((2^24 + 1) + 1) - 2^24 = 0 (each +1
  // ties to even), where values 0, 1, 32, 33 would give ((1 + 2^24) - 2^24) + 1 = 1.
  std::vector<uint16_t> w(64, 0), x(64, 0);
  w[0] = one, w[1] = bf16_bits(0x1p24f), w[32] = bf16_bits(-0x1p24f), w[33] = one;
  x[0] = x[1] = x[32] = x[33] = one;
  CHECK(dot(w, x) == 0.0f);
  // A tiny sum is flushed: 2^-126 * 1.5 - 2^-125 = -2^-127 becomes -0 (and +0 after the
  // lanes' combination).
  CHECK(dot({bf16_bits(-0x1p-125f), bf16_bits(0x1.8p-126f)}, {one, one}) == 0.0f);
  // A denormal weight reads as zero: 2^-130 * 2^10 would be 2^-120 otherwise.
  CHECK(dot({0x0008, 0}, {bf16_bits(0x1p10f), 0}) == 0.0f);
  // An exact product beyond f32's range still adds: -0x1.fep127 + 2^64 * 2^64 = 2^120.
  CHECK(dot({bf16_bits(0x1p64f), bf16_bits(-0x1.fep127f)}, {bf16_bits(0x1p64f), one}) == 0x1p120f);
}

TEST_CASE("BF16 activation rounding: every build gives fp32_to_bf16_rne's bits", "[quant][float_dot]") {
  std::mt19937 rng(5);
  std::vector<float> x;
  const uint32_t specials[] = {0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000,
                               0xFF800000, 0x7FC00000, 0x7F800001, 0xFFBFFFFF, 0x3F808000, 0x3F818000, 0x3F807FFF, 0x3F808001};
  for (uint32_t u : specials) x.push_back(std::bit_cast<float>(u));
  for (int i = 0; i < 5000; ++i) x.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  for (int i = 0; i < 5000; ++i) x.push_back(std::bit_cast<float>((static_cast<uint32_t>(rng()) & 0xFFFF0000u) | 0x8000u));  // ties
  for (int64_t n : {static_cast<int64_t>(x.size()), int64_t{7}, int64_t{16}, int64_t{33}}) {
    std::vector<uint16_t> ref(n), avx2(n, 0xAAAA), avx512(n, 0x5555);
    quantize_activation_row_ref(GgmlType::BF16, x.data(), ref.data(), n);
    for (int64_t i = 0; i < n; ++i) REQUIRE(ref[i] == fp32_to_bf16_rne(x[i]));
    if (cpu_features().avx2) {
      quantize_activation_row_avx2(GgmlType::BF16, x.data(), avx2.data(), n);
      REQUIRE(std::memcmp(ref.data(), avx2.data(), n * 2) == 0);
    }
    if (have_avx512bf16()) {
      quantize_activation_row_avx512bf16(GgmlType::BF16, x.data(), avx512.data(), n);
      REQUIRE(std::memcmp(ref.data(), avx512.data(), n * 2) == 0);
    }
  }
  CHECK(activation_row_bytes(GgmlType::BF16, 100) == 200);
}
