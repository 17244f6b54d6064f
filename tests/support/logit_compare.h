// How the forward-pass tests get and compare logits: every position of a token chain, and
// two sets compared bit for bit or relative to the largest logit (a scale-free measure
// that a few large logits do not hide).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

#include "engine/model/forward_pass.h"

namespace draftbench::test {

// max |a - b| / max |b|.
inline double relative_difference(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) throw std::invalid_argument("relative_difference: sizes differ");
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::abs(static_cast<double>(b[i])));
  }
  return diff / scale;
}

// The logits of every position of `tokens`, run as one chain through `pass` in a fresh cache.
inline std::vector<float> chain_logits(ForwardPass& pass, const ModelConfig& config, const std::vector<int32_t>& tokens) {
  KvCache cache(config, 1, static_cast<int64_t>(tokens.size()), pass.device());
  ForwardBatch batch;
  SequenceInput s{0, tokens, TokenTree::chain(static_cast<int32_t>(tokens.size())), {}, {}};
  for (int32_t i = 0; i < static_cast<int32_t>(tokens.size()); ++i) s.logit_rows.push_back(i);
  batch.sequences.push_back(std::move(s));
  ForwardResult r;
  pass.forward(batch, cache, r);
  return r.logits;
}

inline bool same_bits(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace draftbench::test
