// DB_HOST_DEVICE marks a function that nvcc compiles for both the host and the device and
// the host compiler compiles as plain C++, so one body (e.g. attention's dot16) serves the
// CPU kernels, the CUDA kernels and their CPU emulation (kernels/cuda/host_device.h).
#pragma once

#if defined(__CUDACC__)
#define DB_HOST_DEVICE __host__ __device__
#else
#define DB_HOST_DEVICE
#endif

#include <cstring>

namespace draftbench {

// The bits of `from` read as a To, in host and device code alike (std::bit_cast is C++20;
// nvcc builds as C++17). memcpy is a builtin on both sides and compiles to a register move.
template <class To, class From>
DB_HOST_DEVICE inline To bit_cast_of(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  memcpy(&to, &from, sizeof to);
  return to;
}

}  // namespace draftbench
