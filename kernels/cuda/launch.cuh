// One kernel launch as every CUDA entry point does it: the shape checked against CUDA's
// grid limits, an NVTX range named after the kernel around it, and the launch's error.
#pragma once

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include "kernels/cuda/host_device.h"

namespace draftbench::cuda {

// Returns the CUDA error code of the launch (cudaErrorInvalidValue when the grid is
// empty or too large; callers return early on an empty problem).
template <class Args>
int launch_kernel(const char* name, const Launch& shape, void (*kernel)(Args), const Args& args) {
  if (!shape.fits()) return cudaErrorInvalidValue;
  nvtxRangePushA(name);
  kernel<<<as_dim3(shape.grid()), as_dim3(shape.block)>>>(args);
  const cudaError_t err = cudaGetLastError();
  nvtxRangePop();
  return static_cast<int>(err);
}

}  // namespace draftbench::cuda
