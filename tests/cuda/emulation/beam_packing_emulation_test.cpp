// The CUDA beam-packing block program, run by the grid emulator over a batch of beam sets,
// against dedup_prefix_reference and pack_beams: prefix_tree, tokens, parents and unpacker
// exactly, for widths and lengths from 1 to the kernel's limits.
#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <vector>

#include "kernels/beam/beam_packing.h"
#include "kernels/cuda/beam_packing_block.h"
#include "kernels/cuda/grid_emulator.h"
#include "tests/cuda/beam_packing_case.h"

using namespace draftbench;

TEST_CASE("emulated CUDA beam packing equals dedup_prefix and pack_beams", "[cuda-emulation]") {
  std::mt19937 rng(37);
  for (const auto& [width, length] : {std::pair{1, 1}, std::pair{1, 5}, std::pair{4, 3}, std::pair{8, 5}, std::pair{17, 4}, std::pair{64, 5}, std::pair{64, 8},
                                      std::pair{3, 64}, std::pair{64, 64}}) {
    const int64_t n_seqs = 3;
    const int n = width * length;
    const auto beams = test::shared_prefix_beams(n_seqs, width, length, rng);
    REQUIRE(cuda::beam_packing_supports(width, length));
    for (const auto order : {cuda::ThreadOrder::kForward, cuda::ThreadOrder::kReverse}) {
      std::vector<int32_t> prefix_tree(beams.size(), -5), tokens(beams.size(), -5), parents(beams.size(), -5), unpacker(beams.size(), -5);
      std::vector<int32_t> n_nodes(n_seqs, -5);
      const cuda::BeamPackingArgs args{beams.data(), width, length, prefix_tree.data(), tokens.data(), parents.data(), unpacker.data(), n_nodes.data()};
      const cuda::Launch launch = cuda::beam_packing_launch(n_seqs);
      cuda::emulate_blocks(
          launch.grid(), launch.block,
          [&](const cuda::EmulatedBlock& block) {
            auto shared = std::make_unique<cuda::BeamPackingShared>();
            cuda::beam_packing_block(block, args, *shared);
          },
          order);
      for (int64_t s = 0; s < n_seqs; ++s) {
        const auto [want_tree, want] = test::expected_packing(beams, s, width, length);
        INFO("width " << width << ", length " << length << ", sequence " << s);
        REQUIRE(std::vector<int32_t>(prefix_tree.begin() + s * n, prefix_tree.begin() + (s + 1) * n) == want_tree);
        REQUIRE(n_nodes[s] == want.size());
        REQUIRE(std::vector<int32_t>(tokens.begin() + s * n, tokens.begin() + s * n + want.size()) == want.tokens);
        REQUIRE(std::vector<int32_t>(parents.begin() + s * n, parents.begin() + s * n + want.size()) == want.parents);
        REQUIRE(std::vector<int32_t>(unpacker.begin() + s * n, unpacker.begin() + (s + 1) * n) == want.unpacker);
      }
    }
  }
  REQUIRE_FALSE(cuda::beam_packing_supports(65, 4));
  REQUIRE_FALSE(cuda::beam_packing_supports(4, 65));
  REQUIRE_FALSE(cuda::beam_packing_supports(0, 4));
}
