// K/V cache for a fixed set of sequences with a fixed capacity each, decided up front so
// that an over-large configuration fails before it starts, never mid-run.
//
// Per sequence and layer: K and V as [capacity][kv_dim] f32. Slots [0, committed) hold
// positions 0..committed-1 in order; the tokens of the forward pass in flight (a tree)
// occupy the scratch slots committed + i for tree node i. commit(path) moves the accepted
// nodes' K/V to contiguous committed slots; everything else in scratch is dropped.
//
// On a device (a DeviceTransformer's cache) the floats live in device memory: keys() and
// values() are device pointers, and commit moves rows with device copies.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/model/model_config.h"
#include "kernels/cuda/device_kernels.h"

namespace draftbench {

class KvCache {
 public:
  // device: where the floats live (null = host memory); it must outlive the cache.
  KvCache(const ModelConfig& config, int n_sequences, int64_t capacity, cuda::DeviceKernels* device = nullptr);

  int n_sequences() const { return static_cast<int>(committed_.size()); }
  int64_t capacity() const { return capacity_; }
  int64_t kv_dim() const { return kv_dim_; }
  int64_t committed(int seq) const { return committed_.at(seq); }
  size_t bytes() const { return on_device() ? device_data_.bytes() : host_data_.size() * sizeof(float); }
  bool on_device() const { return device_data_.device() != nullptr; }
  static size_t bytes_for(const ModelConfig& config, int n_sequences, int64_t capacity);

  float* keys(int seq, int64_t layer) { return data() + offset(seq, layer, 0); }
  float* values(int seq, int64_t layer) { return data() + offset(seq, layer, 1); }

  // Make scratch nodes `path` (indices into the tree just forwarded, in root-to-leaf
  // order, strictly increasing) the next committed positions.
  void commit(int seq, std::span<const int32_t> path);
  // Commit the first n scratch nodes as they are (a prompt chunk or a chain).
  void commit_prefix(int seq, int64_t n);
  // Forget everything from position `length` on.
  void truncate(int seq, int64_t length);

 private:
  size_t offset(int seq, int64_t layer, int kind) const {
    return ((static_cast<size_t>(seq) * n_layers_ + static_cast<size_t>(layer)) * 2 + kind) * static_cast<size_t>(capacity_ * kv_dim_);
  }

  float* data() { return on_device() ? device_data_.get<float>() : host_data_.data(); }

  int64_t n_layers_, kv_dim_, capacity_;
  std::vector<int64_t> committed_;
  std::vector<float> host_data_;  // one of the two holds the floats
  cuda::DeviceBuffer device_data_;
};

}  // namespace draftbench
