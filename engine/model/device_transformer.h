// The transformer forward pass on a device (kernels/cuda/device_kernels.h: a GPU, or the
// CPU emulation of its kernels). Same contract as the CPU Transformer (transformer.h),
// with the weights copied to the device once, at construction, and the K/V in a device
// KvCache (KvCache(..., &device)); only the wanted hidden states and logits come back.
//
// What differs from the CPU pass, and why:
//   * token embeddings are looked up on the host (one row per token, read from the mapped
//     file) and uploaded: cheaper than a dequantising gather kernel per weight type;
//   * float (F32/F16/BF16) weights multiply through cuBLASLt with activations rounded to
//     the weight's type, so those logits are not the CPU's bits; quantised weights go
//     through the block products, bit-identical to the CPU's given the same inputs;
//   * incremental trees (n_cached > 0, EAGLE's draft layer) are the CPU pass's alone.
// It is batch-invariant like the CPU pass: every kernel computes a row on its own
// (activations are quantised per row, and each product is formed from its own activation
// row alone or through a pinned cuBLASLt algorithm), so lossless decoding holds on the
// device too.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "engine/model/forward_pass.h"
#include "engine/model/forward_rows.h"
#include "kernels/cuda/device_kernels.h"

namespace draftbench {

class DeviceTransformer final : public ForwardPass {
 public:
  // Throws InputError naming a weight whose type has no device product.
  DeviceTransformer(const ModelConfig& config, const ModelWeights& weights, cuda::DeviceKernels& device);
  // The same, owning the kernels (make_forward_pass).
  DeviceTransformer(const ModelConfig& config, const ModelWeights& weights, std::unique_ptr<cuda::DeviceKernels> device);

  void forward(const ForwardBatch& batch, KvCache& cache, ForwardResult& result) override;
  void logits_from_hidden(const float* hidden, int64_t n, float* logits) override;
  // The device has no fused LM-head argmax: the full rows come down (logits_from_hidden)
  // and the host's argmax reads them.
  void argmax_from_hidden(const float* hidden, int64_t n, int32_t* ids) override;
  cuda::DeviceKernels* device() const override { return &device_; }
  std::string describe() const override { return device_.describe(); }

 private:
  struct Matrix {
    WeightMatrix shape;  // type and dimensions (data null: the bytes are in `data`)
    cuda::DeviceBuffer data;
  };
  struct Layer {
    cuda::DeviceBuffer attn_norm, bq, bk, bv, q_norm, k_norm, post_attn_norm, ffn_norm, post_ffn_norm;  // empty: absent
    Matrix wq, wk, wv, wo, w_gate, w_up, w_down;
  };
  Matrix upload_matrix(const WeightMatrix& w, const char* name, int64_t layer);
  cuda::DeviceBuffer upload_vector(const float* v, int64_t n);
  void ensure_buffers(int64_t n_rows);
  struct Product {
    const Matrix& w;
    float* y;  // [n_x][w.n_out]
  };
  // y = x W^T for each product, all reading the rows x.
  void matmul(const float* x, int64_t n_x, std::initializer_list<Product> products);
  class LayerOps;  // run_transformer_layer's ops over this pass's buffers (device_transformer.cpp)
  void upload_rows(const ForwardBatch& batch, const std::vector<ForwardRow>& rows);
  void logits_of_picked(int64_t n, float* logits);

  const ModelConfig& c_;
  const ModelWeights& w_;
  std::unique_ptr<cuda::DeviceKernels> owned_device_;  // when constructed owning it
  cuda::DeviceKernels& device_;
  std::vector<Layer> layers_;
  Matrix output_;
  cuda::DeviceBuffer output_norm_;

  // Activations, sized for the largest batch seen.
  int64_t capacity_rows_ = 0;
  Activations<cuda::DeviceBuffer> a_;
  cuda::DeviceBuffer quantised_, rounded_;  // a product's activations as it multiplies them
  cuda::DeviceBuffer positions_, trees_;    // per row; per sequence (dfs_start, dfs_end, depth)
  cuda::DeviceBuffer picked_, logits_;
  cuda::DeviceBuffer wanted_rows_;  // the wanted rows' indices, for the gather
  // Host staging, reused from forward to forward.
  std::vector<ForwardRow> rows_;
  std::vector<int64_t> wanted_;   // rows whose hidden states or logits were asked for
  std::vector<float> host_rows_;  // embeddings going up, full logit rows coming down (also for argmax_from_hidden)
  std::vector<int64_t> host_positions_;
  std::vector<int32_t> host_trees_;    // per sequence: dfs_start, dfs_end, depth
  std::vector<int64_t> tree_offsets_;  // where each sequence's tree starts in host_trees_ / trees_
};

}  // namespace draftbench
