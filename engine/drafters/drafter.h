// The drafter interface (architecture.md): every method, and the autoregressive baseline,
// runs through the same Decoder loop, so speed and losslessness are comparable by
// construction.
//
// A draft is a token tree whose node 0 is the root — the token the target model already
// chose and that is not yet forwarded — and whose other nodes are proposals, stored
// parents-first. Autoregressive decoding is the drafter that proposes nothing beyond
// the root.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace draftbench {

struct DraftTree {
  std::vector<int32_t> tokens;   // [n_nodes]; tokens[0] = root
  std::vector<int32_t> parents;  // [n_nodes]; parents[0] = -1, parents[i] < i
  void reset_to_root(int32_t root) {
    tokens.assign(1, root);
    parents.assign(1, -1);
  }
  int32_t add(int32_t parent, int32_t token) {
    tokens.push_back(token);
    parents.push_back(parent);
    return static_cast<int32_t>(tokens.size()) - 1;
  }
};

// What the drafter sees of a sequence when asked to propose.
struct DraftContext {
  int seq = 0;                          // sequence index in the batch
  std::span<const int32_t> tokens;      // committed tokens (prompt + generated), root excluded
  int32_t root = 0;
  std::span<const float> hidden;        // [n_embd] target's final-norm hidden state that chose root
};

class Drafter {
 public:
  virtual ~Drafter() = default;
  virtual std::string name() const = 0;
  // Forget all per-sequence state; sequences 0..n_sequences-1 are about to start.
  virtual void reset(int n_sequences) = 0;
  // Fill `out` with a tree rooted at ctx.root.
  virtual void propose(const DraftContext& ctx, DraftTree& out) = 0;
  // The nodes of the last proposal that the target accepted (root first), for drafters
  // that keep state along the committed sequence.
  virtual void accept(int seq, std::span<const int32_t> accepted_nodes) {}
};

// Autoregressive decoding as a drafter: the root alone.
class AutoregressiveDrafter final : public Drafter {
 public:
  std::string name() const override { return "autoregressive"; }
  void reset(int) override {}
  void propose(const DraftContext& ctx, DraftTree& out) override { out.reset_to_root(ctx.root); }
};

}  // namespace draftbench
