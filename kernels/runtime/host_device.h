// DB_HOST_DEVICE marks a function that nvcc compiles for both the host and the device and
// the host compiler compiles as plain C++, so one body (e.g. attention's dot16) serves the
// CPU kernels, the CUDA kernels and their CPU emulation (kernels/cuda/host_device.h).
#pragma once

#if defined(__CUDACC__)
#define DB_HOST_DEVICE __host__ __device__
#else
#define DB_HOST_DEVICE
#endif
