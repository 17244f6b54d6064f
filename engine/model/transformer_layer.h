// The transformer block, written once. Both forward passes run it: the CPU Transformer and
// the DeviceTransformer, each through its own `Ops`. The architectures differ only in data:
// which of a layer's optional weights are present (input norm, Q/K/V biases, QK-norm,
// post-norms) and the config's activation, RoPE pairing and attention windows, which the
// ops read. Adding an architecture therefore adds weights to load, not a layer to write.
//
//   attention   x += post_attn_norm(W_o attend(rope(qk_norm(W_qkv attn_norm(x) + b_qkv))))
//   MLP         x += post_ffn_norm(W_down act(W_gate ffn_norm(x), W_up ffn_norm(x)))
//
// An absent norm or bias is skipped; an absent attn_norm feeds x itself to the projections
// (EAGLE's draft layer).
//
// `Ops` provides, over rows of the current forward:
//   layer(il)                     the layer's weights: members attn_norm, wq, wk, wv, bq, bk,
//                                 bv, q_norm, k_norm, wo, post_attn_norm, ffn_norm, w_gate,
//                                 w_up, w_down, post_ffn_norm
//   vector(v) -> const float*     a weight vector of that layer, or nullptr when absent
//   activations() -> Activations<float*>
//   rms_norm(x, w, out, rows, n)  with the config's epsilon
//   matmul(x, n, {{W, y}, ...})   y = x W^T for each product, all reading the rows x
//   add_row_bias(b, y, rows, n)   y[r] += b for every row
//   rope(il, n)                   rotates q and k for layer il's positions and base
//   attend(il, n)                 stores k and v in the cache and writes attn
//   gated_activation(n)           act = f(gate) * up over n values, f the config's
//   add(y, x, n)                  x += y
#pragma once

#include <cstdint>
#include <tuple>

#include "engine/model/forward_rows.h"
#include "engine/model/model_config.h"

namespace draftbench {

template <class Ops>
void run_transformer_layer(Ops& ops, const ModelConfig& c, int64_t il, int64_t n) {
  const auto& L = ops.layer(il);
  const Activations<float*> a = ops.activations();
  const int64_t E = c.n_embd, QD = c.q_dim(), KD = c.kv_dim(), HD = c.head_dim;

  const float* in = a.x;
  if (const float* w = ops.vector(L.attn_norm)) {
    ops.rms_norm(a.x, w, a.xn, n, E);
    in = a.xn;
  }
  ops.matmul(in, n, {{L.wq, a.q}, {L.wk, a.k}, {L.wv, a.v}});
  for (auto [bias, y, width] : {std::tuple{ops.vector(L.bq), a.q, QD}, {ops.vector(L.bk), a.k, KD}, {ops.vector(L.bv), a.v, KD}})
    if (bias) ops.add_row_bias(bias, y, n, width);
  // q and k rows are [heads][head_dim]: one norm row per head.
  if (const float* w = ops.vector(L.q_norm)) ops.rms_norm(a.q, w, a.q, n * c.n_heads, HD);
  if (const float* w = ops.vector(L.k_norm)) ops.rms_norm(a.k, w, a.k, n * c.n_kv_heads, HD);
  ops.rope(il, n);
  ops.attend(il, n);
  ops.matmul(a.attn, n, {{L.wo, a.proj}});
  if (const float* w = ops.vector(L.post_attn_norm)) ops.rms_norm(a.proj, w, a.proj, n, E);
  ops.add(a.proj, a.x, n * E);

  ops.rms_norm(a.x, ops.vector(L.ffn_norm), a.xn, n, E);
  ops.matmul(a.xn, n, {{L.w_gate, a.gate}, {L.w_up, a.up}});
  ops.gated_activation(n * c.n_ff);
  ops.matmul(a.act, n, {{L.w_down, a.proj}});
  if (const float* w = ops.vector(L.post_ffn_norm)) ops.rms_norm(a.proj, w, a.proj, n, E);
  ops.add(a.proj, a.x, n * E);
}

}  // namespace draftbench
