#include "engine/decoding/verify.h"

#include <algorithm>
#include <limits>

#include "engine/common/error.h"

namespace draftbench {
namespace {

// Per-node state of greedy and coupled verification, kept in out.path's storage
// (longest_chosen_path).
constexpr int32_t kRejected = -2;
constexpr int32_t kAcceptedChoiceUnknown = -1;  // >= 0: accepted, and the target's choice at the node

// slot_by_token marks: neutral value, and "a draw's or q's token, not yet found in the target".
constexpr int32_t kNoSlot = -1;
constexpr int32_t kWantedSlot = -2;

// A root copy (parent -1 beyond node 0) stands for node 0.
int32_t as_canonical(const TokenTree& tree, int32_t node) { return tree.parent[node] < 0 ? 0 : node; }

// The parent of a draft node, with root copies folded into node 0.
int32_t canonical_parent(const TokenTree& tree, int32_t node) { return as_canonical(tree, tree.parent[node]); }

bool is_root_copy(const TokenTree& tree, int32_t node) { return node > 0 && tree.parent[node] < 0; }

// Shapes and the root convention: a malformed tree is a drafter bug, not bad input.
void check_tree(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target) {
  DB_CHECK(tree.size() >= 1 && tokens.size() == static_cast<size_t>(tree.size()));
  DB_CHECK(tree.parent[0] == -1);
  DB_CHECK(target.valid());
  for (int32_t v = 0; v < tree.size(); ++v) {
    DB_CHECK(tokens[v] >= 0 && tokens[v] < target.n_vocab);
    if (is_root_copy(tree, v)) DB_CHECK(tokens[v] == tokens[0]);
  }
}

// out.path = the canonical nodes from the root down to `end`. path.capacity() must already
// be >= depth + 1 for this not to allocate (the callers reserve n_nodes).
void write_path_to(const TokenTree& tree, int32_t end, std::vector<int32_t>& path) {
  path.clear();
  for (int32_t v = end; v != 0; v = canonical_parent(tree, v)) path.push_back(v);
  path.push_back(0);
  std::reverse(path.begin(), path.end());
}

void prepare_scratch(VerifyScratch& scratch, int64_t n_vocab, int32_t n_nodes) {
  // The [n_vocab] arrays keep their neutral values between calls, so they are only
  // (re)filled when the vocabulary changes.
  if (scratch.q_by_token.size() != static_cast<size_t>(n_vocab)) {
    scratch.q_by_token.assign(static_cast<size_t>(n_vocab), 0.0);
    scratch.slot_by_token.assign(static_cast<size_t>(n_vocab), kNoSlot);
  }
  scratch.draw_offsets.assign(static_cast<size_t>(n_nodes) + 1, 0);
  scratch.draw_cursor.resize(static_cast<size_t>(n_nodes));
}

// Draws below each node = its children in node order (CSR in scratch.draws).
void index_children_as_draws(const TokenTree& tree, VerifyScratch& scratch) {
  const int32_t n = tree.size();
  auto& offsets = scratch.draw_offsets;
  for (int32_t v = 1; v < n; ++v)
    if (!is_root_copy(tree, v)) ++offsets[canonical_parent(tree, v) + 1];
  for (int32_t v = 0; v < n; ++v) offsets[v + 1] += offsets[v];
  scratch.draws.resize(static_cast<size_t>(offsets[n]));
  std::copy(offsets.begin(), offsets.end() - 1, scratch.draw_cursor.begin());
  for (int32_t v = 1; v < n; ++v)
    if (!is_root_copy(tree, v)) scratch.draws[scratch.draw_cursor[canonical_parent(tree, v)]++] = v;
}

void check_beams(const TokenTree& tree, BeamPaths beams) {
  DB_CHECK(beams.n_beams >= 1 && beams.beam_length >= 1);
  DB_CHECK(beams.nodes.size() == static_cast<size_t>(beams.n_beams) * beams.beam_length);
  for (int32_t b = 0; b < beams.n_beams; ++b) {
    DB_CHECK(beams.node(b, 0) >= 0 && beams.node(b, 0) < tree.size() && as_canonical(tree, beams.node(b, 0)) == 0);
    for (int32_t j = 1; j < beams.beam_length; ++j) {
      const int32_t v = beams.node(b, j);
      DB_CHECK(v > 0 && v < tree.size() && !is_root_copy(tree, v));
      DB_CHECK(canonical_parent(tree, v) == as_canonical(tree, beams.node(b, j - 1)));
    }
  }
}

// Draws below each node = the next node of every beam through it, in beam order.
void index_beams_as_draws(const TokenTree& tree, BeamPaths beams, VerifyScratch& scratch) {
  check_beams(tree, beams);
  const int32_t n = tree.size();
  auto& offsets = scratch.draw_offsets;
  for (int32_t b = 0; b < beams.n_beams; ++b)
    for (int32_t j = 0; j + 1 < beams.beam_length; ++j) ++offsets[as_canonical(tree, beams.node(b, j)) + 1];
  for (int32_t v = 0; v < n; ++v) offsets[v + 1] += offsets[v];
  scratch.draws.resize(static_cast<size_t>(offsets[n]));
  std::copy(offsets.begin(), offsets.end() - 1, scratch.draw_cursor.begin());
  // Beam-major iteration fills each node's list in beam order (a node has one depth).
  for (int32_t b = 0; b < beams.n_beams; ++b)
    for (int32_t j = 0; j + 1 < beams.beam_length; ++j) scratch.draws[scratch.draw_cursor[as_canonical(tree, beams.node(b, j))]++] = beams.node(b, j + 1);
}

std::span<const int32_t> draws_below(const VerifyScratch& scratch, int32_t node) {
  const auto begin = static_cast<size_t>(scratch.draw_offsets[node]);
  const auto end = static_cast<size_t>(scratch.draw_offsets[node + 1]);
  return std::span<const int32_t>(scratch.draws).subspan(begin, end - begin);
}

// What one pass over the target list learns besides the draws' positions.
struct TargetSummary {
  double mass = 0.0;      // sum of the probabilities
  int32_t n_support = 0;  // entries with probability > 0
};

// Points slot_by_token at the positions in scratch.target.dist of the draws' tokens and of every
// token load_q marked (kWantedSlot stays for tokens outside the filtered support), in one
// pass over the list.
TargetSummary locate_marked_tokens(std::span<const int32_t> draws, std::span<const int32_t> tokens, VerifyScratch& scratch) {
  for (const int32_t child : draws) scratch.slot_by_token[tokens[child]] = kWantedSlot;
  TargetSummary summary;
  for (size_t i = 0; i < scratch.target.dist.size(); ++i) {
    const TokenProb& tp = scratch.target.dist[i];
    summary.mass += tp.p;
    summary.n_support += tp.p > 0.0;
    int32_t& slot = scratch.slot_by_token[tp.token];
    if (slot == kWantedSlot) slot = static_cast<int32_t>(i);
  }
  return summary;
}

void forget_draw_tokens(std::span<const int32_t> draws, std::span<const int32_t> tokens, VerifyScratch& scratch) {
  for (const int32_t child : draws) scratch.slot_by_token[tokens[child]] = kNoSlot;
}

double target_prob_of(int32_t token, const VerifyScratch& scratch) {
  const int32_t slot = scratch.slot_by_token[token];
  return slot >= 0 ? scratch.target.dist[slot].p : 0.0;
}

// q's entries that take part in the rules: those of positive probability. An entry of
// probability 0 takes none, even for a token q lists again (which must count once).
// A hand-written filter rather than std::views::filter, which clang 14 (the fuzz preset's
// compiler) rejects in libstdc++ 12.
class PositiveEntries {
 public:
  explicit PositiveEntries(std::span<const TokenProb> q) : q_(q) {}
  class Iterator {
   public:
    Iterator(const TokenProb* at, const TokenProb* end) : at_(at), end_(end) { skip_zeros(); }
    const TokenProb& operator*() const { return *at_; }
    Iterator& operator++() {
      ++at_;
      skip_zeros();
      return *this;
    }
    bool operator!=(const Iterator& other) const { return at_ != other.at_; }

   private:
    void skip_zeros() {
      while (at_ != end_ && at_->p == 0.0) ++at_;
    }
    const TokenProb* at_;
    const TokenProb* end_;
  };
  Iterator begin() const { return {q_.data(), q_.data() + q_.size()}; }
  Iterator end() const { return {q_.data() + q_.size(), q_.data() + q_.size()}; }

 private:
  std::span<const TokenProb> q_;
};
PositiveEntries positive_entries(std::span<const TokenProb> q) { return PositiveEntries(q); }

// Writes q into q_by_token and marks its tokens for locate_marked_tokens; returns its mass
// (q need only be proportional). A token listed twice with positive probability would be
// subtracted twice from the residual, so that is a caller bug.
double load_q(std::span<const TokenProb> q, VerifyScratch& scratch) {
  for (const TokenProb& tp : q) DB_CHECK(tp.p >= 0.0 && tp.token >= 0 && static_cast<size_t>(tp.token) < scratch.q_by_token.size());
  double mass = 0.0;
  for (const TokenProb& tp : positive_entries(q)) {
    DB_CHECK(scratch.q_by_token[tp.token] == 0.0);
    scratch.q_by_token[tp.token] = tp.p;
    scratch.slot_by_token[tp.token] = kWantedSlot;
    mass += tp.p;
  }
  DB_CHECK(mass > 0.0);
  return mass;
}

void unload_q(std::span<const TokenProb> q, VerifyScratch& scratch) {
  for (const TokenProb& tp : q) {
    scratch.q_by_token[tp.token] = 0.0;
    scratch.slot_by_token[tp.token] = kNoSlot;
  }
}

// A residual mass kept by subtraction loses relative precision as it shrinks; re-add it when
// small (rare: it takes rejecting tokens that carried almost all of p, which is normalised).
double refreshed_mass(double mass, std::span<const TokenProb> residual) {
  if (mass >= 1e-6) return mass;
  double sum = 0.0;
  for (const TokenProb& tp : residual) sum += tp.p;
  return sum;
}

// Draw from an unnormalised residual (zeroed entries never chosen).
int32_t draw_residual(std::span<const TokenProb> residual, double u) {
  double total = 0.0;
  for (const TokenProb& tp : residual) total += tp.p;
  DB_CHECK(total > 0.0);
  const double threshold = u * total;
  double acc = 0.0;
  int32_t last_positive = -1;
  for (const TokenProb& tp : residual) {
    if (tp.p <= 0.0) continue;
    acc += tp.p;
    last_positive = tp.token;
    if (threshold < acc) return tp.token;
  }
  return last_positive;  // u within rounding of 1
}

// The next token at `node`: from the target itself if no rejection changed it — the same
// draw sample_token makes — else from the residual.
int32_t draw_next_token(const VerifyScratch& scratch, bool residual_changed, const RngKey& node_key) {
  const double u = uniform(node_key, 0);
  return residual_changed ? draw_residual(scratch.target.dist, u) : draw(scratch.target.dist, u);
}

RngKey key_at(const SamplingContext& sampling, int32_t node) {
  RngKey key = sampling.step;
  key.node = static_cast<uint64_t>(node);
  return key;
}

// The longest root path whose every draft token is the target's choice at its parent,
// choice(node) (asked once per accepted node); ties between equally long paths go to the one
// ending first in node order. out.path doubles as the per-node state (kRejected / accepted,
// with the choice once known), so no other storage is needed; the path is written over it at
// the end and is never longer than the tree.
template <class Choice>
void longest_chosen_path(const TokenTree& tree, std::span<const int32_t> tokens, Choice&& choice, Acceptance& out) {
  const int32_t n = tree.size();
  std::vector<int32_t>& state = out.path;
  state.assign(static_cast<size_t>(n), kRejected);
  state[0] = kAcceptedChoiceUnknown;
  auto chosen_at = [&](int32_t node) {
    if (state[node] == kAcceptedChoiceUnknown) state[node] = choice(node);
    return state[node];
  };
  int32_t deepest = 0;
  for (int32_t v = 1; v < n; ++v) {
    if (is_root_copy(tree, v)) continue;
    const int32_t parent = canonical_parent(tree, v);
    if (state[parent] == kRejected || tokens[v] != chosen_at(parent)) continue;
    state[v] = kAcceptedChoiceUnknown;
    if (tree.depth[v] > tree.depth[deepest]) deepest = v;  // strict: ties keep the first in node order
  }
  out.next_token = chosen_at(deepest);
  write_path_to(tree, deepest, out.path);
}

}  // namespace

void verify_greedy(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, Acceptance& out) {
  check_tree(tree, tokens, target);
  longest_chosen_path(
      tree, tokens, [&](int32_t node) { return target.argmax_at(node); }, out);
}

void verify_sampling_coupled(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, const SamplingParams& params,
                             const RngKey& first_draw, VerifyScratch& scratch, Acceptance& out) {
  check_tree(tree, tokens, target);
  DB_CHECK(!params.greedy());
  const auto draw_at = [&](int32_t node) {
    RngKey key = first_draw;
    key.step += static_cast<uint64_t>(tree.depth[node]);
    return sample_token(target.at(node), params, key, scratch.target);
  };
  longest_chosen_path(tree, tokens, draw_at, out);
}

void verify_sampling_one_hot(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, const SamplingContext& sampling,
                             VerifyScratch& scratch, Acceptance& out) {
  check_tree(tree, tokens, target);
  DB_CHECK(!sampling.params.greedy());
  prepare_scratch(scratch, target.n_vocab, tree.size());
  index_children_as_draws(tree, scratch);
  out.path.reserve(static_cast<size_t>(tree.size()));
  out.path.assign(1, 0);
  for (int32_t node = 0;;) {
    const RngKey key = key_at(sampling, node);
    target_distribution(target.at(node), sampling.params, scratch.target);
    const std::span<const int32_t> draws = draws_below(scratch, node);
    auto [mass, n_support] = locate_marked_tokens(draws, tokens, scratch);
    int32_t accepted = -1;
    bool residual_changed = false;
    for (size_t j = 0; j < draws.size() && accepted < 0; ++j) {
      const int32_t slot = scratch.slot_by_token[tokens[draws[j]]];
      const double p = slot >= 0 ? scratch.target.dist[slot].p : 0.0;
      if (p <= 0.0) continue;  // filtered out, or a sibling with this token was rejected
      // p / mass is the residual probability. The last token of the support is accepted
      // outright: its residual probability is 1, and `mass` may have drifted below p.
      if (n_support == 1 || uniform(key, 1 + j) * mass < p) {
        accepted = draws[j];
        break;
      }
      scratch.target.dist[slot].p = 0.0;
      mass = refreshed_mass(std::max(mass - p, 0.0), scratch.target.dist);
      --n_support;
      residual_changed = true;
    }
    forget_draw_tokens(draws, tokens, scratch);
    if (accepted >= 0) {
      out.path.push_back(accepted);
      node = accepted;
      continue;
    }
    out.next_token = draw_next_token(scratch, residual_changed, key);
    return;
  }
}

void verify_sampling_with_q(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, const SampledDrafts& drafts,
                            const SamplingContext& sampling, VerifyScratch& scratch, Acceptance& out) {
  check_tree(tree, tokens, target);
  DB_CHECK(!sampling.params.greedy());
  DB_CHECK(drafts.q.offsets.size() == static_cast<size_t>(tree.size()) + 1);
  prepare_scratch(scratch, target.n_vocab, tree.size());
  const bool without_replacement = drafts.sampling == DraftSampling::without_replacement;
  if (drafts.beams.n_beams > 0) {
    DB_CHECK(!without_replacement);  // independent beams are independent draws
    index_beams_as_draws(tree, drafts.beams, scratch);
  } else {
    index_children_as_draws(tree, scratch);
  }
  out.path.reserve(static_cast<size_t>(tree.size()));
  out.path.assign(1, 0);
  for (int32_t node = 0;;) {
    const RngKey key = key_at(sampling, node);
    target_distribution(target.at(node), sampling.params, scratch.target);
    const std::span<const int32_t> draws = draws_below(scratch, node);
    if (draws.empty()) {
      out.next_token = draw(scratch.target.dist, uniform(key, 0));
      return;
    }
    const std::span<const TokenProb> q = drafts.q.at(node);
    double q_mass = load_q(q, scratch);
    auto [p_mass, n_support] = locate_marked_tokens(draws, tokens, scratch);
    int32_t accepted = -1;
    bool residual_changed = false;
    for (size_t j = 0; j < draws.size(); ++j) {
      const int32_t x = tokens[draws[j]];
      const double qx = scratch.q_by_token[x];
      DB_CHECK(qx > 0.0);  // the draft must have been drawn from q_j
      const double px = target_prob_of(x, scratch);
      // u < (px / p_mass) / (qx / q_mass), without dividing.
      if (uniform(key, 1 + j) * qx * p_mass < px * q_mass) {
        accepted = draws[j];
        break;
      }
      // Residual max(p_j - q_j, 0), kept at p's unnormalised scale: outside q's support it is
      // p_j itself, so only q's tokens change — O(|q|) per rejection, not O(n_vocab).
      const double q_scale = p_mass / q_mass;
      for (const TokenProb& e : positive_entries(q)) {
        const int32_t slot = scratch.slot_by_token[e.token];
        if (slot < 0 || scratch.target.dist[slot].p <= 0.0) continue;
        double& residual = scratch.target.dist[slot].p;
        const double reduced = std::max(residual - q_scale * scratch.q_by_token[e.token], 0.0);
        p_mass -= residual - reduced;
        n_support -= reduced <= 0.0;
        residual = reduced;
      }
      if (n_support == 0) {
        // p_j == q_j up to rounding: the rejection had probability 0 in exact arithmetic.
        accepted = draws[j];
        break;
      }
      p_mass = refreshed_mass(p_mass, scratch.target.dist);
      residual_changed = true;
      if (without_replacement) {
        scratch.q_by_token[x] = 0.0;
        q_mass = 0.0;  // re-added, not subtracted: exact however much of q is gone
        for (const TokenProb& e : positive_entries(q)) q_mass += scratch.q_by_token[e.token];
      }
    }
    unload_q(q, scratch);
    forget_draw_tokens(draws, tokens, scratch);
    if (accepted >= 0) {
      out.path.push_back(accepted);
      node = accepted;
      continue;
    }
    out.next_token = draw_next_token(scratch, residual_changed, key);
    return;
  }
}

void verify_sampling_redrafter_lossy(const TokenTree& tree, std::span<const int32_t> tokens, TargetLogits target, DraftDistributions q, BeamPaths beams,
                                     const SamplingContext& sampling, VerifyScratch& scratch, Acceptance& out) {
  check_tree(tree, tokens, target);
  DB_CHECK(!sampling.params.greedy());
  DB_CHECK(q.offsets.size() == static_cast<size_t>(tree.size()) + 1);
  check_beams(tree, beams);
  const int32_t n = tree.size();
  prepare_scratch(scratch, target.n_vocab, n);
  index_children_as_draws(tree, scratch);

  // p(x) / q(x) of every draft node, with one target distribution per parent. The reference
  // computes P for every beam position; packed beams share it.
  scratch.accept_ratio.assign(static_cast<size_t>(n), 0.0);
  for (int32_t node = 0; node < n; ++node) {
    const std::span<const int32_t> children = draws_below(scratch, node);
    if (children.empty()) continue;
    target_distribution(target.at(node), sampling.params, scratch.target);
    const std::span<const TokenProb> q_here = q.at(node);
    const double q_mass = load_q(q_here, scratch);
    const double p_mass = locate_marked_tokens(children, tokens, scratch).mass;
    for (const int32_t child : children) {
      const double p = target_prob_of(tokens[child], scratch) / p_mass;
      const double qx = scratch.q_by_token[tokens[child]] / q_mass;
      scratch.accept_ratio[child] = qx > 0.0 ? p / qx : (p > 0.0 ? std::numeric_limits<double>::infinity() : 0.0);
    }
    unload_q(q_here, scratch);
    forget_draw_tokens(children, tokens, scratch);
  }

  // Each beam's accepted prefix, with its own uniforms even where beams share nodes (the
  // reference draws a [beam_width][beam_length - 1] tensor of them).
  int32_t best_beam = 0, best_n_accepted = -1;
  for (int32_t b = 0; b < beams.n_beams; ++b) {
    int32_t n_accepted = 0;
    for (int32_t j = 1; j < beams.beam_length; ++j) {
      const int32_t v = beams.node(b, j);
      if (!(uniform(key_at(sampling, v), 1 + static_cast<uint64_t>(b)) < scratch.accept_ratio[v])) break;
      ++n_accepted;
    }
    if (n_accepted > best_n_accepted) {
      best_beam = b;
      best_n_accepted = n_accepted;
    }
  }
  const int32_t end = as_canonical(tree, beams.node(best_beam, best_n_accepted));
  out.path.reserve(static_cast<size_t>(n));
  write_path_to(tree, end, out.path);

  const RngKey key = key_at(sampling, end);
  target_distribution(target.at(end), sampling.params, scratch.target);
  if (best_n_accepted == beams.beam_length - 1) {
    out.next_token = draw(scratch.target.dist, uniform(key, 0));
    return;
  }
  // norm(max(p - q, 0)) at the first rejection; p itself if that is empty (p == q), where
  // the reference would fail.
  const std::span<const TokenProb> q_end = q.at(end);
  const double q_mass = load_q(q_end, scratch);
  double residual_mass = 0.0;
  for (const TokenProb& tp : scratch.target.dist) residual_mass += std::max(tp.p - scratch.q_by_token[tp.token] / q_mass, 0.0);
  if (residual_mass > 0.0)
    for (TokenProb& tp : scratch.target.dist) tp.p = std::max(tp.p - scratch.q_by_token[tp.token] / q_mass, 0.0);
  unload_q(q_end, scratch);
  out.next_token = draw_next_token(scratch, residual_mass > 0.0, key);
}

}  // namespace draftbench
