// The frozen target's view of one training sequence (engine/DESIGN.md §7): its final-norm hidden
// state at every position, and its own greedy continuation c_1..c_C after every trained
// position t — what a distilled drafter learns to predict.
//
// Continuing each position separately would cost C forward passes per position. Instead all
// positions advance together as branches of one token tree: the sequence is a chain (node
// t = token t), and level j adds, under every trained position's level-(j-1) node, the
// token c_j chosen there. One forward per level (in chunks) runs every branch at once, C
// forwards per sequence in all beyond the chain itself. A branch node attends to tokens
// 0..t and to its own branch, in that order — the keys and the order autoregressive greedy
// decoding from t would use — so each continuation is bit-identical to decoding it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/model/kv_cache.h"
#include "engine/model/model.h"
#include "engine/model/transformer.h"
#include "engine/train/distill_data.h"

namespace draftbench {

// seq.continuation from the sequence's own next tokens (the target's greedy replies are
// their own continuation): at trained positions, up to C tokens, cut after a stop token;
// -1 elsewhere.
void continuation_from_text(DistillSequence& seq, int64_t continuation_length, const Tokenizer& tokenizer);

class ContinuationTree {
 public:
  // C = continuation_length; `chunk` bounds the rows of one forward call.
  ContinuationTree(const Model& model, Transformer& transformer, int64_t continuation_length, int32_t chunk = 512);

  // Fills seq.hidden at every position. seq.continuation (at trained positions; -1 at the
  // others): with `continue_greedily`, the target's own greedy continuation from the tree;
  // otherwise continuation_from_text. A continuation stops after a stop token (decoding
  // would), -1 beyond.
  // Throws InputError if the tree does not fit the model's context.
  void run(DistillSequence& seq, bool continue_greedily);

  // Forward rows run by the last run(), chain included (for throughput reports).
  int64_t rows_run() const { return rows_run_; }

 private:
  // Runs tree nodes [n_cached, tokens_.size()), storing their hidden states in `hidden`.
  void forward_new_nodes(int32_t n_cached, std::vector<float>& hidden);
  // Greedy next token after each of `n` hidden rows.
  void argmax_rows(const float* hidden, int64_t n, std::vector<int32_t>& out);

  const Model& model_;
  Transformer& transformer_;
  int64_t C_;
  int32_t chunk_;
  std::unique_ptr<KvCache> cache_;
  std::vector<int32_t> tokens_, parents_;
  std::vector<float> logits_;
  ForwardBatch batch_;
  ForwardResult result_;
  int64_t rows_run_ = 0;
};

}  // namespace draftbench
