// The CUDA suite's roofline, from its calibration kernels (calibration_cuda_bench.cpp).
#pragma once

#include "kernels/bench/roofline.h"

namespace draftbench::cuda_bench {

// Device-to-device copy bandwidth (bytes read + written per second) and FP32 FMA
// throughput of the current device, best of three iterations each. Throws CudaFailure.
Roofline measure_device_roofline();

}  // namespace draftbench::cuda_bench
