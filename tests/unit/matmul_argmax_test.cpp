// The fused LM-head argmax (kernels/matmul/matmul_argmax.h): on random weights of every
// product type, partial tiles, 1-3 threads, with and without a soft-cap, its ids equal the
// plain reference's and the argmax of matmul's full rows; ties (duplicate weight rows, a
// soft-cap that saturates, all-equal rows) go to the first index across tiles and threads;
// and a row's id does not depend on the other rows. The real model's head is checked in
// tests/model/lm_head_argmax_gemma_test.cpp.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/fixtures/random_blocks.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_argmax.h"
#include "kernels/ops/soft_cap.h"
#include "kernels/sampling/softmax.h"

using namespace draftbench;

namespace {

std::vector<int32_t> fused_ids(const WeightMatrix& w, const std::vector<float>& x, int64_t n_x, float cap, ThreadPool& pool) {
  std::vector<int32_t> ids(static_cast<size_t>(n_x), -1);
  std::vector<uint8_t> scratch(matmul_argmax_scratch_bytes(w, n_x, pool.size()));
  matmul_argmax(w, x.data(), n_x, cap, ids.data(), pool, scratch);
  return ids;
}

std::vector<int32_t> reference_ids(const WeightMatrix& w, const std::vector<float>& x, int64_t n_x, float cap) {
  std::vector<int32_t> ids(static_cast<size_t>(n_x), -1);
  matmul_argmax_ref(w, x.data(), n_x, cap, ids.data());
  return ids;
}

// What a decoder did before the fused kernel: full rows by matmul, capped, then argmax.
std::vector<int32_t> ids_of_full_rows(const WeightMatrix& w, const std::vector<float>& x, int64_t n_x, float cap, ThreadPool& pool) {
  std::vector<float> y(static_cast<size_t>(n_x * w.n_out));
  std::vector<uint8_t> scratch(matmul_scratch_bytes(w, n_x, pool.size()));
  matmul(w, x.data(), n_x, y.data(), pool, scratch);
  soft_cap(y.data(), n_x * w.n_out, cap);
  std::vector<int32_t> ids;
  for (int64_t r = 0; r < n_x; ++r) ids.push_back(static_cast<int32_t>(argmax(y.data() + r * w.n_out, w.n_out)));
  return ids;
}

int64_t block_of(GgmlType type) { return std::max<int64_t>(32, ggml_type_info(type).block_size); }

// n_out rows, each a copy of one of `distinct` random rows (row i copies row i % distinct).
std::vector<uint8_t> repeated_rows(GgmlType type, int64_t n_in, int64_t n_out, int64_t distinct, std::mt19937& rng) {
  const std::vector<uint8_t> base = random_rows(type, n_in, distinct, rng);
  const size_t row_bytes = ggml_row_bytes(type, n_in);
  std::vector<uint8_t> rows(row_bytes * static_cast<size_t>(n_out));
  for (int64_t i = 0; i < n_out; ++i) std::memcpy(rows.data() + i * row_bytes, base.data() + (i % distinct) * row_bytes, row_bytes);
  return rows;
}

}  // namespace

TEST_CASE("matmul_argmax equals its reference and the argmax of matmul's rows", "[matmul_argmax]") {
  std::mt19937 rng(31);
  ThreadPool one(1), two(2), three(3);
  const GgmlType types[] = {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K, GgmlType::F16, GgmlType::BF16, GgmlType::F32};
  for (const GgmlType type : types) {
    const int64_t n_in = block_of(type) * 2;
    for (const int64_t n_out : {1, 63, 130, 1000}) {
      const std::vector<uint8_t> rows = random_rows(type, n_in, n_out, rng);
      const WeightMatrix w{type, n_in, n_out, rows.data()};
      for (const int64_t n_x : {1, 3, 9}) {
        const std::vector<float> x = random_activations(n_x * n_in, rng, 1.0f);
        // 0: no cap; 30: Gemma 2's; 0.01: saturates most values to +-cap, so ties are common.
        for (const float cap : {0.0f, 30.0f, 0.01f}) {
          INFO(ggml_type_name(type) << " n_out " << n_out << " n_x " << n_x << " cap " << cap);
          const std::vector<int32_t> ref = reference_ids(w, x, n_x, cap);
          REQUIRE(ids_of_full_rows(w, x, n_x, cap, two) == ref);
          for (ThreadPool* pool : {&one, &two, &three}) REQUIRE(fused_ids(w, x, n_x, cap, *pool) == ref);
        }
      }
    }
  }
}

TEST_CASE("matmul_argmax breaks ties to the first index across tiles and threads", "[matmul_argmax]") {
  std::mt19937 rng(32);
  ThreadPool one(1), two(2), three(3);
  const int64_t n_in = 64, n_out = 1000;  // 16 tiles of 64 rows, split over the threads
  const int64_t n_x = 5;
  const std::vector<float> x = random_activations(n_x * n_in, rng, 1.0f);
  for (const int64_t distinct : {1, 3, 7}) {
    // The largest value repeats every `distinct` rows, in every tile and on every thread.
    const std::vector<uint8_t> rows = repeated_rows(GgmlType::Q8_0, n_in, n_out, distinct, rng);
    const WeightMatrix w{GgmlType::Q8_0, n_in, n_out, rows.data()};
    const std::vector<int32_t> ref = reference_ids(w, x, n_x, 0.0f);
    for (const int32_t id : ref) REQUIRE(id < distinct);
    for (ThreadPool* pool : {&one, &two, &three}) REQUIRE(fused_ids(w, x, n_x, 0.0f, *pool) == ref);
  }
  // All-zero weights: every value is 0, the answer is 0.
  const std::vector<float> zeros(static_cast<size_t>(n_in * n_out), 0.0f);
  const WeightMatrix zero{GgmlType::F32, n_in, n_out, reinterpret_cast<const uint8_t*>(zeros.data())};
  for (ThreadPool* pool : {&one, &two, &three}) REQUIRE(fused_ids(zero, x, n_x, 0.0f, *pool) == std::vector<int32_t>(n_x, 0));
  // Negative values first, then equal zeros from row 300 on (in the first thread's part and
  // the second's): the first zero row is the answer.
  std::vector<float> ramp(static_cast<size_t>(n_in * n_out), 0.0f);
  for (int64_t i = 0; i < 300 * n_in; ++i) ramp[static_cast<size_t>(i)] = -1.0f;
  const std::vector<float> positive(static_cast<size_t>(n_in), 1.0f);
  const WeightMatrix negative_then_zero{GgmlType::F32, n_in, n_out, reinterpret_cast<const uint8_t*>(ramp.data())};
  REQUIRE(reference_ids(negative_then_zero, positive, 1, 0.0f) == std::vector<int32_t>{300});
  for (ThreadPool* pool : {&one, &two, &three}) REQUIRE(fused_ids(negative_then_zero, positive, 1, 0.0f, *pool) == std::vector<int32_t>{300});
}

TEST_CASE("matmul_argmax rows do not depend on the batch", "[matmul_argmax][invariance]") {
  std::mt19937 rng(33);
  ThreadPool two(2);
  for (const GgmlType type : {GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::F16}) {
    const int64_t n_in = block_of(type) * 2, n_out = 777, n_x = 17;
    const std::vector<uint8_t> rows = random_rows(type, n_in, n_out, rng);
    const WeightMatrix w{type, n_in, n_out, rows.data()};
    const std::vector<float> x = random_activations(n_x * n_in, rng, 1.0f);
    const std::vector<int32_t> batched = fused_ids(w, x, n_x, 0.0f, two);
    for (int64_t r = 0; r < n_x; ++r) {
      const std::vector<float> row(x.begin() + r * n_in, x.begin() + (r + 1) * n_in);
      INFO(ggml_type_name(type) << " row " << r);
      REQUIRE(fused_ids(w, row, 1, 0.0f, two)[0] == batched[static_cast<size_t>(r)]);
    }
  }
}
