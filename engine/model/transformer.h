// The decoder-only transformer forward pass (transformer_layer.h's block) over a batch of
// token trees, reading weights in their stored format. Batch-invariant: every kernel it
// calls computes a row independently of the others, so a token's logits are bit-identical
// whether it runs alone, in a batch, or inside a tree.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/forward_pass.h"
#include "engine/model/forward_rows.h"
#include "kernels/matmul/picked_rows.h"
#include "kernels/runtime/huge_page_buffer.h"

namespace draftbench {

// kFastest: the LM head in kernels/matmul/weight_repack.h's head layout where this CPU has
// one (its own float contract: logits differ from the file layout's in the last bits).
// kFile: the file's layout, whose contract the device pass shares; for a second pass over
// the same head (EAGLE's draft layer) whose products go through draft vocabularies.
enum class HeadLayout { kFastest, kFile };

class Transformer final : public ForwardPass {
 public:
  Transformer(const ModelConfig& config, const ModelWeights& weights, ThreadPool& pool, HeadLayout head = HeadLayout::kFastest);

  // As ForwardPass::forward, and more than the device pass takes: nodes below a
  // sequence's n_cached are not run (their K/V are already in scratch); given
  // input_embeddings replace the token embeddings; a layer without attn_norm and weights
  // without output_norm skip those norms (EAGLE's draft layer).
  void forward(const ForwardBatch& batch, KvCache& cache, ForwardResult& result) override;
  void logits_from_hidden(const float* hidden, int64_t n, float* logits) override;
  // kernels/matmul/matmul_argmax.h over the LM head: no logit row is written.
  void argmax_from_hidden(const float* hidden, int64_t n, int32_t* ids) override;
  std::string describe() const override { return "cpu"; }

 private:
  class LayerOps;  // run_transformer_layer's ops over this pass's buffers (transformer.cpp)
  void ensure_buffers(int64_t n_rows, size_t score_floats);
  void compute_rope_angles(const std::vector<ForwardRow>& rows);
  // Local layers have angles of their own only with a base of their own (Gemma 3, not Llama).
  bool separate_local_angles() const { return c_.rope_base_local != c_.rope_base; }
  std::span<uint8_t> scratch(const WeightMatrix& w, int64_t n_x);

  const ModelConfig& c_;
  const ModelWeights& w_;
  ThreadPool& pool_;
  // The layers' matrices as the products take them: w_'s, with those that run faster in
  // another layout (kernels/matmul/weight_repack.h) repacked into repacked_ once, on huge
  // pages as the head's copy (with 4 KiB ones, a TLB miss every 4 KiB of the stream).
  std::vector<LayerWeights> layers_;
  HugePageBuffer repacked_;
  WeightMatrix head_;  // w_.output, or its copy in the head layout in head_buffer_
  HugePageBuffer head_buffer_;
  PickedRows subset_rows_;  // the last vocabulary subset's rows of the head, where it applies
  // Activations, sized for the largest batch seen; grown only when a larger one comes.
  int64_t capacity_rows_ = 0;
  Activations<std::vector<float>> a_;
  std::vector<float> scores_;
  std::vector<uint8_t> quant_scratch_;
  // RoPE's cos and sin per row of this forward, [base][row][head_dim / 2] with base 0 the
  // global layers' and 1, if separate, the local (sliding-window) layers': computed once,
  // used by every layer.
  std::vector<float> rope_cos_, rope_sin_;
  std::vector<ForwardRow> rows_;
  std::vector<int64_t> wanted_;  // rows whose hidden states or logits were asked for
  std::vector<float> picked_;
};

}  // namespace draftbench
