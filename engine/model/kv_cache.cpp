#include "engine/model/kv_cache.h"

#include <cstring>

#include "engine/common/error.h"

namespace draftbench {

KvCache::KvCache(const ModelConfig& c, int n_sequences, int64_t capacity, cuda::DeviceKernels* device)
    : n_layers_(c.n_layers), kv_dim_(c.kv_dim()), capacity_(capacity), committed_(static_cast<size_t>(n_sequences), 0) {
  DB_CHECK(n_sequences >= 1 && capacity >= 1);
  const size_t bytes = bytes_for(c, n_sequences, capacity);
  if (device) device_data_ = cuda::DeviceBuffer(*device, bytes);
  else host_data_.assign(bytes / sizeof(float), 0.0f);
}

size_t KvCache::bytes_for(const ModelConfig& c, int n_sequences, int64_t capacity) {
  return static_cast<size_t>(n_sequences) * static_cast<size_t>(c.n_layers) * 2 * static_cast<size_t>(capacity) * static_cast<size_t>(c.kv_dim()) *
         sizeof(float);
}

void KvCache::commit(int seq, std::span<const int32_t> path) {
  const int64_t base = committed_.at(seq);
  DB_CHECK(base + static_cast<int64_t>(path.size()) <= capacity_);
  const size_t row = static_cast<size_t>(kv_dim_) * sizeof(float);
  for (size_t k = 0; k < path.size(); ++k) {
    // Paths are increasing, so the destination never overtakes an unread source.
    DB_CHECK(path[k] >= static_cast<int32_t>(k) && (k == 0 || path[k] > path[k - 1]));
    if (path[k] == static_cast<int32_t>(k)) continue;
    for (int64_t il = 0; il < n_layers_; ++il)
      for (int kind = 0; kind < 2; ++kind) {
        float* d = data() + offset(seq, il, kind);
        float *to = d + (base + static_cast<int64_t>(k)) * kv_dim_, *from = d + (base + path[k]) * kv_dim_;
        if (on_device()) device_data_.device()->copy(to, from, row);
        else std::memcpy(to, from, row);
      }
  }
  committed_[seq] = base + static_cast<int64_t>(path.size());
}

void KvCache::commit_prefix(int seq, int64_t n) {
  DB_CHECK(n >= 0 && committed_.at(seq) + n <= capacity_);
  committed_[seq] += n;
}

void KvCache::truncate(int seq, int64_t length) {
  DB_CHECK(length >= 0 && length <= committed_.at(seq));
  committed_[seq] = length;
}

}  // namespace draftbench
