// Runs CUDA kernel bodies on the CPU: every block of a grid one after the other, and in a
// block every thread of one barrier phase before any thread of the next (the model the
// block programs of kernels/cuda/host_device.h are written against). Plain C++: the
// emulation tests include it without any CUDA header.
#pragma once

#include "kernels/cuda/host_device.h"

namespace draftbench::cuda {

// The order the emulator visits the threads of one phase. A correct kernel gives the same
// result in both; a phase where one thread reads what another writes usually does not.
enum class ThreadOrder { kForward, kReverse };

// One block as the emulator runs it: each_thread visits every thread, sync() has nothing
// left to wait for.
class EmulatedBlock {
 public:
  EmulatedBlock(Dim3 index, Dim3 dim, ThreadOrder order) : index_(index), dim_(dim), order_(order) {}
  Dim3 index() const { return index_; }
  Dim3 dim() const { return dim_; }
  template <class Fn>
  void each_thread(Fn&& fn) const {
    const unsigned n = dim_.count();
    for (unsigned k = 0; k < n; ++k) {
      const unsigned linear = order_ == ThreadOrder::kForward ? k : n - 1 - k;
      fn(Dim3{linear % dim_.x, (linear / dim_.x) % dim_.y, linear / (dim_.x * dim_.y)});
    }
  }
  void sync() const {}

 private:
  Dim3 index_, dim_;
  ThreadOrder order_;
};

// A kernel with barriers: program(const EmulatedBlock&) once per block of `grid`. The
// program owns the block's shared memory (a fresh object per call, as on the GPU).
template <class BlockProgram>
void emulate_blocks(Dim3 grid, Dim3 block_dim, BlockProgram&& program, ThreadOrder order = ThreadOrder::kForward) {
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) program(EmulatedBlock(Dim3{x, y, z}, block_dim, order));
}

// A kernel without barriers: fn(blockIdx, threadIdx) for every thread of every block.
template <class ThreadBody>
void emulate_grid(Dim3 grid, Dim3 block_dim, ThreadBody&& fn, ThreadOrder order = ThreadOrder::kForward) {
  emulate_blocks(
      grid, block_dim, [&](const EmulatedBlock& block) { block.each_thread([&](Dim3 thread) { fn(block.index(), thread); }); }, order);
}

}  // namespace draftbench::cuda
