#include <cuda_runtime.h>

#include "kernels/cuda/device_query.h"

namespace draftbench::cuda {

bool device_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

}  // namespace draftbench::cuda
