// What one forward call runs, and what it returns.
//
// Per sequence: the new tokens with their token tree (a chain for prompts and single
// steps). Token i of a sequence goes to position committed(seq) + depth[i] and KV scratch
// slot committed(seq) + i. `logit_rows` / `hidden_rows` name the tree nodes whose logits
// or final hidden states (after the final norm) are wanted.
//
// Incremental trees (EAGLE's draft tree grows one level per call): nodes [0, n_cached)
// already sit in their scratch slots from an earlier call on the same cache at the same
// committed length; only nodes n_cached.. run, attending to committed context plus all
// their ancestors (cached ones included) exactly as in one call over the whole tree.
// `tokens`, `tree`, `logit_rows` and `hidden_rows` still index the whole tree; wanted
// rows must be >= n_cached.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/attention/token_tree.h"

namespace draftbench {

struct SequenceInput {
  int seq = 0;  // KV cache sequence index
  std::vector<int32_t> tokens;
  TokenTree tree;
  std::vector<int32_t> logit_rows;
  std::vector<int32_t> hidden_rows;
  int32_t n_cached = 0;  // leading tree nodes whose K/V are already in scratch
};

struct ForwardBatch {
  std::vector<SequenceInput> sequences;
  // Logits only for these vocabulary ids (e.g. a draft vocabulary); empty = all.
  std::vector<int32_t> vocab_subset;
  // Layer-0 input instead of the token embeddings (a drafter's own inputs, e.g. EAGLE's
  // fc output): [rows run][n_embd], sequences in order, nodes n_cached.. of each. Empty =
  // embed the tokens. Tokens are still validated. Not owned: must outlive forward().
  std::span<const float> input_embeddings;
};

struct ForwardResult {
  int64_t logit_width = 0;    // n_vocab, or vocab_subset.size()
  std::vector<float> logits;  // [rows][logit_width], sequences in order, rows as listed
  int64_t hidden_width = 0;   // n_embd
  std::vector<float> hidden;  // [rows][n_embd], same order
  std::span<const float> logits_row(int64_t i) const { return {logits.data() + i * logit_width, static_cast<size_t>(logit_width)}; }
  std::span<const float> hidden_row(int64_t i) const { return {hidden.data() + i * hidden_width, static_cast<size_t>(hidden_width)}; }
};

}  // namespace draftbench
