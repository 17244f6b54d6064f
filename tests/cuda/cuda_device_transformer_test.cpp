// The device forward pass on a GPU (make_cuda_kernels) against the same pass through the
// emulated kernels, on tiny Llamas with F32, F16 and BF16 weights (the cuBLASLt path) and,
// when DRAFTBENCH_MODEL names the default Gemma file, on its quantised products; and the
// GPU pass's batch invariance (each position alone gives the chain's bits). Skipped (exit
// 77) without a GPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/model/device_transformer.h"
#include "engine/model/model.h"
#include "tests/cuda/gpu_test_support.h"
#include "tests/support/logit_compare.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_llama.h"

using namespace draftbench;

namespace {

const std::vector<int32_t> kTokens = {1, 17, 42, 99, 150, 7, 230, 64, 12, 201};

// GPU against emulation within `tolerance` of the largest logit, same greedy choices, and
// every position stepped alone through the GPU cache equal to the chain's row.
void compare(const Model& m, double tolerance, const char* what, gpu_test::Mismatches& mismatches) {
  const ModelConfig& c = m.config();
  auto gpu_kernels = cuda::make_cuda_kernels();
  auto emulated = cuda::make_emulated_kernels();
  DeviceTransformer gpu(c, m.weights(), *gpu_kernels), host(c, m.weights(), *emulated);
  const auto got = test::chain_logits(gpu, c, kTokens), want = test::chain_logits(host, c, kTokens);
  const double relative = test::relative_difference(got, want);
  std::printf("%s: GPU vs emulation, relative difference %.3g\n", what, relative);
  mismatches.check(relative <= tolerance, what, 0, relative, tolerance);
  const int64_t V = c.n_vocab;
  KvCache cache(c, 1, 64, gpu_kernels.get());
  for (size_t r = 0; r < kTokens.size(); ++r) {
    auto top = [&](const std::vector<float>& l) { return std::max_element(l.begin() + r * V, l.begin() + (r + 1) * V) - l.begin(); };
    mismatches.check(top(got) == top(want), what, r, static_cast<double>(top(got)), static_cast<double>(top(want)));
    ForwardBatch b;
    b.sequences.push_back(SequenceInput{0, {kTokens[r]}, TokenTree::chain(1), {0}, {}});
    ForwardResult one;
    gpu.forward(b, cache, one);
    cache.commit_prefix(0, 1);
    mismatches.check(std::memcmp(one.logits.data(), got.data() + r * V, V * sizeof(float)) == 0, "batch invariance", r, one.logits[0], got[r * V]);
  }
}

}  // namespace

int main() {
  gpu_test::skip_without_device();
  gpu_test::Mismatches mismatches;
  // The GPU's expf/sinf/cosf differ from glibc's by a few ulps, and cuBLASLt sums in its
  // own order: float rounding, amplified where activations are rounded to f16/bf16.
  for (const auto& [dtype, tolerance] : {std::pair{GgmlType::F32, 1e-4}, std::pair{GgmlType::F16, 5e-3}, std::pair{GgmlType::BF16, 3e-2}}) {
    test::TempDir dir(std::string("cuda_device_tf_") + std::string(ggml_type_name(dtype)));
    const test::TinyLlama tiny = test::make_tiny_llama();
    test::write_hf_checkpoint(dtype == GgmlType::F32 ? tiny : test::rounded_to(tiny, dtype), dir.str(), test::HfWriteOptions{dtype});
    compare(*Model::load(dir.str()), tolerance, std::string(ggml_type_name(dtype)).c_str(), mismatches);
  }
  // Quantised activations turn ulps into flipped int8 codes (see the emulated Gemma test).
  if (const char* path = std::getenv("DRAFTBENCH_MODEL")) compare(*Model::load(path), 0.1, "gemma", mismatches);
  return mismatches.finish("device_transformer");
}
