#!/usr/bin/env python3
"""An independent float64 forward pass of a Gemma 3 or Qwen 2 GGUF model, in numpy.

Weights are dequantised by the `gguf` package (not by us); activations stay float64
throughout (no activation quantisation, no f16 K/V): the closest computable thing to the
exact model the quantised file defines. It is the referee when draftbench and llama.cpp
disagree on a near-tie.

The architectures differ in data only, as in the engine: Gemma 3 scales the embeddings,
has QK-norm, post-norms, a GELU gate and sliding-window layers with a base of their own;
Qwen 2 has Q/K/V biases, a SiLU gate and an untied head. Both pair RoPE dimensions as
rotate-half (j, j + D/2).

Usage as a module: ref = FloatReference(path); logits = ref.last_logits(token_ids)
"""
import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize

ARCHITECTURES = {"gemma3", "qwen2"}


class FloatReference:
    def __init__(self, path: str):
        reader = GGUFReader(path)
        f = reader.fields

        def val(key, default=None):
            if key not in f:
                return default
            return f[key].contents()

        arch = val("general.architecture")
        if arch not in ARCHITECTURES:
            raise SystemExit(f"float_reference: {path}: architecture {arch!r} (implemented: {', '.join(sorted(ARCHITECTURES))})")
        self.gemma = arch == "gemma3"
        self.n_embd = int(val(f"{arch}.embedding_length"))
        self.n_layers = int(val(f"{arch}.block_count"))
        self.n_heads = int(val(f"{arch}.attention.head_count"))
        self.n_kv = int(val(f"{arch}.attention.head_count_kv", self.n_heads))
        self.head_dim = int(val(f"{arch}.attention.key_length", self.n_embd // self.n_heads))
        self.eps = float(val(f"{arch}.attention.layer_norm_rms_epsilon"))
        self.base_global = float(val(f"{arch}.rope.freq_base", 1e6 if self.gemma else 1e4))
        self.base_local = float(val(f"{arch}.rope.freq_base_swa", 1e4)) if self.gemma else self.base_global
        self.window = int(val(f"{arch}.attention.sliding_window", 0)) if self.gemma else 0
        self.period = int(val(f"{arch}.attention.sliding_window_pattern", 6))
        # Dequantise once; keep float32 to bound memory, compute in float64.
        self.w = {}
        for t in reader.tensors:
            a = dequantize(t.data, t.tensor_type)
            self.w[t.name] = a.reshape([int(x) for x in reversed(t.shape)]) if len(t.shape) > 1 else a

    def _W(self, name):
        return self.w[name].astype(np.float64)

    def _rms(self, x, name):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + self.eps) * self._W(name)

    def _proj(self, h, name):  # h W^T, plus the bias where the file has one
        y = h @ self._W(name + ".weight").T
        return y + self._W(name + ".bias") if name + ".bias" in self.w else y

    def _rope(self, x, pos, base):  # x [n, heads, D]; rotate_half pairs (j, j + D/2)
        half = self.head_dim // 2
        inv = base ** (-np.arange(half) * 2.0 / self.head_dim)
        ang = pos[:, None] * inv[None, :]
        c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
        a, b = x[..., :half], x[..., half:]
        return np.concatenate([a * c - b * s, a * s + b * c], -1)

    def last_logits(self, tokens):
        n, D, H, KV = len(tokens), self.head_dim, self.n_heads, self.n_kv
        pos = np.arange(n, dtype=np.float64)
        x = self.w["token_embd.weight"][tokens].astype(np.float64)
        if self.gemma:
            x *= np.sqrt(self.n_embd)
        causal = np.tril(np.ones((n, n), bool))
        for il in range(self.n_layers):
            p = f"blk.{il}."
            local = self.window > 0 and il % self.period < self.period - 1
            h = self._rms(x, p + "attn_norm.weight")
            q = self._proj(h, p + "attn_q").reshape(n, H, D)
            k = self._proj(h, p + "attn_k").reshape(n, KV, D)
            v = self._proj(h, p + "attn_v").reshape(n, KV, D)
            if self.gemma:
                q = self._rms(q, p + "attn_q_norm.weight")
                k = self._rms(k, p + "attn_k_norm.weight")
            base = self.base_local if local else self.base_global
            q, k = self._rope(q, pos, base), self._rope(k, pos, base)
            mask = causal & ((pos[:, None] - pos[None, :]) < self.window) if local else causal
            out = np.empty((n, H, D))
            for hh in range(H):
                kv = hh // (H // KV)
                s = q[:, hh, :] @ k[:, kv, :].T / np.sqrt(D)
                s = np.where(mask, s, -np.inf)
                s -= s.max(-1, keepdims=True)
                pr = np.exp(s)
                pr /= pr.sum(-1, keepdims=True)
                out[:, hh, :] = pr @ v[:, kv, :]
            o = out.reshape(n, H * D) @ self._W(p + "attn_output.weight").T
            x = x + (self._rms(o, p + "post_attention_norm.weight") if self.gemma else o)
            h = self._rms(x, p + "ffn_norm.weight")
            g = h @ self._W(p + "ffn_gate.weight").T
            if self.gemma:
                act = 0.5 * g * (1 + np.tanh(0.7978845608028654 * (g + 0.044715 * g ** 3)))
            else:
                act = g / (1 + np.exp(-g))
            m = (act * (h @ self._W(p + "ffn_up.weight").T)) @ self._W(p + "ffn_down.weight").T
            x = x + (self._rms(m, p + "post_ffw_norm.weight") if self.gemma else m)
        last = self._rms(x[-1], "output_norm.weight")
        head = self.w.get("output.weight", self.w["token_embd.weight"])  # untied, else tied
        return head @ last  # float32 weights, float64 result

