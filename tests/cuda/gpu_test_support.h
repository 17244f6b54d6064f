// What the GPU tests share: the skip protocol (exit 77, ctest's SKIP_RETURN_CODE, when
// no CUDA device exists, so a machine without a GPU reports them skipped, not passed),
// device buffers, and a mismatch counter that prints the first few failures.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/cuda/device_query.h"

namespace draftbench::gpu_test {

inline constexpr int kSkipped = 77;

// Exits with kSkipped when there is nothing to run on.
inline void skip_without_device() {
  if (!cuda::device_available()) {
    std::puts("skipped: no CUDA device");
    std::exit(kSkipped);
  }
}

// Whether to skip the largest cases. The GPU check sets DRAFTBENCH_GPU_TEST_QUICK=1 under
// compute-sanitizer, which runs kernels hundreds of times slower; the smaller cases take the
// same code paths.
inline bool quick() {
  const char* q = std::getenv("DRAFTBENCH_GPU_TEST_QUICK");
  return q != nullptr && *q != '\0' && *q != '0';
}

inline void check_cuda(int err, const char* what) {
  if (err != 0) {
    std::printf("FAILED: %s: CUDA error %d (%s)\n", what, err, cudaGetErrorString(static_cast<cudaError_t>(err)));
    std::exit(1);
  }
}

// A device copy of a host vector, freed on scope exit.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(const std::vector<T>& host) : size_(host.size()) {
    check_cuda(cudaMalloc(&data_, bytes()), "cudaMalloc");
    check_cuda(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice), "copy to device");
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* data() const { return data_; }
  std::vector<T> download() const {
    check_cuda(cudaDeviceSynchronize(), "kernel execution");
    std::vector<T> host(size_);
    check_cuda(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost), "copy to host");
    return host;
  }

 private:
  size_t bytes() const { return size_ * sizeof(T) > 0 ? size_ * sizeof(T) : 1; }
  T* data_ = nullptr;
  size_t size_;
};

// Counts mismatches across cases; prints the first few.
class Mismatches {
 public:
  void check(bool ok, const char* what, size_t index, double got, double want) {
    if (ok) return;
    if (count_++ < 10) std::printf("mismatch in %s at %zu: got %.9g, want %.9g\n", what, index, got, want);
  }
  // The process exit code: 0 when everything matched.
  int finish(const char* kernel) const {
    if (count_ == 0) std::printf("cuda %s matches the CPU reference\n", kernel);
    else std::printf("FAILED: cuda %s: %zu mismatches\n", kernel, count_);
    return count_ == 0 ? 0 : 1;
  }

 private:
  size_t count_ = 0;
};

}  // namespace draftbench::gpu_test
