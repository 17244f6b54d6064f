// ReDrafter's dynamic tree attention (engine/DESIGN.md §3) on the CPU, as flat passes over the
// beam array instead of a trie: the beams of one draft all have the same length, so the
// shared prefixes are found by comparing beams pairwise, exactly the paper's tensor
// algorithm, and the result is a parents-first token tree for TokenTree::from_parents.
//
// Shapes (dimension names beam_width, beam_length; everything row-major, beam-major):
//   beams        [beam_width][beam_length] token ids; beams[i][0] is the root (the token
//                the target already chose), beams[i][1..] are beam i's draft tokens.
//   prefix_tree  [beam_width][beam_length] beam indices.
//   unpacker     [beam_width][beam_length] packed node indices.
//   tokens, parents  [n_nodes] packed nodes, n_nodes <= beam_width * beam_length.
//
// The decoder runs this once per step and sequence, so everything writes into storage
// the caller keeps: once `PackedBeams` has seen the largest shape, no call allocates.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace draftbench {

struct BeamShape {
  int beam_width = 0;   // beams, >= 1
  int beam_length = 0;  // tokens per beam including the root, >= 1
  int beam_tokens() const { return beam_width * beam_length; }
};

// prefix_tree[i][j] = the smallest beam index k with beams[k][0..j] == beams[i][0..j]
// (so k <= i, and k == i means beam i is the first to reach that prefix). The paper
// writes it as pairwise equality [beam_width][beam_width][beam_length], a running count
// along the length equal to j + 1, then the first matching k; this computes the same
// thing one pair at a time with an early exit. O(beam_width^2 * beam_length) compares
// at most. Beams need not share the root; a beam with a different root starts its own
// prefix class at j = 0.
void dedup_prefix(std::span<const int32_t> beams, BeamShape shape, std::span<int32_t> prefix_tree);

// The same definition built with an ordered map from prefix to first beam: obviously
// correct, allocates per prefix, for tests only. Returns [beam_width][beam_length].
std::vector<int32_t> dedup_prefix_reference(std::span<const int32_t> beams, BeamShape shape);

// The tree the target verifies. Node order is beam-major: beam 0's tokens, then the
// tokens that beam 1 adds, and so on, so every parent precedes its children and the
// root is node 0 whenever all beams share it (the decoder's case). A node's depth is
// its position in the beam, so its position id is committed + j.
struct PackedBeams {
  std::vector<int32_t> tokens;    // [n_nodes]
  std::vector<int32_t> parents;   // [n_nodes]; -1 for a root, else < own index
  std::vector<int32_t> unpacker;  // [beam_width][beam_length]; tokens[unpacker[i][j]] == beams[i][j]
  int32_t size() const { return static_cast<int32_t>(tokens.size()); }
};

// Dynamic tree attention on: keep token (i, j) iff prefix_tree[i][j] == i; every other
// beam position maps to the node of its first owner. `prefix_tree` must come from
// dedup_prefix on the same beams (checked only where a bad value would index out of
// range). No two siblings carry the same token, and n_nodes is the number of distinct
// prefixes beams[i][0..j].
void pack_beams(std::span<const int32_t> beams, BeamShape shape, std::span<const int32_t> prefix_tree, PackedBeams& out);

// Dynamic tree attention off: every beam is its own causal chain, node i * beam_length + j
// is beams[i][j], and each chain starts with its own copy of the root (parent -1), so the
// tree is a forest of beam_width chains and the root token is verified beam_width times.
// Every chain's root sits at depth 0, so positions are committed + j exactly as when packed.
void unpacked_beams(std::span<const int32_t> beams, BeamShape shape, PackedBeams& out);

// Beam tokens / verified tokens: beam_width * beam_length / n_nodes. 1 when unpacked;
// with a shared root it is at least beam_width * beam_length / (1 + beam_width * (beam_length - 1)).
double compression_ratio(BeamShape shape, const PackedBeams& packed);

}  // namespace draftbench
