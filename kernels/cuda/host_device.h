// What a kernel body needs to be compiled both by nvcc (as device code) and by the host
// compiler (as plain C++ driven by the grid emulator, kernels/cuda/grid_emulator.h), so
// the CPU can execute and test the same index logic the GPU runs.
//
// A kernel with barriers is written once as a block program, a template over the block
// type, calling `block.each_thread(fn)` for the code between two barriers and
// `block.sync()` for __syncthreads():
//
//   template <class Block> DB_HOST_DEVICE void my_block(const Block& block, Args a, Shared& sh) {
//     block.each_thread([&](Dim3 t) { phase_one(a, block.index(), t, sh); });
//     block.sync();
//     block.each_thread([&](Dim3 t) { phase_two(a, block.index(), t, sh); });
//   }
//
// On the GPU each thread calls fn once with its own threadIdx; the emulator calls fn for
// every thread of the block before it returns. Rules that keep the two equivalent:
//   * state that crosses a barrier lives in `Shared` (__shared__ on the GPU, one object per
//     block in the emulator), never in a variable captured by reference and written inside
//     a phase;
//   * values computed outside each_thread are block-uniform (identical in every thread);
//   * within one phase no thread reads what another writes (the emulator runs threads in
//     a chosen order, and the tests run both orders to catch such races).
#pragma once

#include <cstdint>

#include "kernels/runtime/host_device.h"

namespace draftbench::cuda {

// dim3 without the CUDA headers.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  DB_HOST_DEVICE constexpr unsigned count() const { return x * y * z; }
  // Row-major linear index of this point inside `extent` (x fastest), as CUDA numbers threads.
  DB_HOST_DEVICE constexpr unsigned linear_in(Dim3 extent) const { return x + extent.x * (y + extent.y * z); }
};

#if defined(__CUDACC__)
// The running block on the GPU. Methods are host-device so block programs instantiated
// with it type-check in nvcc's host pass; they only ever execute on the device.
struct DeviceBlock {
  DB_HOST_DEVICE Dim3 index() const {
#if defined(__CUDA_ARCH__)
    return {blockIdx.x, blockIdx.y, blockIdx.z};
#else
    return {};
#endif
  }
  DB_HOST_DEVICE Dim3 dim() const {
#if defined(__CUDA_ARCH__)
    return {blockDim.x, blockDim.y, blockDim.z};
#else
    return {};
#endif
  }
  template <class Fn>
  DB_HOST_DEVICE void each_thread(Fn&& fn) const {
#if defined(__CUDA_ARCH__)
    fn(Dim3{threadIdx.x, threadIdx.y, threadIdx.z});
#endif
  }
  DB_HOST_DEVICE void sync() const {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
  }
};
#endif

// A kernel's launch shape, written once beside its body and used by both the CUDA launch
// and the emulator. The grid stays 64-bit until fits() has checked CUDA's limits.
struct Launch {
  int64_t grid_x = 1, grid_y = 1;
  Dim3 block;
  bool fits() const { return grid_x >= 1 && grid_x <= 0x7fffffff && grid_y >= 1 && grid_y <= 65535; }
  Dim3 grid() const { return Dim3{static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y)}; }
};

inline int64_t blocks_for(int64_t n, unsigned per_block) { return (n + per_block - 1) / per_block; }

#if defined(__CUDACC__)
inline dim3 as_dim3(Dim3 d) { return dim3(d.x, d.y, d.z); }
#endif

// A block-wide tree over `threads` (a power of two) partial results in shared memory: at
// each level the lower half folds in the upper half, fold(t, half) for every thread t, with
// a barrier between levels; the result ends in slot 0.
template <class Block, class Fold>
DB_HOST_DEVICE void fold_tree(const Block& block, unsigned threads, Fold&& fold) {
  for (unsigned half = threads / 2; half > 0; half /= 2) {
    block.each_thread([&](Dim3 t) {
      if (t.x < half) fold(t.x, half);
    });
    block.sync();
  }
}

}  // namespace draftbench::cuda
