// DeviceKernels on the CPU: each call runs its CUDA kernel's body through the grid
// emulator with the launch shape the .cu file uses, over host memory.
#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#include "kernels/cuda/device_kernels.h"
#include "kernels/cuda/grid_emulator.h"
#include "kernels/cuda/quant_layout.h"
#include "kernels/cuda/quant_matvec_block.h"
#include "kernels/cuda/quantize_activation_thread.h"
#include "kernels/cuda/rms_norm_block.h"
#include "kernels/cuda/tree_attention_block.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"

namespace draftbench::cuda {
namespace {

unsigned blocks_for(int64_t n, unsigned per_block) { return static_cast<unsigned>((n + per_block - 1) / per_block); }

template <class Dot>
void emulate_quant_matvec(const QuantMatvecArgs& args) {
  emulate_blocks(Dim3{blocks_for(args.n_rows, kQuantRowsPerBlock)}, Dim3{kWarpLanes, kQuantRowsPerBlock}, [&](const EmulatedBlock& block) {
    auto shared = std::make_unique<QuantMatvecShared<Dot>>();
    quant_matvec_block<Dot>(block, args, *shared);
  });
}

class EmulatedKernels final : public DeviceKernels {
 public:
  const char* name() const override { return "emulated"; }

  void* allocate(size_t bytes) override { return ::operator new(bytes > 0 ? bytes : 1, std::align_val_t{64}); }
  void release(void* p) noexcept override { ::operator delete(p, std::align_val_t{64}); }
  void upload(void* device, const void* host, size_t bytes) override { std::memcpy(device, host, bytes); }
  void download(void* host, const void* device, size_t bytes) override { std::memcpy(host, device, bytes); }
  void copy(void* dst, const void* src, size_t bytes) override { std::memmove(dst, src, bytes); }

  void rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps) override {
    const RmsNormArgs args{x, weight, out, n, eps};
    emulate_blocks(Dim3{static_cast<unsigned>(n_rows)}, Dim3{kRmsNormThreads}, [&](const EmulatedBlock& block) {
      RmsNormShared shared{};
      rms_norm_block(block, args, shared);
    });
  }

  void rope(RopePairing pairing, float* x, int64_t n_tokens, int64_t token_stride, const int64_t* positions, int n_heads, int head_dim,
            float base) override {
    const RopeArgs args{x, token_stride, positions, n_heads, head_dim, rope_theta_scale(base, head_dim), pairing};
    const int64_t pairs = static_cast<int64_t>(n_heads) * (head_dim / 2);
    emulate_grid(Dim3{blocks_for(pairs, kRopeThreads), static_cast<unsigned>(n_tokens)}, Dim3{kRopeThreads},
                 [&](Dim3 b, Dim3 t) { rope_thread(args, b, t); });
  }

  void gated_activation(GateFunction function, const float* gate, const float* up, float* out, int64_t n) override {
    const GatedActivationArgs args{gate, up, out, n, function};
    emulate_grid(Dim3{blocks_for(n, kGatedActivationThreads)}, Dim3{kGatedActivationThreads},
                 [&](Dim3 b, Dim3 t) { gated_activation_thread(args, b, t); });
  }

  void elementwise(ElementwiseOp op, const float* x, void* out, int64_t n) override {
    const ElementwiseArgs args{x, out, n, op};
    emulate_grid(Dim3{blocks_for(n, kElementwiseThreads)}, Dim3{kElementwiseThreads}, [&](Dim3 b, Dim3 t) { elementwise_thread(args, b, t); });
  }

  void quantize_rows(GgmlType weight_type, const float* x, int64_t x_stride, int64_t n_rows, int64_t n, void* xq) override {
    const QuantizeActivationArgs args{x, x_stride, n_rows, n, xq, activation_row_bytes(weight_type, n), activation_blocks_for(weight_type)};
    const int64_t blocks = n / (args.blocks == ActivationBlocks::kQ8_0 ? 32 : QK_K);
    emulate_grid(Dim3{blocks_for(blocks, kQuantizeThreads), static_cast<unsigned>(n_rows)}, Dim3{kQuantizeThreads},
                 [&](Dim3 b, Dim3 t) { quantize_activation_thread(args, b, t); });
  }

  void quant_matvec(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y) override {
    QuantMatvecArgs args{w, w_stride, n_rows, xq, 0, y};
    switch (type) {
      case GgmlType::Q8_0: args.n_blocks = n / Q8_0Dot::kValues; return emulate_quant_matvec<Q8_0Dot>(args);
      case GgmlType::Q5_0: args.n_blocks = n / Q5_0Dot::kValues; return emulate_quant_matvec<Q5_0Dot>(args);
      case GgmlType::Q4_K: args.n_blocks = n / Q4_KDot::kValues; return emulate_quant_matvec<Q4_KDot>(args);
      case GgmlType::Q6_K: args.n_blocks = n / Q6_KDot::kValues; return emulate_quant_matvec<Q6_KDot>(args);
      default: throw std::runtime_error(fmt::format("quant_matvec: no device product for {}", ggml_type_info(type).name));
    }
  }

  // cuBLAS cannot run here: the reference product, one row at a time, on the activations
  // as rounded to the weight's type (exactly what the GPU multiplies, in another order).
  void gemm(GgmlType type, const void* w, int64_t n_out, int64_t n_in, const void* x, int64_t n_x, float* y) override {
    if (!device_gemm_supports(type)) throw std::runtime_error(fmt::format("gemm: no device product for {}", ggml_type_info(type).name));
    std::vector<float> row(static_cast<size_t>(n_in));
    for (int64_t r = 0; r < n_x; ++r) {
      for (int64_t i = 0; i < n_in; ++i) {
        if (type == GgmlType::F32) row[i] = static_cast<const float*>(x)[r * n_in + i];
        else {
          const uint16_t h = static_cast<const uint16_t*>(x)[r * n_in + i];
          row[i] = type == GgmlType::F16 ? half_to_float(h) : float_from_bits(static_cast<uint32_t>(h) << 16);
        }
      }
      dot_rows_ref(type, static_cast<const uint8_t*>(w), ggml_row_bytes(type, n_in), n_out, row.data(), n_in, y + r * n_out);
    }
  }

  void tree_attention(const AttentionShape& shape, const float* q, int64_t q_stride, const float* k_cache, const float* v_cache,
                      int64_t kv_stride, int64_t n_committed, const TreeView& tree, float* out, int64_t out_stride) override {
    if (shape.head_dim <= 0 || shape.head_dim > kTreeAttentionMaxHeadDim || shape.n_kv_heads <= 0 || shape.n_heads % shape.n_kv_heads != 0)
      throw std::runtime_error(fmt::format("tree_attention: unsupported head shape ({} heads, {} kv heads, head_dim {})", shape.n_heads,
                                           shape.n_kv_heads, shape.head_dim));
    const TreeAttentionArgs args{shape, q, q_stride, k_cache, v_cache, kv_stride, n_committed, tree, out, out_stride};
    emulate_blocks(Dim3{static_cast<unsigned>(shape.n_heads), static_cast<unsigned>(tree.n_nodes)}, Dim3{kTreeAttentionThreads},
                   [&](const EmulatedBlock& block) {
                     auto shared = std::make_unique<TreeAttentionShared>();
                     tree_attention_block(block, args, *shared);
                   });
  }
};

}  // namespace

std::unique_ptr<DeviceKernels> make_emulated_kernels() { return std::make_unique<EmulatedKernels>(); }

#if !defined(DRAFTBENCH_HAVE_CUDA)
std::unique_ptr<DeviceKernels> make_cuda_kernels() { throw std::runtime_error("this build has no CUDA (nvcc was not found at configure time)"); }
#endif

}  // namespace draftbench::cuda
