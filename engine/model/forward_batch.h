// What one forward call runs, and what it returns.
//
// Per sequence: the new tokens with their token tree (a chain for prompts and single
// steps). Token i of a sequence goes to position committed(seq) + depth[i] and KV scratch
// slot committed(seq) + i. `logit_rows` / `hidden_rows` name the tree nodes whose logits
// or final hidden states (after the final norm) are wanted.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/model/token_tree.h"

namespace draftbench {

struct SequenceInput {
  int seq = 0;  // KV cache sequence index
  std::vector<int32_t> tokens;
  TokenTree tree;
  std::vector<int32_t> logit_rows;
  std::vector<int32_t> hidden_rows;
};

struct ForwardBatch {
  std::vector<SequenceInput> sequences;
  // Logits only for these vocabulary ids (e.g. a draft vocabulary); empty = all.
  std::vector<int32_t> vocab_subset;
};

struct ForwardResult {
  int64_t logit_width = 0;      // n_vocab, or vocab_subset.size()
  std::vector<float> logits;    // [rows][logit_width], sequences in order, rows as listed
  int64_t hidden_width = 0;     // n_embd
  std::vector<float> hidden;    // [rows][n_embd], same order
  std::span<const float> logits_row(int64_t i) const { return {logits.data() + i * logit_width, static_cast<size_t>(logit_width)}; }
  std::span<const float> hidden_row(int64_t i) const { return {hidden.data() + i * hidden_width, static_cast<size_t>(hidden_width)}; }
};

}  // namespace draftbench
