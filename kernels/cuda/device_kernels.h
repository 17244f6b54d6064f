// The kernels a transformer forward pass runs on a device, behind one interface with two
// implementations:
//   * make_cuda_kernels(): the CUDA launches of kernels/cuda (and cuBLAS), on a GPU;
//   * make_emulated_kernels(): the same block and thread bodies run on the CPU by the
//     grid emulator, over host memory.
// Code written against it (the engine's DeviceTransformer) therefore runs, and is tested,
// here without a GPU, through the very index logic the GPU executes; only the launch
// itself and cuBLAS differ (the emulation multiplies float weights with the reference
// product on the same rounded activations).
//
// All pointers are device pointers except upload's source and download's destination.
// Kernels run in issue order; download waits for everything issued before it. Every
// failure throws std::runtime_error naming the kernel and the CUDA error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "kernels/attention/tree_attention.h"
#include "kernels/cuda/elementwise_thread.h"
#include "kernels/cuda/gemm_cublas.h"
#include "kernels/cuda/gated_activation_thread.h"
#include "kernels/cuda/grid_emulator.h"
#include "kernels/cuda/quant_block_dot.h"
#include "kernels/cuda/quantize_activation_thread.h"
#include "kernels/cuda/rope_thread.h"
#include "kernels/quant/ggml_type.h"
#include "kernels/quant/quantize_activation.h"

namespace draftbench::cuda {

class DeviceKernels {
 public:
  virtual ~DeviceKernels() = default;
  // "emulated", or the GPU: "cuda: NVIDIA A100-SXM4-80GB (sm_80, 79.2 GiB)".
  virtual std::string describe() const = 0;

  virtual void* allocate(size_t bytes) = 0;
  virtual void release(void* p) noexcept = 0;
  virtual void upload(void* device, const void* host, size_t bytes) = 0;
  virtual void download(void* host, const void* device, size_t bytes) = 0;
  virtual void copy(void* dst, const void* src, size_t bytes) = 0;  // device to device

  // Reference: kernels/ops/rms_norm.h (weight may be null; out may equal x).
  virtual void rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps) = 0;
  // Token t of x at x + t * token_stride, position positions[t]; kernels/ops/rope.h.
  virtual void rope(RopePairing pairing, float* x, int64_t n_tokens, int64_t token_stride, const int64_t* positions, int n_heads, int head_dim, float base) = 0;
  virtual void gated_activation(GateFunction function, const float* gate, const float* up, float* out, int64_t n) = 0;
  // out[i] += x[i] (kAdd), or x rounded into the f16 / bf16 array out.
  virtual void elementwise(ElementwiseOp op, const float* x, void* out, int64_t n) = 0;
  // y[r][i] += bias[i] for n_rows rows of `width` floats.
  virtual void add_row_bias(const float* bias, float* y, int64_t n_rows, int64_t width) = 0;
  // Row r of out = row rows[r] of x, rows of `width` floats (rows: a device array).
  virtual void gather_rows(const float* x, int64_t width, const int64_t* rows, int64_t n_rows, float* out) = 0;

  // Each row of x (x_stride floats apart) as quantize_activation_row(weight_type, ...)
  // writes it, rows activation_row_bytes(weight_type, n) apart in xq.
  virtual void quantize_rows(GgmlType weight_type, const float* x, int64_t x_stride, int64_t n_rows, int64_t n, void* xq) = 0;
  // y[x * n_rows + r] = row r of w . activation row x of xq (the rows quantize_rows wrote),
  // each bit-identical to dot_rows_ref on that activation row alone.
  virtual void quant_matvec(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n_x, int64_t n, float* y) = 0;
  // y [n_x][n_out] = x W^T for F32/F16/BF16 weights, x already in the weight's type;
  // batch-invariant (kernels/cuda/gemm_cublas.h).
  virtual void gemm(GgmlType type, const void* w, int64_t n_out, int64_t n_in, const void* x, int64_t n_x, float* y) = 0;

  // kernels/cuda/tree_attention_cuda.h; the tree's arrays are device pointers too.
  virtual void tree_attention(const AttentionShape& shape, const float* q, int64_t q_stride, const float* k_cache, const float* v_cache, int64_t kv_stride,
                              int64_t n_committed, const TreeView& tree, float* out, int64_t out_stride) = 0;
};

// One device allocation, released with its owner; moves, does not copy.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceKernels& device, size_t bytes) : device_(&device), data_(device.allocate(bytes)), bytes_(bytes) {}
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept : device_(other.device_), data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      data_ = std::exchange(other.data_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  template <class T = void>
  T* get() const {
    return static_cast<T*>(data_);
  }
  size_t bytes() const { return bytes_; }
  DeviceKernels* device() const { return device_; }  // null for an empty buffer
  // At least `bytes` long afterwards; a reallocation drops the contents.
  void reserve(DeviceKernels& device, size_t bytes) {
    if (bytes > bytes_ || data_ == nullptr) *this = DeviceBuffer(device, bytes);
  }

 private:
  void reset() noexcept {
    if (data_) device_->release(data_);
    data_ = nullptr;
    bytes_ = 0;
  }
  DeviceKernels* device_ = nullptr;
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

// Throws std::runtime_error when this build has no CUDA or no device is usable.
std::unique_ptr<DeviceKernels> make_cuda_kernels();
// `order`: the order the emulator visits a phase's threads; tests run both to catch races.
std::unique_ptr<DeviceKernels> make_emulated_kernels(ThreadOrder order = ThreadOrder::kForward);

// Whether quant_matvec / gemm take this weight type.
inline bool device_quant_matvec_supports(GgmlType type) {
  return visit_quant_dot(type, [](auto) {});
}
inline bool device_gemm_supports(GgmlType type) { return CublasGemm::supports(type); }

// The block type quantize_rows writes for a quant_matvec weight type.
inline ActivationBlocks activation_blocks_for(GgmlType weight_type) {
  return activation_type_for(weight_type) == GgmlType::Q8_K ? ActivationBlocks::kQ8_K : ActivationBlocks::kQ8_0;
}

}  // namespace draftbench::cuda
