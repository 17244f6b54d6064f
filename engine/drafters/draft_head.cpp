#include "engine/drafters/draft_head.h"

#include <algorithm>
#include <cmath>

#include "engine/common/error.h"
#include "kernels/matmul/linear_silu.h"
#include "kernels/sampling/top_k.h"

namespace draftbench {

void linear(const WeightMatrix& w, const float* bias, const float* x, int64_t n, float* y, ThreadPool& pool, std::vector<uint8_t>& scratch) {
  const size_t need = matmul_scratch_bytes(w, n, pool.size());
  if (scratch.size() < need) scratch.resize(need);
  matmul(w, x, n, y, pool, scratch);
  if (bias)
    for (int64_t r = 0; r < n; ++r)
      for (int64_t i = 0; i < w.n_out; ++i) y[r * w.n_out + i] += bias[i];
}

DraftHead::DraftHead(std::vector<ResidualBlock> blocks, WeightMatrix output, bool target_rows, std::vector<int32_t> draft_vocab)
    : blocks_(std::move(blocks)), output_(output), target_rows_(target_rows), draft_vocab_(std::move(draft_vocab)) {
  for (const ResidualBlock& b : blocks_) DB_CHECK(b.w.n_in == dim() && b.w.n_out == dim() && b.bias);
  if (target_rows_) {
    for (int32_t id : draft_vocab_) DB_CHECK(id >= 0 && id < output_.n_out);
  } else {
    DB_CHECK(output_.n_out == n_draft_vocab());
  }
  dense_ = target_rows_ && n_draft_vocab() == output_.n_out;
  for (size_t i = 0; dense_ && i < draft_vocab_.size(); ++i) dense_ = draft_vocab_[i] == static_cast<int32_t>(i);
  if (target_rows_ && !dense_) picked_.pick(output_, draft_vocab_);
}

void DraftHead::blocks(float* x, int64_t n, ThreadPool& pool) {
  const int64_t d = dim();
  tmp_.resize(static_cast<size_t>(n * d));
  for (const ResidualBlock& b : blocks_) {
    // x + SiLU(W x + b) in one fused pass, into tmp_ (the product reads every row of x
    // while outputs are written), then back into x.
    const LinearTerm term{b.w, x};
    const size_t need = linear_silu_scratch_bytes({&term, 1}, n, pool.size());
    if (quant_.size() < need) quant_.resize(need);
    linear_silu({{&term, 1}, b.bias, x, n, tmp_.data()}, pool, quant_);
    std::copy(tmp_.begin(), tmp_.end(), x);
  }
}

void DraftHead::project(const float* x, int64_t n, float* logits, ThreadPool& pool) {
  if (!picked_.empty()) return picked_.matmul(x, n, logits, pool);
  const size_t need = matmul_scratch_bytes(output_, n, pool.size());
  if (quant_.size() < need) quant_.resize(need);
  if (target_rows_ && !dense_) matmul_rows(output_, draft_vocab_, x, n, logits, pool, quant_);
  else matmul(output_, x, n, logits, pool, quant_);
}

void DraftHead::forward(float* x, int64_t n, float* logits, ThreadPool& pool) {
  blocks(x, n, pool);
  project(x, n, logits, pool);
}

void log_softmax(std::span<float> v) {
  if (v.empty()) return;
  const float m = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (float x : v) sum += std::exp(static_cast<double>(x - m));
  const float lse = m + static_cast<float>(std::log(sum));
  for (float& x : v) x -= lse;
}

void top_k_indices(std::span<const float> values, int64_t k, std::vector<int32_t>& out) {
  top_k(values.data(), static_cast<int64_t>(values.size()), k, out);  // the beam search's W of W x V
}

}  // namespace draftbench
