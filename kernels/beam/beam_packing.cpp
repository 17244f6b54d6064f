#include "kernels/beam/beam_packing.h"

#include <map>

#include "kernels/runtime/check.h"

namespace draftbench {

namespace {

void check_beams(std::span<const int32_t> beams, BeamShape shape) {
  DB_CHECK(shape.beam_width >= 1 && shape.beam_length >= 1);
  DB_CHECK(beams.size() == static_cast<size_t>(shape.beam_tokens()));
}

}  // namespace

void dedup_prefix(std::span<const int32_t> beams, BeamShape shape, std::span<int32_t> prefix_tree) {
  check_beams(beams, shape);
  DB_CHECK(prefix_tree.size() == beams.size());
  const int beam_length = shape.beam_length;
  for (int i = 0; i < shape.beam_width; ++i) {
    const int32_t* beam = beams.data() + static_cast<size_t>(i) * beam_length;
    int32_t* owner = prefix_tree.data() + static_cast<size_t>(i) * beam_length;
    // Beam k matches beam i up to position j iff their common prefix is longer than j, so
    // owner[j] is the first k whose common prefix passes j. A longer prefix has fewer
    // matching beams, so owner[] is non-decreasing: scanning k upwards, each k can only
    // claim positions past those already claimed, and once all are claimed we can stop.
    int claimed = 0;
    for (int k = 0; k < i && claimed < beam_length; ++k) {
      const int32_t* other = beams.data() + static_cast<size_t>(k) * beam_length;
      int common = 0;
      while (common < beam_length && other[common] == beam[common]) ++common;
      for (; claimed < common; ++claimed) owner[claimed] = k;
    }
    for (; claimed < beam_length; ++claimed) owner[claimed] = i;
  }
}

std::vector<int32_t> dedup_prefix_reference(std::span<const int32_t> beams, BeamShape shape) {
  check_beams(beams, shape);
  std::vector<int32_t> prefix_tree(beams.size());
  std::map<std::vector<int32_t>, int32_t> first_beam_with_prefix;
  for (int i = 0; i < shape.beam_width; ++i) {
    std::vector<int32_t> prefix;
    for (int j = 0; j < shape.beam_length; ++j) {
      const size_t at = static_cast<size_t>(i) * shape.beam_length + j;
      prefix.push_back(beams[at]);
      prefix_tree[at] = first_beam_with_prefix.try_emplace(prefix, i).first->second;
    }
  }
  return prefix_tree;
}

void pack_beams(std::span<const int32_t> beams, BeamShape shape, std::span<const int32_t> prefix_tree, PackedBeams& out) {
  check_beams(beams, shape);
  DB_CHECK(prefix_tree.size() == beams.size());
  const int beam_length = shape.beam_length;
  const size_t beam_tokens = beams.size();
  // reserve() is a no-op once the vectors have held this many nodes; clear() keeps the
  // capacity, so the steady state never allocates.
  out.tokens.reserve(beam_tokens);
  out.parents.reserve(beam_tokens);
  out.tokens.clear();
  out.parents.clear();
  out.unpacker.resize(beam_tokens);
  for (int i = 0; i < shape.beam_width; ++i) {
    const size_t row = static_cast<size_t>(i) * beam_length;
    for (int j = 0; j < beam_length; ++j) {
      const int32_t owner = prefix_tree[row + j];
      DB_CHECK(owner >= 0 && owner <= i);
      if (owner == i) {
        // Beam i is the first with this prefix: a new node under the node of (i, j - 1),
        // which is either beam i's previous new node or an earlier beam's node, so it
        // already has an index and that index is smaller.
        out.unpacker[row + j] = static_cast<int32_t>(out.tokens.size());
        out.tokens.push_back(beams[row + j]);
        out.parents.push_back(j == 0 ? -1 : out.unpacker[row + j - 1]);
      } else {
        // An earlier beam owns this prefix; its node exists only if it owns it itself.
        const size_t owner_at = static_cast<size_t>(owner) * beam_length + j;
        DB_CHECK(prefix_tree[owner_at] == owner);
        out.unpacker[row + j] = out.unpacker[owner_at];
      }
    }
  }
}

void unpacked_beams(std::span<const int32_t> beams, BeamShape shape, PackedBeams& out) {
  check_beams(beams, shape);
  out.tokens.assign(beams.begin(), beams.end());
  out.parents.resize(beams.size());
  out.unpacker.resize(beams.size());
  for (size_t node = 0; node < beams.size(); ++node) {
    const bool starts_chain = node % static_cast<size_t>(shape.beam_length) == 0;
    out.parents[node] = starts_chain ? -1 : static_cast<int32_t>(node) - 1;
    out.unpacker[node] = static_cast<int32_t>(node);
  }
}

double compression_ratio(BeamShape shape, const PackedBeams& packed) {
  DB_CHECK(packed.unpacker.size() == static_cast<size_t>(shape.beam_tokens()));
  DB_CHECK(!packed.tokens.empty());
  return static_cast<double>(shape.beam_tokens()) / static_cast<double>(packed.tokens.size());
}

}  // namespace draftbench
