#include "kernels/bench/cuda/cuda_bench_suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace draftbench::cuda_bench {

void check_cuda(int err, const char* what) {
  if (err == cudaSuccess) return;
  const auto e = static_cast<cudaError_t>(err);
  throw CudaFailure(fmt::format("{}: CUDA error {} ({}: {})", what, err, cudaGetErrorName(e), cudaGetErrorString(e)));
}

DeviceMemory::DeviceMemory(size_t bytes) : bytes_(bytes) {
  // cudaMalloc of 0 bytes returns no pointer; one byte keeps every buffer a real one.
  check_cuda(cudaMalloc(&data_, std::max<size_t>(bytes, 1)), fmt::format("cudaMalloc of {} bytes", bytes).c_str());
}

DeviceMemory::~DeviceMemory() {
  if (data_ != nullptr) cudaFree(data_);
}

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceMemory::upload(const void* host, size_t bytes, size_t offset) {
  if (offset + bytes > bytes_) throw CudaFailure(fmt::format("upload of {} bytes at {} into {} bytes", bytes, offset, bytes_));
  if (bytes == 0) return;
  check_cuda(cudaMemcpy(static_cast<char*>(data_) + offset, host, bytes, cudaMemcpyHostToDevice), "copy to the device");
}

EventPair::EventPair() {
  check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
  try {
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  } catch (...) {
    cudaEventDestroy(start_);
    throw;
  }
}

EventPair::~EventPair() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

}  // namespace draftbench::cuda_bench
