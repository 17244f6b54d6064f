#include "kernels/matmul/linear_silu.h"

#include <algorithm>
#include <array>
#include <vector>

#include "kernels/matmul/linear_silu_epilogue.h"
#include "kernels/ops/activations.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/check.h"

namespace draftbench {
namespace {

// Output rows per task, as matmul's tiles: the tile's weights stay in L2 while every
// activation row passes over them, and its [n][tile] sums stay in L1/L2 for the epilogue.
constexpr int64_t kRowTile = 64;
constexpr size_t kAlign = 64;

size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

void check_args(const LinearSiluArgs& a) {
  DB_CHECK(!a.terms.empty() && a.terms.size() <= kMaxLinearTerms && a.n >= 0 && a.y != nullptr);
  for (const LinearTerm& t : a.terms) DB_CHECK(t.w.n_out == a.n_out() && t.w.data != nullptr && (t.x != nullptr || a.n == 0));
}

}  // namespace

void linear_silu_ref(const LinearSiluArgs& a) {
  check_args(a);
  const int64_t n_out = a.n_out();
  std::vector<std::vector<uint8_t>> xq(a.terms.size());
  std::vector<float> out(static_cast<size_t>(a.n * n_out));
  for (int64_t r = 0; r < a.n; ++r) {
    for (size_t k = 0; k < a.terms.size(); ++k) {
      const WeightMatrix& w = a.terms[k].w;
      xq[k].resize(activation_row_bytes(w.type, w.n_in));
      quantize_activation_row_ref(w.type, a.terms[k].x + r * w.n_in, xq[k].data(), w.n_in);
    }
    for (int64_t i = 0; i < n_out; ++i) {
      float sum = 0.0f;
      for (size_t k = 0; k < a.terms.size(); ++k) {
        const WeightMatrix& w = a.terms[k].w;
        const float d = dot_row_ref(w.type, w.data + static_cast<size_t>(i) * w.row_bytes(), xq[k].data(), w.n_in);
        sum = k == 0 ? d : sum + d;
      }
      out[static_cast<size_t>(r * n_out + i)] = linear_silu_output(sum, a.bias, a.residual, r, i, n_out);
    }
  }
  // Written at the end, so that residual may be y.
  std::copy(out.begin(), out.end(), a.y);
}

size_t linear_silu_scratch_bytes(std::span<const LinearTerm> terms, int64_t n, int n_threads) {
  size_t bytes = 0;
  for (const LinearTerm& t : terms) bytes += aligned(activation_row_bytes(t.w.type, t.w.n_in) * static_cast<size_t>(n));
  const size_t tiles = terms.size() > 1 ? 2 : 1;  // the running sum, and the next term's products
  return bytes + static_cast<size_t>(n_threads) * tiles * aligned(static_cast<size_t>(n * kRowTile) * sizeof(float));
}

void linear_silu(const LinearSiluArgs& a, ThreadPool& pool, std::span<uint8_t> scratch) {
  check_args(a);
  DB_CHECK(scratch.size() >= linear_silu_scratch_bytes(a.terms, a.n, pool.size()));
  if (a.n == 0) return;
  const int64_t n_out = a.n_out(), n_terms = static_cast<int64_t>(a.terms.size());

  // Every term's activation rows, quantised once for all tiles.
  std::array<uint8_t*, kMaxLinearTerms> xq{};
  std::array<size_t, kMaxLinearTerms> xq_bytes{};
  uint8_t* p = scratch.data();
  for (size_t k = 0; k < a.terms.size(); ++k) {
    const WeightMatrix& w = a.terms[k].w;
    xq_bytes[k] = activation_row_bytes(w.type, w.n_in);
    xq[k] = p;
    p += aligned(xq_bytes[k] * static_cast<size_t>(a.n));
  }
  pool.parallel_for(n_terms * a.n, 4, [&](int64_t b, int64_t e, int) {
    for (int64_t j = b; j < e; ++j) {
      const size_t k = static_cast<size_t>(j / a.n);
      const int64_t r = j % a.n;
      const WeightMatrix& w = a.terms[k].w;
      quantize_activation_row(w.type, a.terms[k].x + r * w.n_in, xq[k] + static_cast<size_t>(r) * xq_bytes[k], w.n_in);
    }
  });

  const size_t tile_bytes = aligned(static_cast<size_t>(a.n * kRowTile) * sizeof(float));
  const size_t thread_bytes = (n_terms > 1 ? 2 : 1) * tile_bytes;
  pool.parallel_for(n_out, kRowTile, [&](int64_t b, int64_t e, int thread) {
    float* sum = reinterpret_cast<float*>(p + static_cast<size_t>(thread) * thread_bytes);  // [n][kRowTile]
    float* next = reinterpret_cast<float*>(p + static_cast<size_t>(thread) * thread_bytes + tile_bytes);
    for (int64_t r0 = b; r0 < e; r0 += kRowTile) {
      const int64_t nr = std::min(kRowTile, e - r0);
      for (int64_t k = 0; k < n_terms; ++k) {
        const WeightMatrix& w = a.terms[static_cast<size_t>(k)].w;
        float* out = k == 0 ? sum : next;
        dot_rows_batch(w.type, w.data + static_cast<size_t>(r0) * w.row_bytes(), w.row_bytes(), nr, xq[static_cast<size_t>(k)],
                       xq_bytes[static_cast<size_t>(k)], a.n, w.n_in, out, kRowTile);
        if (k > 0)
          for (int64_t r = 0; r < a.n; ++r)
            for (int64_t i = 0; i < nr; ++i) sum[r * kRowTile + i] += next[r * kRowTile + i];
      }
      // linear_silu_output's steps a row at a time, the SiLU through the vectorised
      // activations (the same silu_value bits).
      for (int64_t r = 0; r < a.n; ++r) {
        float* z = sum + r * kRowTile;
        if (a.bias)
          for (int64_t i = 0; i < nr; ++i) z[i] += a.bias[r0 + i];
        silu(z, z, nr);
        float* out = a.y + r * n_out + r0;
        if (a.residual) {
          const float* res = a.residual + r * n_out + r0;
          for (int64_t i = 0; i < nr; ++i) out[i] = res[i] + z[i];
        } else {
          std::copy_n(z, nr, out);
        }
      }
    }
  });
}

}  // namespace draftbench
