#!/usr/bin/env python3
"""The most any drafter could gain at a temperature, on this machine: an oracle's ceiling.

At temperature T > 0, exact verification accepts a drafted token x with probability p(x)
under the target's distribution (one-hot proposals; k distinct children of a node accept
one of them with probability sum p(x_i)). No drafter can do better than one that proposes
the target's own likeliest tokens. This script measures what that oracle would get:

1. `draftbench generate` (autoregressive, the given temperature and seed) samples the
   replies, exactly as the baseline of scripts/measure_speculative.py does;
2. llama.cpp (llama-cpp-python, an independent engine) evaluates prompt + reply once and
   gives the target's distribution at every reply position;
3. at each position the oracle picks the draft with the best expected tokens per second
   among chains of depth d (each level the likeliest token; acceptance the product of the
   levels' top probabilities along the sampled reply) and stars of k children (acceptance
   the top-k mass), priced by draftbench's cached cost model (forward over 1 + n tree
   tokens, LM head and a distribution per visited row).

Its expected rate over the autoregressive step's is an upper bound on any drafter's
speedup there: the oracle knows the target's distributions without paying for them, and
pays nothing to draft.

--tree K,D (repeatable) also measures tokens per step at a fixed tree shape, whatever its
cost, for the oracle tree that holds the target's own K likeliest tokens below every node,
D levels deep. Exact one-hot verification follows the target's own sample (the path it
accepts is distributed as the longest prefix of a sampled continuation that the tree
holds), and the sampled replies are such continuations, so over them
  tokens/step = 1 + mean over positions t of sum_{d=1..D} prod_{i<d} [rank(y_{t+i}) < K].
A drafter's tree of that shape would have to out-rank the target itself to do better.
EAGLE's paper tree (top-k 10, depth 5) is --tree 10,5;
ReDrafter's beams (BW 8, BL 5: at most 8 distinct drafts of 4 tokens) --tree 8,4.

  scripts/speculation_ceiling.py --draftbench build/release/draftbench \
      --model models/gemma-3-270m-q4_k_m.gguf --prompts datasets/mt_bench_style/question.jsonl \
      --n-prompts 16 --chat --max-new-tokens 128 --temperature 1 --threads 2
"""
import argparse
import json
import re
import subprocess
import sys

import numpy as np


def cost_model(a):
    out = subprocess.run([a.draftbench, "inspect", a.model, "--cost", "--threads", str(a.threads)], capture_output=True, text=True)
    m = re.search(r"cost model \([^)]*\): (\S+\.json)\s*$", out.stdout, re.M)
    if not m:
        sys.exit("no cached cost model: run `draftbench calibrate --threads N` first")
    with open(m.group(1)) as f:
        c = json.load(f)["model"]
    sizes = np.array(c["sizes"], dtype=float)

    def interp(values, n):
        v = np.array(values)
        if n <= sizes[-1]:
            return float(np.interp(n, sizes, v))
        return float(v[-1] + (v[-1] - v[-2]) / (sizes[-1] - sizes[-2]) * (n - sizes[-1]))

    def step(tokens, rows):
        return interp(c["forward_s"], tokens) + interp(c["head_s"], max(1.0, rows)) + rows * c["sample_s"]

    return step


def replies(a):
    cmd = [a.draftbench, "generate", "--model", a.model, "--prompts-file", a.prompts, "--json", "--drafter", "autoregressive",
           "--max-new-tokens", str(a.max_new_tokens), "--temperature", str(a.temperature), "--seed", "1", "--threads", str(a.threads)]
    cmd += ["--chat"] if a.chat else ["--ignore-eos"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    return [(r["prompt_ids"], r["tokens"]) for r in rows[: a.n_prompts]]


def top_probabilities(llm, prompt, reply, temperature, k):
    """[len(reply)][k]: the k largest target probabilities before each reply token, and
    [len(reply)]: the probability of the reply token itself."""
    llm.reset()
    llm.eval(prompt + reply[:-1])
    logits = np.array(llm.scores[len(prompt) - 1 : len(prompt) - 1 + len(reply)], dtype=np.float64) / temperature
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    taken = p[np.arange(len(reply)), reply]
    return -np.sort(-np.partition(p, -k, axis=1)[:, -k:], axis=1), taken


def tree_bound(top, taken, k, depth):
    """Sum over positions of the tokens the oracle tree of top-k children and this depth
    accepts there (the bonus token included), and the number of positions."""
    inside = taken >= top[:, k - 1]  # the sampled token ranks among the k likeliest
    total = 0.0
    for i in range(len(taken)):
        run = 0
        while run < depth and i + run < len(taken) and inside[i + run]:
            run += 1
        total += 1 + run
    return total, len(taken)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--draftbench", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--prompts", required=True)
    ap.add_argument("--n-prompts", type=int, default=16)
    ap.add_argument("--chat", action="store_true")
    ap.add_argument("--max-new-tokens", type=int, default=128)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-depth", type=int, default=8)
    ap.add_argument("--max-width", type=int, default=16)
    ap.add_argument("--tree", action="append", default=[], metavar="K,D",
                    help="also measure tokens/step of the oracle tree of the target's top K tokens per node, depth D")
    a = ap.parse_args()
    trees = []
    for t in a.tree:
        try:
            k, d = (int(x) for x in t.split(","))
        except ValueError:
            sys.exit(f"--tree: expected K,D (two integers), got '{t}'")
        if not (1 <= k <= a.max_width and d >= 1):
            sys.exit(f"--tree {t}: expected 1 <= K <= --max-width ({a.max_width}) and D >= 1")
        trees.append((k, d))
    if a.temperature <= 0:
        sys.exit("--temperature must be > 0 (at 0 the oracle accepts everything it drafts)")
    from llama_cpp import Llama

    step = cost_model(a)
    ar = step(1, 1)
    llm = Llama(model_path=a.model, n_ctx=4096, logits_all=True, n_threads=a.threads, verbose=False)
    expected, seconds, top1 = 0.0, 0.0, []
    bounds = {t: [0.0, 0] for t in trees}
    for prompt, reply in replies(a):
        top, taken = top_probabilities(llm, prompt, reply, a.temperature, a.max_width)
        top1 += list(top[:, 0])
        for t in trees:
            total, n = tree_bound(top, taken, *t)
            bounds[t][0] += total
            bounds[t][1] += n
        for i in range(len(reply)):
            best = (1.0, ar)  # an autoregressive step
            e_chain, acc = 1.0, 1.0
            for d in range(1, min(a.max_depth, len(reply) - i) + 1):
                acc *= top[i + d - 1, 0]
                e_chain += acc
                c = step(1 + d, e_chain)
                if e_chain / c > best[0] / best[1]:
                    best = (e_chain, c)
            for k in range(2, a.max_width + 1):
                e_star = 1.0 + top[i, :k].sum()
                c = step(1 + k, e_star)
                if e_star / c > best[0] / best[1]:
                    best = (e_star, c)
            expected += best[0]
            seconds += best[1]
    print(f"temperature {a.temperature}: mean top-1 probability {np.mean(top1):.3f}, "
          f"oracle {expected / seconds * ar:.3f}x autoregressive "
          f"(autoregressive step {ar * 1e3:.2f} ms in the cost model)")
    for (k, d), (total, n) in bounds.items():
        print(f"temperature {a.temperature}: the oracle tree of top-{k} children, depth {d}, accepts "
              f"{total / n:.2f} tokens/step ({n} positions)")


if __name__ == "__main__":
    main()
