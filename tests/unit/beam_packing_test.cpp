// Dynamic tree attention (engine/DESIGN.md §3): the paper's worked example as a golden fixture,
// then the fast dedup_prefix against the map-based reference and the packed tree's
// invariants on random beams of every shape up to beam_width 70, beam_length 8, with
// vocabularies small enough that prefixes collide often.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "kernels/beam/beam_packing.h"
#include "kernels/attention/token_tree.h"

using namespace draftbench;

namespace {

// Row i of a [beam_width][beam_length] array.
std::vector<int32_t> row_of(const std::vector<int32_t>& array, BeamShape shape, int i) {
  const auto begin = array.begin() + static_cast<ptrdiff_t>(i) * shape.beam_length;
  return {begin, begin + shape.beam_length};
}

// Random beams [beam_width][beam_length] over tokens 0..vocab-1. Beam-search-like beams
// copy a prefix of an earlier beam and continue at random, so long shared prefixes occur
// even with a large vocabulary; `shared_root` puts one root in column 0 as the decoder does.
std::vector<int32_t> random_beams(std::mt19937& rng, BeamShape shape, int vocab, bool shared_root) {
  std::uniform_int_distribution<int32_t> token(0, vocab - 1);
  std::vector<int32_t> beams(static_cast<size_t>(shape.beam_tokens()));
  const bool copy_prefixes = rng() % 2 == 0;
  const int32_t root = token(rng);
  for (int i = 0; i < shape.beam_width; ++i) {
    int copied = 0;
    if (copy_prefixes && i > 0) {
      const int from = static_cast<int>(rng() % static_cast<unsigned>(i));
      copied = static_cast<int>(rng() % static_cast<unsigned>(shape.beam_length + 1));
      for (int j = 0; j < copied; ++j) beams[i * shape.beam_length + j] = beams[from * shape.beam_length + j];
    }
    for (int j = copied; j < shape.beam_length; ++j) beams[i * shape.beam_length + j] = token(rng);
    if (shared_root) beams[i * shape.beam_length] = root;
  }
  return beams;
}

// Everything the packed tree must satisfy, whatever the beams.
void check_packed_tree(const std::vector<int32_t>& beams, BeamShape shape, const PackedBeams& packed) {
  const int BW = shape.beam_width, BL = shape.beam_length;
  REQUIRE(packed.unpacker.size() == beams.size());
  REQUIRE(packed.parents.size() == packed.tokens.size());

  // One node per distinct prefix beams[i][0..j].
  std::set<std::vector<int32_t>> prefixes;
  for (int i = 0; i < BW; ++i)
    for (int j = 1; j <= BL; ++j) prefixes.insert(std::vector<int32_t>(beams.begin() + i * BL, beams.begin() + i * BL + j));
  REQUIRE(packed.tokens.size() == prefixes.size());

  // The unpacker maps each beam position to a node with its token, under the node of the
  // previous position.
  for (int i = 0; i < BW; ++i)
    for (int j = 0; j < BL; ++j) {
      const int32_t node = packed.unpacker[i * BL + j];
      INFO("beam " << i << " position " << j);
      REQUIRE(node >= 0);
      REQUIRE(node < packed.size());
      REQUIRE(packed.tokens[node] == beams[i * BL + j]);
      REQUIRE(packed.parents[node] == (j == 0 ? -1 : packed.unpacker[i * BL + j - 1]));
    }

  // A trie: no two children of one parent carry the same token.
  std::set<std::pair<int32_t, int32_t>> parent_and_token;
  for (int32_t node = 0; node < packed.size(); ++node) {
    INFO("node " << node);
    REQUIRE(parent_and_token.emplace(packed.parents[node], packed.tokens[node]).second);
  }

  // TokenTree accepts it (parents first, possibly several roots); depth is the position in
  // the beam, each beam is a root-to-leaf path, and the DFS ancestor test sees exactly
  // that path as the ancestors of the beam's last node (the attention mask's row).
  const TokenTree tree = TokenTree::from_parents(packed.parents);
  for (int i = 0; i < BW; ++i) {
    const std::vector<int32_t> unpacker_row = row_of(packed.unpacker, shape, i);
    for (int j = 0; j < BL; ++j) REQUIRE(tree.depth[unpacker_row[j]] == j);
    REQUIRE(tree.path_to(unpacker_row.back()) == unpacker_row);
    std::vector<int32_t> ancestors;
    for (int32_t node = 0; node < tree.size(); ++node)
      if (tree.is_ancestor_or_self(node, unpacker_row.back())) ancestors.push_back(node);
    REQUIRE(ancestors == unpacker_row);  // node order is parents first, so also root-down
  }

  REQUIRE(compression_ratio(shape, packed) >= 1.0);
}

}  // namespace

TEST_CASE("the paper's worked example packs as published", "[beam_packing]") {
  // ReDrafter Appendix A.1 / recurrent_drafting tree_attention_test.py.
  const BeamShape shape{3, 4};
  const std::vector<int32_t> beams = {91, 92, 93, 95,  //
                                      91, 92, 94, 96,  //
                                      91, 92, 93, 97};
  const std::vector<int32_t> expected_prefix_tree = {0, 0, 0, 0,  //
                                                     0, 0, 1, 1,  //
                                                     0, 0, 0, 2};
  std::vector<int32_t> prefix_tree(beams.size(), -7);
  dedup_prefix(beams, shape, prefix_tree);
  REQUIRE(prefix_tree == expected_prefix_tree);
  REQUIRE(dedup_prefix_reference(beams, shape) == expected_prefix_tree);

  PackedBeams packed;
  pack_beams(beams, shape, prefix_tree, packed);
  REQUIRE(packed.tokens == std::vector<int32_t>{91, 92, 93, 95, 94, 96, 97});
  REQUIRE(packed.parents == std::vector<int32_t>{-1, 0, 1, 2, 1, 4, 2});
  REQUIRE(packed.unpacker == std::vector<int32_t>{0, 1, 2, 3,  //
                                                  0, 1, 4, 5,  //
                                                  0, 1, 2, 6});
  REQUIRE(compression_ratio(shape, packed) == Approx(12.0 / 7.0));
  // The reference's position offsets [0,1,2,3,2,3,3] are the packed depths.
  REQUIRE(TokenTree::from_parents(packed.parents).depth == std::vector<int32_t>{0, 1, 2, 3, 2, 3, 3});
  check_packed_tree(beams, shape, packed);
}

TEST_CASE("dedup_prefix equals the map-based reference on random beams", "[beam_packing]") {
  std::mt19937 rng(20240309);
  const int vocabularies[] = {1, 2, 3, 5, 50};
  std::vector<int32_t> prefix_tree;
  int vocab_turn = 0;
  for (int pass = 0; pass < 3; ++pass)
    for (int beam_width = 1; beam_width <= 70; ++beam_width)
      for (int beam_length = 1; beam_length <= 8; ++beam_length) {
        const BeamShape shape{beam_width, beam_length};
        const int vocab = vocabularies[vocab_turn++ % 5];
        const bool shared_root = pass != 2;  // the last pass lets roots differ too
        const std::vector<int32_t> beams = random_beams(rng, shape, vocab, shared_root);
        prefix_tree.assign(beams.size(), -7);
        dedup_prefix(beams, shape, prefix_tree);
        INFO("beam_width " << beam_width << " beam_length " << beam_length << " vocab " << vocab << " pass " << pass);
        REQUIRE(prefix_tree == dedup_prefix_reference(beams, shape));
      }
}

TEST_CASE("packed beams are the trie of the beams' prefixes", "[beam_packing]") {
  std::mt19937 rng(7);
  const int vocabularies[] = {1, 2, 3, 5, 50};
  std::vector<int32_t> prefix_tree;
  PackedBeams packed;  // reused across cases, as the decoder does
  for (int pass = 0; pass < 2; ++pass)
    for (int beam_width = 1; beam_width <= 70; ++beam_width)
      for (int beam_length = 1; beam_length <= 8; ++beam_length) {
        const BeamShape shape{beam_width, beam_length};
        const int vocab = vocabularies[(beam_width + beam_length + pass) % 5];
        const std::vector<int32_t> beams = random_beams(rng, shape, vocab, /*shared_root=*/pass == 0);
        prefix_tree.resize(beams.size());
        dedup_prefix(beams, shape, prefix_tree);
        pack_beams(beams, shape, prefix_tree, packed);
        INFO("beam_width " << beam_width << " beam_length " << beam_length << " vocab " << vocab << " pass " << pass);
        check_packed_tree(beams, shape, packed);
        if (pass == 0) {
          REQUIRE(packed.tokens[0] == beams[0]);  // a shared root is node 0 and the only root
          REQUIRE(std::count(packed.parents.begin(), packed.parents.end(), -1) == 1);
        }
      }
}

TEST_CASE("identical beams pack to one chain", "[beam_packing]") {
  const BeamShape shape{5, 4};
  std::vector<int32_t> beams;
  for (int i = 0; i < shape.beam_width; ++i) beams.insert(beams.end(), {10, 11, 12, 13});
  std::vector<int32_t> prefix_tree(beams.size());
  dedup_prefix(beams, shape, prefix_tree);
  REQUIRE(prefix_tree == std::vector<int32_t>(beams.size(), 0));
  PackedBeams packed;
  pack_beams(beams, shape, prefix_tree, packed);
  REQUIRE(packed.tokens == std::vector<int32_t>{10, 11, 12, 13});
  REQUIRE(packed.parents == std::vector<int32_t>{-1, 0, 1, 2});
  for (int i = 0; i < shape.beam_width; ++i) REQUIRE(row_of(packed.unpacker, shape, i) == std::vector<int32_t>{0, 1, 2, 3});
  REQUIRE(compression_ratio(shape, packed) == Approx(5.0));
}

TEST_CASE("compression ratio at the extremes", "[beam_packing]") {
  const int BW = 6, BL = 5;
  const BeamShape shape{BW, BL};
  std::vector<int32_t> prefix_tree(static_cast<size_t>(BW * BL));
  PackedBeams packed;

  // Beams that share only the root: the root is verified once instead of BW times, so the
  // ratio is BW*BL / (1 + BW*(BL-1)), just above 1 — never exactly 1 for BW > 1.
  std::vector<int32_t> disjoint_after_root(static_cast<size_t>(BW * BL));
  for (int i = 0; i < BW; ++i)
    for (int j = 0; j < BL; ++j) disjoint_after_root[i * BL + j] = j == 0 ? 1 : 100 * (i + 1) + j;
  dedup_prefix(disjoint_after_root, shape, prefix_tree);
  pack_beams(disjoint_after_root, shape, prefix_tree, packed);
  REQUIRE(packed.size() == 1 + BW * (BL - 1));
  REQUIRE(compression_ratio(shape, packed) == Approx(double(BW * BL) / (1 + BW * (BL - 1))));

  // Disjoint from the root on (not a decoder input, but a valid one here): nothing shared.
  std::vector<int32_t> fully_disjoint = disjoint_after_root;
  for (int i = 0; i < BW; ++i) fully_disjoint[i * BL] = 1000 + i;
  dedup_prefix(fully_disjoint, shape, prefix_tree);
  pack_beams(fully_disjoint, shape, prefix_tree, packed);
  REQUIRE(packed.size() == BW * BL);
  REQUIRE(compression_ratio(shape, packed) == 1.0);

  // One beam, and tree attention off: always exactly 1.
  const BeamShape one_beam{1, BL};
  const std::vector<int32_t> first_beam(disjoint_after_root.begin(), disjoint_after_root.begin() + BL);
  std::vector<int32_t> one_prefix_tree(BL);
  dedup_prefix(first_beam, one_beam, one_prefix_tree);
  pack_beams(first_beam, one_beam, one_prefix_tree, packed);
  REQUIRE(compression_ratio(one_beam, packed) == 1.0);
  unpacked_beams(disjoint_after_root, shape, packed);
  REQUIRE(compression_ratio(shape, packed) == 1.0);
}

TEST_CASE("tree attention off: a forest of beam_width chains, each from its own root copy", "[beam_packing]") {
  std::mt19937 rng(99);
  for (const BeamShape shape : {BeamShape{3, 4}, BeamShape{1, 1}, BeamShape{7, 1}, BeamShape{45, 5}}) {
    const std::vector<int32_t> beams = random_beams(rng, shape, 3, /*shared_root=*/true);
    PackedBeams unpacked;
    unpacked_beams(beams, shape, unpacked);
    const int BW = shape.beam_width, BL = shape.beam_length;
    REQUIRE(unpacked.tokens == beams);
    REQUIRE(std::count(unpacked.parents.begin(), unpacked.parents.end(), -1) == BW);
    for (int32_t node = 0; node < unpacked.size(); ++node) REQUIRE(unpacked.unpacker[node] == node);

    // TokenTree handles the forest: depths restart at 0 in every chain (same positions as
    // packed), and no node of one beam is an ancestor of a node of another, even though
    // every chain starts with the same root token.
    const TokenTree tree = TokenTree::from_parents(unpacked.parents);
    for (int32_t a = 0; a < tree.size(); ++a) {
      REQUIRE(tree.depth[a] == a % BL);
      for (int32_t b = 0; b < tree.size(); ++b) {
        const bool same_chain_and_above = a / BL == b / BL && a % BL <= b % BL;
        INFO("nodes " << a << " and " << b);
        REQUIRE(tree.is_ancestor_or_self(a, b) == same_chain_and_above);
      }
    }
    for (int i = 0; i < BW; ++i) REQUIRE(tree.path_to(i * BL + BL - 1) == row_of(unpacked.unpacker, shape, i));
  }
}

TEST_CASE("packing reuses its storage once it has seen the largest shape", "[beam_packing]") {
  std::mt19937 rng(3);
  const BeamShape largest{64, 5};
  PackedBeams packed;
  std::vector<int32_t> prefix_tree(static_cast<size_t>(largest.beam_tokens()));
  const std::vector<int32_t> first = random_beams(rng, largest, 50, true);
  dedup_prefix(first, largest, prefix_tree);
  pack_beams(first, largest, prefix_tree, packed);

  const auto capacities = [&] { return std::vector<size_t>{packed.tokens.capacity(), packed.parents.capacity(), packed.unpacker.capacity()}; };
  const auto buffers = [&] { return std::vector<const int32_t*>{packed.tokens.data(), packed.parents.data(), packed.unpacker.data()}; };
  const std::vector<size_t> capacities_before = capacities();
  const std::vector<const int32_t*> buffers_before = buffers();
  for (int step = 0; step < 50; ++step) {
    const BeamShape shape{1 + static_cast<int>(rng() % 64), 1 + static_cast<int>(rng() % 5)};
    const std::vector<int32_t> beams = random_beams(rng, shape, 1 + static_cast<int>(rng() % 50), true);
    const std::span<int32_t> prefix_tree_view(prefix_tree.data(), beams.size());
    dedup_prefix(beams, shape, prefix_tree_view);
    pack_beams(beams, shape, prefix_tree_view, packed);
    if (step % 2 == 1) unpacked_beams(beams, shape, packed);
    REQUIRE(capacities() == capacities_before);  // growing would have raised a capacity
    REQUIRE(buffers() == buffers_before);
  }
}
