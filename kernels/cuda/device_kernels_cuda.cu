// DeviceKernels on a GPU: the launches of kernels/cuda, cuBLASLt for float weights, and
// the two kernels only the forward pass needs (activation quantisation, element-wise
// steps), whose bodies the emulation runs too. NVTX names every launch.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "kernels/cuda/activations_cuda.h"
#include "kernels/cuda/device_kernels.h"
#include "kernels/cuda/device_query.h"
#include "kernels/cuda/gemm_cublas.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/quant_matvec_cuda.h"
#include "kernels/cuda/rms_norm_cuda.h"
#include "kernels/cuda/rope_cuda.h"
#include "kernels/cuda/tree_attention_cuda.h"
#include "kernels/quant/quantize_activation.h"

namespace draftbench::cuda {
namespace {

__global__ void quantize_activation_kernel(QuantizeActivationArgs args) {
  quantize_activation_thread(args, Dim3{blockIdx.x, blockIdx.y, blockIdx.z}, Dim3{threadIdx.x, threadIdx.y, threadIdx.z});
}

__global__ void elementwise_kernel(ElementwiseArgs args) {
  elementwise_thread(args, Dim3{blockIdx.x, blockIdx.y, blockIdx.z}, Dim3{threadIdx.x, threadIdx.y, threadIdx.z});
}

__global__ void row_bias_kernel(RowBiasArgs args) {
  row_bias_thread(args, Dim3{blockIdx.x, blockIdx.y, blockIdx.z}, Dim3{threadIdx.x, threadIdx.y, threadIdx.z});
}

__global__ void gather_rows_kernel(GatherRowsArgs args) {
  gather_rows_thread(args, Dim3{blockIdx.x, blockIdx.y, blockIdx.z}, Dim3{threadIdx.x, threadIdx.y, threadIdx.z});
}

void check(int err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": CUDA error " + std::to_string(err) + " (" + cudaGetErrorString(static_cast<cudaError_t>(err)) + ")");
}

void check_cublas(int status, const char* what) {
  if (status != 0) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(status));
}

class CudaKernels final : public DeviceKernels {
 public:
  CudaKernels() { check_cublas(gemm_.init_status(), "cuBLASLt handle"); }
  std::string describe() const override {
    int device = 0;
    cudaDeviceProp p{};
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&p, device) != cudaSuccess) return "cuda";
    char out[320];
    std::snprintf(out, sizeof out, "cuda: %s (sm_%d%d, %.1f GiB)", p.name, p.major, p.minor, static_cast<double>(p.totalGlobalMem) / (1 << 30));
    return out;
  }

  void* allocate(size_t bytes) override {
    void* p = nullptr;
    check(cudaMalloc(&p, bytes > 0 ? bytes : 1), "cudaMalloc");
    return p;
  }
  void release(void* p) noexcept override { cudaFree(p); }
  void upload(void* device, const void* host, size_t bytes) override { check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "copy to device"); }
  void download(void* host, const void* device, size_t bytes) override { check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "copy to host"); }
  void copy(void* dst, const void* src, size_t bytes) override { check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "device copy"); }

  void rms_norm(const float* x, const float* weight, float* out, int64_t n_rows, int64_t n, float eps) override {
    check(cuda::rms_norm(x, weight, out, n_rows, n, eps), "rms_norm");
  }
  void rope(RopePairing pairing, float* x, int64_t n_tokens, int64_t token_stride, const int64_t* positions, int n_heads, int head_dim, float base) override {
    if (pairing == RopePairing::kNeox) check(rope_neox(x, n_tokens, token_stride, positions, n_heads, head_dim, base), "rope_neox");
    else check(rope_norm(x, n_tokens, token_stride, positions, n_heads, head_dim, base), "rope_norm");
  }
  void gated_activation(GateFunction function, const float* gate, const float* up, float* out, int64_t n) override {
    if (function == GateFunction::kGeluTanh) check(geglu_tanh(gate, up, out, n), "geglu_tanh");
    else check(swiglu(gate, up, out, n), "swiglu");
  }

  void elementwise(ElementwiseOp op, const float* x, void* out, int64_t n) override {
    if (n == 0) return;
    const char* range = op == ElementwiseOp::kAdd ? "add" : op == ElementwiseOp::kToHalf ? "to_half" : "to_bf16";
    check(launch_kernel(range, elementwise_launch(n), elementwise_kernel, ElementwiseArgs{x, out, n, op}), range);
  }

  void add_row_bias(const float* bias, float* y, int64_t n_rows, int64_t width) override {
    if (n_rows == 0 || width == 0) return;
    check(launch_kernel("row_bias", elementwise_launch(n_rows * width), row_bias_kernel, RowBiasArgs{bias, y, width, n_rows}), "row_bias");
  }

  void gather_rows(const float* x, int64_t width, const int64_t* rows, int64_t n_rows, float* out) override {
    if (n_rows == 0 || width == 0) return;
    check(launch_kernel("gather_rows", elementwise_launch(n_rows * width), gather_rows_kernel, GatherRowsArgs{x, rows, width, n_rows, out}), "gather_rows");
  }

  void quantize_rows(GgmlType weight_type, const float* x, int64_t x_stride, int64_t n_rows, int64_t n, void* xq) override {
    if (n_rows == 0) return;
    const QuantizeActivationArgs args{x, x_stride, n_rows, n, xq, activation_row_bytes(weight_type, n), activation_blocks_for(weight_type)};
    check(launch_kernel("quantize_activation", quantize_activation_launch(args), quantize_activation_kernel, args), "quantize_activation");
  }

  void quant_matvec(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n_x, int64_t n, float* y) override {
    check(cuda::quant_matvec(type, w, w_stride, n_rows, xq, n_x, n, y), "quant_matvec");
  }
  void gemm(GgmlType type, const void* w, int64_t n_out, int64_t n_in, const void* x, int64_t n_x, float* y) override {
    check_cublas(gemm_.matmul(type, w, n_out, n_in, x, n_x, y), "gemm_cublaslt");
  }
  void tree_attention(const AttentionShape& shape, const float* q, int64_t q_stride, const float* k_cache, const float* v_cache, int64_t kv_stride,
                      int64_t n_committed, const TreeView& tree, float* out, int64_t out_stride) override {
    check(cuda::tree_attention(shape, q, q_stride, k_cache, v_cache, kv_stride, n_committed, tree, out, out_stride), "tree_attention");
  }

 private:
  CublasGemm gemm_;
};

}  // namespace

std::unique_ptr<DeviceKernels> make_cuda_kernels() {
  if (!device_available()) throw std::runtime_error("no CUDA device is available");
  return std::make_unique<CudaKernels>();
}

}  // namespace draftbench::cuda
