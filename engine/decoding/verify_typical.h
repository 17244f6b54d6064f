// LOSSY — Medusa's typical acceptance (engine/DESIGN.md §5.3), kept for
// comparison with the Medusa paper; every output that uses it says so.
//
// With p = softmax(target logits / T) at a node and H = -sum p log(p + 1e-5), a draft child x
// is acceptable iff p(x) > min(epsilon, delta * exp(-H)). The accepted path is the longest
// root path of acceptable tokens; ties go to the larger sum of log p over the path, then to
// the first in node order. The next token is the greedy (argmax) token at the path's end, as
// in Medusa's `fast` mode. Deterministic: no random draws.
//
// Shapes as in verify.h: tree and tokens [n_nodes], target [n_nodes][n_vocab].
#pragma once

#include <cstdint>
#include <span>

#include "engine/decoding/verify.h"

namespace draftbench {

struct TypicalParams {
  float temperature = 1.0f;  // > 0
  float epsilon = 0.09f;     // Medusa's posterior_threshold
  float delta = 0.3f;        // Medusa's posterior_alpha
};

void verify_typical(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, const TypicalParams& params, Acceptance& out);

}  // namespace draftbench
