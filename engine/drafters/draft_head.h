// The output side shared by ReDrafter and Medusa (engine/DESIGN.md §2.1-2.2): residual blocks
// x + SiLU(W x + b) (one fused kernel, kernels/matmul/linear_silu.h), then an output layer
// over the draft vocabulary — the drafter's own [n_draft_vocab][dim] matrix, or the
// target's LM head restricted to the draft vocabulary's rows (Medusa's large-vocabulary variant, EAGLE, and ReDrafter when exit_dim == n_embd).
//
// Target rows picked by a draft vocabulary are copied once into their own matrix
// (kernels/matmul/picked_rows.h): the projection is then one dense product over the few
// thousand rows instead of a gather from the 262k-row head. Its logits may differ from the
// target head's in the last bits; they are the drafter's own, and verification never reads
// them.
//
// Shapes: x [n][dim]; logits [n][n_draft_vocab], column i = target token draft_vocab[i].
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/matmul/matmul.h"
#include "kernels/matmul/picked_rows.h"
#include "kernels/runtime/thread_pool.h"

namespace draftbench {

struct ResidualBlock {
  WeightMatrix w;               // [dim][dim]
  const float* bias = nullptr;  // [dim]
};

class DraftHead {
 public:
  // `output` rows are the draft vocabulary in order (own layer), or target rows picked by
  // `draft_vocab` (target_rows = true).
  DraftHead(std::vector<ResidualBlock> blocks, WeightMatrix output, bool target_rows, std::vector<int32_t> draft_vocab);

  int64_t dim() const { return output_.n_in; }
  int64_t n_draft_vocab() const { return static_cast<int64_t>(draft_vocab_.size()); }
  const std::vector<int32_t>& draft_vocab() const { return draft_vocab_; }

  // Runs the residual blocks on x in place, then the output layer. Reuses its own scratch:
  // not for concurrent calls.
  void forward(float* x, int64_t n, float* logits, ThreadPool& pool);
  // Only the residual blocks (x in place).
  void blocks(float* x, int64_t n, ThreadPool& pool);
  // Only the output layer.
  void project(const float* x, int64_t n, float* logits, ThreadPool& pool);

 private:
  std::span<uint8_t> scratch(const WeightMatrix& w, int64_t n, int threads);

  std::vector<ResidualBlock> blocks_;
  WeightMatrix output_;
  bool target_rows_;
  bool dense_;  // target rows that are the whole vocabulary in order: a plain matmul
  std::vector<int32_t> draft_vocab_;
  PickedRows picked_;  // empty where the head layout does not apply
  std::vector<float> tmp_;
  std::vector<uint8_t> quant_;
};

// One linear layer with optional bias: y[n][w.n_out] = x W^T + b, through the same
// batch-invariant kernel as the target.
void linear(const WeightMatrix& w, const float* bias, const float* x, int64_t n, float* y, ThreadPool& pool, std::vector<uint8_t>& scratch);

// In place over one row: v <- v - logsumexp(v).
void log_softmax(std::span<float> v);

// The k largest values' indices in decreasing value order, ties to the lower index.
// `out` is resized to min(k, values.size()). kernels/sampling/top_k.h's bounded heap.
void top_k_indices(std::span<const float> values, int64_t k, std::vector<int32_t>& out);

}  // namespace draftbench
