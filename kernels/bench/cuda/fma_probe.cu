#include <cuda_runtime.h>

#include "kernels/bench/cuda/fma_probe.h"

namespace draftbench::cuda_bench {
namespace {

// m and b come in as arguments so that the compiler cannot fold the chains; fmaf is one
// FFMA whatever the contraction flags.
__global__ void fma_chains_kernel(int rounds, float m, float b, float* sink) {
  float acc[FmaProbe::kChains];
#pragma unroll
  for (int c = 0; c < FmaProbe::kChains; ++c) acc[c] = 1.0f + 0.001f * static_cast<float>(c + threadIdx.x % 7);
#pragma unroll 8
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int c = 0; c < FmaProbe::kChains; ++c) acc[c] = fmaf(acc[c], m, b);
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < FmaProbe::kChains; ++c) sum += acc[c];
  sink[static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

}  // namespace

int fma_probe_for_device(FmaProbe& probe) {
  int device = 0, sms = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  probe.blocks = 8 * sms;
  return static_cast<int>(err);
}

int launch_fma_probe(const FmaProbe& probe, float* sink) {
  if (probe.blocks <= 0) return cudaErrorInvalidValue;
  fma_chains_kernel<<<probe.blocks, probe.threads_per_block>>>(probe.rounds, 0.999999f, 1e-7f, sink);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace draftbench::cuda_bench
