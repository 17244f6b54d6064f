// Float-weight products (F32, F16, BF16 weights, f32 activations): every build (AVX2,
// AVX-512, the dispatch) is bit-identical to the reference's dot_float, single row, indexed
// and batched, at every length's tail (the 16 lanes) and batch size (the AVX-512 build takes
// eight activation rows per pass), also with weights of any finite bit pattern (denormals,
// extreme exponents) and activations spanning many octaves.
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
// Weights of any finite bit pattern: every exponent, denormals and zeros of both signs.
void randomise_bits(GgmlType type, std::vector<uint8_t>& w, std::mt19937& rng) {
  if (type == GgmlType::F32) {
    auto* f = reinterpret_cast<uint32_t*>(w.data());
    for (size_t i = 0; i < w.size() / 4; ++i)
      do f[i] = static_cast<uint32_t>(rng()); while ((f[i] & 0x7F800000u) == 0x7F800000u || (f[i] & 0x7F800000u) > 0x5F000000u);  // finite products
    return;
  }
  auto* h = reinterpret_cast<uint16_t*>(w.data());
  const uint16_t exponent = type == GgmlType::F16 ? 0x7C00 : 0x7F80;
  for (size_t i = 0; i < w.size() / 2; ++i)
    do h[i] = static_cast<uint16_t>(rng()); while ((h[i] & exponent) == exponent || (type == GgmlType::BF16 && (h[i] & 0x7F80) > 0x5F00));
}

void check_builds(GgmlType type, int64_t n, int64_t rows, int64_t n_x, std::mt19937& rng, bool adversarial) {
  auto w = random_rows(type, n, rows, rng);
  if (adversarial) randomise_bits(type, w, rng);
  const size_t w_stride = ggml_row_bytes(type, n), xq_bytes = activation_row_bytes(type, n);
  std::vector<uint8_t> xq(xq_bytes * static_cast<size_t>(n_x));
  for (int64_t x = 0; x < n_x; ++x) {
    auto xs = random_activations(n, rng);
    if (adversarial)  // magnitudes over many octaves, some tiny enough for denormal products
      for (float& v : xs) v = std::ldexp(v, static_cast<int>(rng() % 80) - 40);
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

TEST_CASE("float-weight products: any finite weight bits stay bit-identical", "[quant][float_dot]") {
  std::mt19937 rng(77);
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::BF16})
    for (int64_t n : {5, 32, 47, 96, 640, 4096})
      for (int64_t n_x : {1, 3, 8, 11}) check_builds(type, n, 10, n_x, rng, true);
}
