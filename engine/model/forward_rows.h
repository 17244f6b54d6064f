// What the two forward passes (the CPU Transformer and the DeviceTransformer) do the same
// way around their layers: validating a batch and flattening it into rows, finding the
// rows whose hidden states or logits were asked for, and Gemma's final logit soft-cap.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/model/forward_batch.h"
#include "engine/model/kv_cache.h"
#include "engine/model/model_config.h"

namespace draftbench {

struct ForwardRow {  // one token of the flattened batch
  int seq;
  int32_t node;
  int64_t pos;
  const SequenceInput* input;
};

// The tokens to run, sequences in order and nodes n_cached.. of each. Throws InputError
// for a token outside the vocabulary or a sequence that would outgrow the cache.
void list_forward_rows(const ForwardBatch& batch, const KvCache& cache, const ModelConfig& config, std::vector<ForwardRow>& rows);

// Indices into the flattened rows of the nodes listed in each sequence's `member`
// (logit_rows or hidden_rows), in order, into `out` (reused: no allocation once warm).
void wanted_rows(const ForwardBatch& batch, std::vector<int32_t> SequenceInput::*member, std::vector<int64_t>& out);

// The activation arrays of a forward pass, one row per token, in either pass's storage
// (host vectors or device buffers); `each` names every array with its row width, so the
// passes size them from one list.
template <class Buffer>
struct Activations {
  Buffer x, xn, q, k, v, attn, proj, gate, up, act;
  template <class Fn>
  void each(const ModelConfig& c, Fn&& fn) {  // fn(buffer, floats per row)
    for (auto [b, width] : {std::pair{&x, c.n_embd},
                            {&xn, c.n_embd},
                            {&q, c.q_dim()},
                            {&k, c.kv_dim()},
                            {&v, c.kv_dim()},
                            {&attn, c.q_dim()},
                            {&proj, c.n_embd},
                            {&gate, c.n_ff},
                            {&up, c.n_ff},
                            {&act, c.n_ff}})
      fn(*b, width);
  }
};

// Gemma's final soft-capping, tanh(x / cap) * cap, when the model has one.
void soft_cap_logits(const ModelConfig& config, float* logits, int64_t n);

}  // namespace draftbench
