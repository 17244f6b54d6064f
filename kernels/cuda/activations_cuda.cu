#include "kernels/cuda/activations_cuda.h"
#include "kernels/cuda/gated_activation_thread.h"
#include "kernels/cuda/launch.cuh"

namespace draftbench::cuda {
namespace {

__global__ void gated_activation_kernel(GatedActivationArgs args) {
  gated_activation_thread(args, Dim3{blockIdx.x, blockIdx.y, blockIdx.z}, Dim3{threadIdx.x, threadIdx.y, threadIdx.z});
}

int launch_gated_activation(const char* range, GateFunction function, const float* gate, const float* up, float* out, int64_t n) {
  if (n == 0) return cudaSuccess;
  return launch_kernel(range, gated_activation_launch(n), gated_activation_kernel, GatedActivationArgs{gate, up, out, n, function});
}

}  // namespace

int geglu_tanh(const float* gate, const float* up, float* out, int64_t n) {
  return launch_gated_activation("geglu_tanh", GateFunction::kGeluTanh, gate, up, out, n);
}

int swiglu(const float* gate, const float* up, float* out, int64_t n) { return launch_gated_activation("swiglu", GateFunction::kSilu, gate, up, out, n); }

}  // namespace draftbench::cuda
