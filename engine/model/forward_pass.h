// What decoding needs of a target model's forward pass, whichever hardware runs it: the CPU
// Transformer (transformer.h) or the DeviceTransformer (device_transformer.h) on a GPU or
// on the emulation of its kernels. Decoder, prefill and the sweep runner are written
// against this, so every drafter runs unchanged on either, and losslessness is a property
// of each pass on its own: speculative decoding through a pass yields exactly that pass's
// autoregressive greedy tokens.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/model/forward_batch.h"
#include "engine/model/kv_cache.h"
#include "engine/model/model_config.h"
#include "engine/model/model_weights.h"
#include "kernels/runtime/thread_pool.h"

namespace draftbench {

class ForwardPass {
 public:
  virtual ~ForwardPass() = default;

  // Runs the batch, writing K/V into each sequence's scratch slots (commit separately).
  // Throws InputError if a sequence would exceed the cache capacity. The cache must live
  // where this pass computes: KvCache(config, n, capacity, pass.device()).
  virtual void forward(const ForwardBatch& batch, KvCache& cache, ForwardResult& result) = 0;

  // The LM head (and final soft-capping) over final-norm hidden states, hidden [n][n_embd]
  // -> logits [n][n_vocab], host arrays: exactly what forward() computes for a logit row,
  // for callers that want logits of only some rows, later (verification of large trees).
  virtual void logits_from_hidden(const float* hidden, int64_t n, float* logits) = 0;

  // Per row of final-norm hidden states [n][n_embd], the first index of the largest logit:
  // exactly argmax(logits_from_hidden(row)) (kernels/sampling/softmax.h's argmax, first index
  // on ties), whatever else is in the batch, into ids[n]. All greedy verification needs: a
  // pass may find it without writing the logit rows (the CPU's fused LM-head argmax).
  virtual void argmax_from_hidden(const float* hidden, int64_t n, int32_t* ids) = 0;

  // Where this pass keeps K/V: null for host memory.
  virtual cuda::DeviceKernels* device() const { return nullptr; }
  // For reports and logs: "cpu", "emulated", or the GPU's name.
  virtual std::string describe() const = 0;
};

// Which hardware runs a target's forward pass.
enum class ForwardDevice { kCpu, kCuda, kEmulated };

inline constexpr ForwardDevice kForwardDevices[] = {ForwardDevice::kCpu, ForwardDevice::kCuda, ForwardDevice::kEmulated};
const char* forward_device_name(ForwardDevice device);  // "cpu", "cuda", "emulated"
std::optional<ForwardDevice> forward_device_named(std::string_view name);

// The pass for `device`, owning what it runs on; the pool serves the CPU pass only. Throws
// (one line) when CUDA is asked for and this build or machine has none, or a weight type
// has no device product.
std::unique_ptr<ForwardPass> make_forward_pass(ForwardDevice device, const ModelConfig& config, const ModelWeights& weights, ThreadPool& pool);

}  // namespace draftbench
