// CUDA dedup_prefix + pack_beams against the CPU functions, exactly; skipped (exit 77)
// without a GPU.
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/beam/beam_packing.h"
#include "kernels/cuda/beam_packing_cuda.h"
#include "tests/cuda/beam_packing_case.h"
#include "tests/cuda/gpu_test_support.h"

using namespace draftbench;

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  std::mt19937 rng(43);
  for (const auto& [width, length] : {std::pair{1, 1}, std::pair{8, 5}, std::pair{64, 5}, std::pair{64, 64}}) {
    const int64_t n_seqs = 4;
    const int n = width * length;
    const auto beams = test::shared_prefix_beams(n_seqs, width, length, rng);
    const std::vector<int32_t> zeros(beams.size());
    gpu_test::DeviceBuffer<int32_t> dbeams(beams), dtree(zeros), dtokens(zeros), dparents(zeros), dunpacker(zeros),
        dn{std::vector<int32_t>(static_cast<size_t>(n_seqs))};
    gpu_test::check_cuda(cuda::pack_beams(dbeams.data(), n_seqs, width, length, dtree.data(), dtokens.data(), dparents.data(), dunpacker.data(), dn.data()),
                         "pack_beams launch");
    const auto tree = dtree.download(), tokens = dtokens.download(), parents = dparents.download(), unpacker = dunpacker.download(), n_nodes = dn.download();
    for (int64_t s = 0; s < n_seqs; ++s) {
      const auto [want_tree, want] = test::expected_packing(beams, s, width, length);
      mismatches.check(n_nodes[static_cast<size_t>(s)] == want.size(), "n_nodes", static_cast<size_t>(s), n_nodes[static_cast<size_t>(s)], want.size());
      for (int p = 0; p < n; ++p) {
        const size_t at = static_cast<size_t>(s * n + p);
        mismatches.check(tree[at] == want_tree[static_cast<size_t>(p)], "prefix_tree", at, tree[at], want_tree[static_cast<size_t>(p)]);
        mismatches.check(unpacker[at] == want.unpacker[static_cast<size_t>(p)], "unpacker", at, unpacker[at], want.unpacker[static_cast<size_t>(p)]);
      }
      for (int32_t v = 0; v < want.size(); ++v) {
        const size_t at = static_cast<size_t>(s * n + v);
        mismatches.check(tokens[at] == want.tokens[static_cast<size_t>(v)], "tokens", at, tokens[at], want.tokens[static_cast<size_t>(v)]);
        mismatches.check(parents[at] == want.parents[static_cast<size_t>(v)], "parents", at, parents[at], want.parents[static_cast<size_t>(v)]);
      }
    }
  }
  return mismatches.finish("pack_beams");
}
