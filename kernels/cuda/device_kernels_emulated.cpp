// DeviceKernels on the CPU: each call runs its CUDA kernel's body through the grid
// emulator with the launch shape the CUDA entry point uses (the *_launch functions beside
// the bodies), over host memory, refusing the shapes the GPU would refuse.
#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#include "kernels/cuda/device_kernels.h"
#include "kernels/cuda/quant_matvec_block.h"
#include "kernels/cuda/rms_norm_block.h"
#include "kernels/cuda/tree_attention_block.h"
#include "kernels/quant/dequantize.h"
#include "kernels/quant/quantize_activation.h"
#include "kernels/quant/vec_dot.h"

namespace draftbench::cuda {
namespace {

class EmulatedKernels final : public DeviceKernels {
 public:
  explicit EmulatedKernels(ThreadOrder order) : order_(order) {}
  std::string describe() const override { return "emulated"; }

  void* allocate(size_t bytes) override { return ::operator new (bytes > 0 ? bytes : 1, std::align_val_t{64}); }
  void release(void* p) noexcept override { ::operator delete (p, std::align_val_t{64}); }
  // Zero-byte transfers may carry null pointers (an empty buffer), which memcpy may not be given.
  void upload(void* device, const void* host, size_t bytes) override {
    if (bytes > 0) std::memcpy(device, host, bytes);
  }
  void download(void* host, const void* device, size_t bytes) override {
    if (bytes > 0) std::memcpy(host, device, bytes);
  }
  void copy(void* dst, const void* src, size_t bytes) override {
    if (bytes > 0) std::memmove(dst, src, bytes);
  }

  void rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps) override {
    if (n_rows == 0) return;
    const RmsNormArgs args{x, weight, out, n, eps};
    blocks("rms_norm", rms_norm_launch(n_rows), [&](const EmulatedBlock& block) {
      RmsNormShared shared{};
      rms_norm_block(block, args, shared);
    });
  }

  void rope(RopePairing pairing, float* x, int64_t n_tokens, int64_t token_stride, const int64_t* positions, int n_heads, int head_dim, float base) override {
    if (n_tokens == 0 || n_heads == 0 || head_dim < 2) return;
    const RopeArgs args{x, token_stride, positions, n_heads, head_dim, rope_theta_scale(base, head_dim), pairing};
    threads("rope", rope_launch(n_tokens, n_heads, head_dim), [&](Dim3 b, Dim3 t) { rope_thread(args, b, t); });
  }

  void gated_activation(GateFunction function, const float* gate, const float* up, float* out, int64_t n) override {
    if (n == 0) return;
    const GatedActivationArgs args{gate, up, out, n, function};
    threads("gated_activation", gated_activation_launch(n), [&](Dim3 b, Dim3 t) { gated_activation_thread(args, b, t); });
  }

  void elementwise(ElementwiseOp op, const float* x, void* out, int64_t n) override {
    if (n == 0) return;
    const ElementwiseArgs args{x, out, n, op};
    threads("elementwise", elementwise_launch(n), [&](Dim3 b, Dim3 t) { elementwise_thread(args, b, t); });
  }

  void add_row_bias(const float* bias, float* y, int64_t n_rows, int64_t width) override {
    if (n_rows == 0 || width == 0) return;
    const RowBiasArgs args{bias, y, width, n_rows};
    threads("row_bias", elementwise_launch(n_rows * width), [&](Dim3 b, Dim3 t) { row_bias_thread(args, b, t); });
  }

  void gather_rows(const float* x, int64_t width, const int64_t* rows, int64_t n_rows, float* out) override {
    if (n_rows == 0 || width == 0) return;
    const GatherRowsArgs args{x, rows, width, n_rows, out};
    threads("gather_rows", elementwise_launch(n_rows * width), [&](Dim3 b, Dim3 t) { gather_rows_thread(args, b, t); });
  }

  void quantize_rows(GgmlType weight_type, const float* x, int64_t x_stride, int64_t n_rows, int64_t n, void* xq) override {
    if (n_rows == 0) return;
    const QuantizeActivationArgs args{x, x_stride, n_rows, n, xq, activation_row_bytes(weight_type, n), activation_blocks_for(weight_type)};
    threads("quantize_activation", quantize_activation_launch(args), [&](Dim3 b, Dim3 t) { quantize_activation_thread(args, b, t); });
  }

  void quant_matvec(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n_x, int64_t n, float* y) override {
    const bool known = visit_quant_dot(type, [&](auto dot) {
      using Dot = decltype(dot);
      if (n % Dot::kValues != 0) throw std::runtime_error(fmt::format("{}: {} values is not a whole number of blocks", Dot::kRange, n));
      if (n_rows == 0 || n_x == 0) return;
      const QuantMatvecArgs args{w, w_stride, n_rows, static_cast<const uint8_t*>(xq), activation_row_bytes(type, n), n_x, n / Dot::kValues, y};
      blocks(Dot::kRange, quant_matvec_launch(n_rows, n_x), [&](const EmulatedBlock& block) {
        auto shared = std::make_unique<QuantMatvecShared<Dot>>();
        quant_matvec_block<Dot>(block, args, *shared);
      });
    });
    if (!known) throw std::runtime_error(fmt::format("quant_matvec: no device product for {}", ggml_type_name(type)));
  }

  // cuBLAS cannot run here: the reference product, one row at a time, on the activations
  // as rounded to the weight's type (exactly what the GPU multiplies, in another order).
  // Where that rounding is the CPU product's own activation format (BF16: vdpbf16ps's
  // operands) the row goes in as it is; otherwise (F32, F16) widened to the f32 the CPU
  // product takes.
  void gemm(GgmlType type, const void* w, int64_t n_out, int64_t n_in, const void* x, int64_t n_x, float* y) override {
    if (!device_gemm_supports(type)) throw std::runtime_error(fmt::format("gemm: no device product for {}", ggml_type_name(type)));
    std::vector<float> row(static_cast<size_t>(n_in));
    const size_t x_row_bytes = ggml_row_bytes(type, n_in);
    const bool as_rounded = activation_type_for(type) == type;
    for (int64_t r = 0; r < n_x; ++r) {
      const uint8_t* x_row = static_cast<const uint8_t*>(x) + static_cast<size_t>(r) * x_row_bytes;
      if (!as_rounded) dequantize_row(type, x_row, row.data(), n_in);
      dot_rows_ref(type, static_cast<const uint8_t*>(w), x_row_bytes, n_out, as_rounded ? static_cast<const void*>(x_row) : row.data(), n_in, y + r * n_out);
    }
  }

  void tree_attention(const AttentionShape& shape, const float* q, int64_t q_stride, const float* k_cache, const float* v_cache, int64_t kv_stride,
                      int64_t n_committed, const TreeView& tree, float* out, int64_t out_stride) override {
    if (!tree_attention_supports(shape))
      throw std::runtime_error(
          fmt::format("tree_attention: unsupported head shape ({} heads, {} kv heads, head_dim {})", shape.n_heads, shape.n_kv_heads, shape.head_dim));
    if (tree.n_nodes == 0 || shape.n_heads == 0) return;
    const TreeAttentionArgs args{shape, q, q_stride, k_cache, v_cache, kv_stride, n_committed, tree, out, out_stride};
    blocks("tree_attention", tree_attention_launch(shape, tree.n_nodes), [&](const EmulatedBlock& block) {
      auto shared = std::make_unique<TreeAttentionShared>();
      tree_attention_block(block, args, *shared);
    });
  }

 private:
  static void check(const char* kernel, const Launch& launch) {
    if (!launch.fits()) throw std::runtime_error(fmt::format("{}: grid {} x {} is outside CUDA's limits", kernel, launch.grid_x, launch.grid_y));
  }
  template <class Program>
  void blocks(const char* kernel, const Launch& launch, Program&& program) const {
    check(kernel, launch);
    emulate_blocks(launch.grid(), launch.block, program, order_);
  }
  template <class Body>
  void threads(const char* kernel, const Launch& launch, Body&& body) const {
    check(kernel, launch);
    emulate_grid(launch.grid(), launch.block, body, order_);
  }

  ThreadOrder order_;
};

}  // namespace

std::unique_ptr<DeviceKernels> make_emulated_kernels(ThreadOrder order) { return std::make_unique<EmulatedKernels>(order); }

#if !defined(DRAFTBENCH_HAVE_CUDA)
std::unique_ptr<DeviceKernels> make_cuda_kernels() { throw std::runtime_error("this build has no CUDA (nvcc was not found at configure time)"); }
#endif

}  // namespace draftbench::cuda
