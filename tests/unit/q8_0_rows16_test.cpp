// The row-interleaved LM-head layout (kernels/quant/q8_0_rows16.h): its reference follows the
// stated float contract computed straight from the file's Q8_0 rows; the VNNI kernel equals
// the reference bit for bit for 1-11 activation rows (passes of eight and their remainders)
// and rows of 2-256 blocks; a row's result is the same alone, in a batch, or asked for by
// id; and matmul, matmul_rows and the fused argmax over a Q8_0r16 matrix equal their
// references across partial tiles and thread counts.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/fixtures/random_blocks.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_argmax.h"
#include "kernels/matmul/weight_repack.h"
#include "kernels/quant/blocks.h"
#include "kernels/quant/q8_0_rows16.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/cpu_features.h"
#include "kernels/sampling/softmax.h"

using namespace draftbench;

namespace {

bool has_vnni() {
  const CpuFeatures& f = cpu_features();
  return f.avx512vnni && f.avx512bw && f.avx512vl && f.avx2;
}

// The contract, from the file layout: y = fma(float(s_b), d_w * d_x, y) block by block.
float contract_dot(const BlockQ8_0* w, const BlockQ8_0* x, int64_t nb) {
  float y = 0.0f;
  for (int64_t b = 0; b < nb; ++b) {
    int32_t s = 0;
    for (int i = 0; i < 32; ++i) s += static_cast<int32_t>(w[b].qs[i]) * x[b].qs[i];
    const float scale = fp16_to_fp32(w[b].d) * fp16_to_fp32(x[b].d);
    y = std::fma(static_cast<float>(s), scale, y);
  }
  return y;
}

struct Case {
  int64_t n_in, n_out;
  std::vector<uint8_t> rows, interleaved;
  std::vector<float> x;
  std::vector<uint8_t> xq;
  size_t xq_bytes;
  WeightMatrix matrix() const { return WeightMatrix{GgmlType::Q8_0r16, n_in, n_out, interleaved.data()}; }
};

Case make_case(int64_t n_in, int64_t n_out, int64_t n_x, std::mt19937& rng) {
  Case c{n_in, n_out, random_rows(GgmlType::Q8_0, n_in, n_out, rng), {}, {}, {}, 0};
  // The extreme code -128 too: a real quantiser never writes it, but the layout must hold it.
  reinterpret_cast<BlockQ8_0*>(c.rows.data())[0].qs[5] = -128;
  c.interleaved.resize(c.rows.size());
  interleave_q8_0_rows16(c.rows.data(), ggml_row_bytes(GgmlType::Q8_0, n_in), n_out, n_in / 32, c.interleaved.data());
  c.x = random_activations(n_in * n_x, rng);
  c.xq_bytes = activation_row_bytes(GgmlType::Q8_0r16, n_in);
  c.xq.resize(c.xq_bytes * static_cast<size_t>(n_x));
  for (int64_t i = 0; i < n_x; ++i) quantize_activation_row_ref(GgmlType::Q8_0r16, c.x.data() + i * n_in, c.xq.data() + i * c.xq_bytes, n_in);
  return c;
}

}  // namespace

TEST_CASE("Q8_0r16 reference follows its contract from the file's rows", "[q8_0r16]") {
  std::mt19937 rng(7);
  for (int64_t n_in : {64, 640}) {
    const int64_t n_out = 48, n_x = 3, nb = n_in / 32;
    const Case c = make_case(n_in, n_out, n_x, rng);
    std::vector<float> y(static_cast<size_t>(n_x * n_out));
    q8_0r16_rows_ref(c.interleaved.data(), n_out, c.xq.data(), c.xq_bytes, n_x, nb, y.data(), n_out);
    const size_t row_bytes = ggml_row_bytes(GgmlType::Q8_0, n_in);
    for (int64_t x = 0; x < n_x; ++x)
      for (int64_t r = 0; r < n_out; ++r) {
        const float want = contract_dot(reinterpret_cast<const BlockQ8_0*>(c.rows.data() + r * row_bytes),
                                        reinterpret_cast<const BlockQ8_0*>(c.xq.data() + x * c.xq_bytes), nb);
        INFO("n_in " << n_in << " x " << x << " row " << r);
        CHECK(std::memcmp(&y[x * n_out + r], &want, sizeof want) == 0);
      }
  }
}

TEST_CASE("Q8_0r16 VNNI kernel equals the reference bit for bit, whatever the batch", "[q8_0r16]") {
  if (!has_vnni()) SUCCEED("no AVX-512 VNNI on this CPU: the reference is the only build");
  else {
    std::mt19937 rng(11);
    for (int64_t n_in : {64, 640, 2048, 8192}) {
      const int64_t n_out = 32, n_x = 11, nb = n_in / 32;
      const Case c = make_case(n_in, n_out, n_x, rng);
      std::vector<float> want(static_cast<size_t>(n_x * n_out)), got(want.size());
      q8_0r16_rows_ref(c.interleaved.data(), n_out, c.xq.data(), c.xq_bytes, n_x, nb, want.data(), n_out);
      for (int64_t batch : {1, 3, 8, 9, 11}) {
        std::fill(got.begin(), got.end(), NAN);
        for (int64_t x0 = 0; x0 < n_x; x0 += batch)
          q8_0r16_rows_avx512vnni(c.interleaved.data(), n_out, c.xq.data() + x0 * c.xq_bytes, c.xq_bytes, std::min(batch, n_x - x0), nb,
                                  got.data() + x0 * n_out, n_out);
        INFO("n_in " << n_in << " batch " << batch);
        CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
      }
    }
  }
}

TEST_CASE("Q8_0r16 rows by id equal the same rows of the whole matrix", "[q8_0r16]") {
  std::mt19937 rng(3);
  const int64_t n_in = 640, n_out = 64;
  const Case c = make_case(n_in, n_out, 2, rng);
  const WeightMatrix w = c.matrix();
  const std::vector<int32_t> ids = {63, 0, 17, 16, 15, 40, 40};
  ThreadPool pool(2);
  std::vector<float> whole(static_cast<size_t>(2 * n_out)), picked(2 * ids.size());
  std::vector<uint8_t> scratch(matmul_scratch_bytes(w, 2, pool.size()));
  matmul(w, c.x.data(), 2, whole.data(), pool, scratch);
  matmul_rows(w, ids, c.x.data(), 2, picked.data(), pool, scratch);
  for (size_t x = 0; x < 2; ++x)
    for (size_t k = 0; k < ids.size(); ++k) {
      INFO("x " << x << " id " << ids[k]);
      CHECK(std::memcmp(&picked[x * ids.size() + k], &whole[x * n_out + ids[k]], sizeof(float)) == 0);
    }
}

TEST_CASE("matmul and the fused argmax over Q8_0r16 equal their references on partial tiles and threads", "[q8_0r16][matmul_argmax]") {
  std::mt19937 rng(5);
  const int64_t n_in = 640, n_x = 10;
  const int64_t n_out = matmul_row_tile(WeightMatrix{GgmlType::Q8_0r16, n_in, 16, nullptr}) * 2 + 48;  // two whole tiles and a partial one
  const Case c = make_case(n_in, n_out, n_x, rng);
  const WeightMatrix w = c.matrix();
  std::vector<float> want(static_cast<size_t>(n_x * n_out));
  dot_rows_batch_ref(GgmlType::Q8_0r16, w.data, w.row_bytes(), n_out, c.xq.data(), c.xq_bytes, n_x, n_in, want.data(), n_out);
  std::vector<int32_t> want_ids(static_cast<size_t>(n_x));
  matmul_argmax_ref(w, c.x.data(), n_x, 0.0f, want_ids.data());
  for (int64_t r = 0; r < n_x; ++r) CHECK(want_ids[r] == argmax(want.data() + r * n_out, n_out));
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    std::vector<float> y(want.size());
    std::vector<uint8_t> scratch(std::max(matmul_scratch_bytes(w, n_x, threads), matmul_argmax_scratch_bytes(w, n_x, threads)));
    matmul(w, c.x.data(), n_x, y.data(), pool, scratch);
    INFO("threads " << threads);
    CHECK(std::memcmp(y.data(), want.data(), want.size() * sizeof(float)) == 0);
    std::vector<int32_t> ids(static_cast<size_t>(n_x), -1);
    matmul_argmax(w, c.x.data(), n_x, 0.0f, ids.data(), pool, scratch);
    CHECK(ids == want_ids);
    for (int64_t r = 0; r < n_x; ++r) {  // each row alone
      int32_t one = -1;
      matmul_argmax(w, c.x.data() + r * n_in, 1, 0.0f, &one, pool, scratch);
      CHECK(one == want_ids[r]);
    }
  }
}

TEST_CASE("the head layout is row-interleaved exactly where the VNNI kernels run and the shape fits", "[q8_0r16]") {
  const WeightMatrix head{GgmlType::Q8_0, 640, 262144, nullptr};
  CHECK(head_layout_type(head) == (std::strcmp(dot_rows_backend(), "avx512vnni") == 0 ? GgmlType::Q8_0r16 : GgmlType::Q8_0));
  CHECK(head_layout_type(WeightMatrix{GgmlType::Q8_0, 640, 262145, nullptr}) == GgmlType::Q8_0);  // not whole groups
  // A K-quant head takes the layers' layout exactly where repack would make it (k_quant_rows16_test.cpp).
  CHECK(head_layout_type(WeightMatrix{GgmlType::Q6_K, 4096, 32000, nullptr}) == repacked_type(WeightMatrix{GgmlType::Q6_K, 4096, 32000, nullptr}));
  CHECK(head_layout_type(WeightMatrix{GgmlType::Q6_K, 4096, 32001, nullptr}) == GgmlType::Q6_K);
  CHECK(head_layout_bytes(WeightMatrix{GgmlType::Q8_0, 640, 262145, nullptr}) == 0);
}
