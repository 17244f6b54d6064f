#!/usr/bin/env python3
"""Prefill and decode speed of draftbench next to llama.cpp, measured in one run.

draftbench: `BIN bench decode --model M --prompt-tokens N --gen-tokens G --threads T
--repeats 1 --json`, once per repeat. llama.cpp (llama-cpp-python, same model and
threads) is measured the way llama-bench measures pp<N> / tg<G>: N tokens (BOS, then
random ids from a fixed seed) decoded as one batch with logits for the last token only;
then G single-token decodes (greedy) from an empty context; fresh KV cache every
repeat; one warm-up before the first. Repeats alternate ours/theirs, swapping who goes
first each round, so machine drift (thermal, the other build on a 2-core box) hits both.

Usage: bench_vs_llamacpp.py --draftbench BIN --model PATH [--threads 2]
       [--prompt-tokens 512] [--gen-tokens 128] [--repeats 5] [--out JSON]
"""
import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

try:
    import llama_cpp
except ImportError:
    sys.exit("bench_vs_llamacpp: the `llama_cpp` package (llama-cpp-python) is missing; "
             "install scripts/requirements-reference.txt")


def die(msg: str, code: int = 2) -> None:
    print(f"bench_vs_llamacpp: {msg}", file=sys.stderr)
    sys.exit(code)


def require_binary(path: str) -> str:
    resolved = shutil.which(path) if os.sep not in path else path
    if not resolved or not os.path.isfile(resolved) or not os.access(resolved, os.X_OK):
        die(f"draftbench binary not found or not executable: {path}")
    return resolved


def parse_json_stdout(text: str) -> dict:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        for line in reversed(text.strip().splitlines()):
            if line.lstrip().startswith("{"):
                try:
                    return json.loads(line)
                except json.JSONDecodeError:
                    continue
    raise ValueError("no JSON object on stdout")


def run_ours(binary: str, args) -> dict:
    cmd = [binary, "bench", "decode", "--model", args.model,
           "--prompt-tokens", str(args.prompt_tokens), "--gen-tokens", str(args.gen_tokens),
           "--threads", str(args.threads), "--repeats", "1", "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip() or proc.stdout.strip() or "(no output)").splitlines()[-1]
        die(f"`{' '.join(cmd)}` exited with {proc.returncode}: {last}", 1)
    try:
        out = parse_json_stdout(proc.stdout)
        return {"prefill_tps": float(out["prefill_tokens_per_s"]["median"]),
                "decode_tps": float(out["decode_tokens_per_s"]["median"]),
                "peak_rss_bytes": int(out.get("peak_rss_bytes", 0)), "raw": out}
    except (ValueError, KeyError, TypeError) as e:
        die(f"cannot read draftbench's bench JSON ({e}): {proc.stdout.strip()[:200]}", 1)


class LlamaBench:
    """llama.cpp with llama-bench's defaults (n_batch 2048, n_ubatch 512, f16 KV, flash
    attention on, which is what llama-bench's `-fa auto` resolves to on CPU)."""

    def __init__(self, args):
        self.args = args
        self.llm = llama_cpp.Llama(
            model_path=args.model, n_ctx=args.prompt_tokens + args.gen_tokens,
            n_batch=max(2048, args.prompt_tokens), n_ubatch=512,
            n_threads=args.threads, n_threads_batch=args.threads,
            flash_attn=args.flash_attn == "on", verbose=False)
        self.n_vocab = self.llm.n_vocab()
        self.bos = self.llm.token_bos()
        rng = np.random.default_rng(args.seed)
        # BOS, then uniform random ids away from the special ids at both ends of the vocabulary
        # (as draftbench's bench does; the ids do not change the amount of work).
        self.prompt = [self.bos] + [int(t) for t in rng.integers(1000, self.n_vocab - 1000, args.prompt_tokens - 1)]

    def _clear(self) -> None:
        self.llm.reset()
        llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(self.llm.ctx), True)

    def _argmax_last(self) -> int:
        ptr = llama_cpp.llama_get_logits_ith(self.llm.ctx, -1)
        return int(np.argmax(np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))))

    def prefill(self, n_tokens: int) -> float:
        self._clear()
        t0 = time.perf_counter()
        self.llm.eval(self.prompt[:n_tokens])
        self._argmax_last()  # logits are ready when eval returns; reading them is part of a real step
        return n_tokens / (time.perf_counter() - t0)

    def decode(self, n_tokens: int) -> float:
        self._clear()
        tok = self.bos
        t0 = time.perf_counter()
        for _ in range(n_tokens):
            self.llm.eval([tok])
            tok = self._argmax_last()
        return n_tokens / (time.perf_counter() - t0)

    def warm_up(self) -> None:
        self.prefill(len(self.prompt))
        self.decode(1)

    def repeat(self) -> dict:
        return {"prefill_tps": self.prefill(len(self.prompt)), "decode_tps": self.decode(self.args.gen_tokens)}


def summarise(values: list) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "mean": statistics.fmean(values),
            "stdev": statistics.stdev(values) if len(values) > 1 else 0.0, "values": values}


def fmt(s: dict) -> str:
    return f"{s['median']:.1f} ({s['min']:.1f}–{s['max']:.1f})"


def run(args) -> int:
    binary = require_binary(args.draftbench)
    if not os.path.isfile(args.model):
        die(f"model not found: {args.model}")
    if args.prompt_tokens < 1 or args.gen_tokens < 1 or args.repeats < 1:
        die("--prompt-tokens, --gen-tokens and --repeats must be >= 1")

    theirs = LlamaBench(args)
    theirs.warm_up()  # draftbench's bench runs its own warm-up inside every invocation

    ours_runs, theirs_runs, loads = [], [], []
    for r in range(args.repeats):
        order = ("ours", "theirs") if r % 2 == 0 else ("theirs", "ours")
        for who in order:
            if who == "ours":
                ours_runs.append(run_ours(binary, args))
            else:
                theirs_runs.append(theirs.repeat())
        # Other work on the machine skews both engines (llama.cpp's OpenMP threads spin and
        # suffer most), so keep the load next to the numbers.
        loads.append(os.getloadavg()[0])
        print(f"  repeat {r + 1}/{args.repeats} (load {loads[-1]:.1f}): ours pp {ours_runs[-1]['prefill_tps']:.1f} "
              f"tg {ours_runs[-1]['decode_tps']:.1f} | llama.cpp pp {theirs_runs[-1]['prefill_tps']:.1f} "
              f"tg {theirs_runs[-1]['decode_tps']:.1f}", file=sys.stderr)

    ours = {k: summarise([x[k] for x in ours_runs]) for k in ("prefill_tps", "decode_tps")}
    ref = {k: summarise([x[k] for x in theirs_runs]) for k in ("prefill_tps", "decode_tps")}
    ours_rss = max(x["peak_rss_bytes"] for x in ours_runs)
    # ru_maxrss is in KiB on Linux; it covers Python and numpy as well as llama.cpp.
    theirs_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    ratio = {k: ours[k]["median"] / ref[k]["median"] for k in ours}

    if max(loads) > args.threads + 1:
        print(f"bench_vs_llamacpp: warning: 1-minute load average reached {max(loads):.1f} with "
              f"{os.cpu_count()} CPUs; other work was running and the numbers are noisy", file=sys.stderr)

    pp, tg = f"pp{args.prompt_tokens}", f"tg{args.gen_tokens}"
    print(f"\nthreads {args.threads}, {args.repeats} interleaved repeats, t/s median (min–max)\n")
    print(f"| engine | {pp} t/s | {tg} t/s | peak RSS MiB |")
    print("|---|---|---|---|")
    print(f"| draftbench | {fmt(ours['prefill_tps'])} | {fmt(ours['decode_tps'])} | {ours_rss / 2**20:.0f} |")
    print(f"| llama.cpp (llama-cpp-python {llama_cpp.__version__}) | {fmt(ref['prefill_tps'])} | "
          f"{fmt(ref['decode_tps'])} | {theirs_rss / 2**20:.0f} (whole Python process) |")
    print(f"| ratio draftbench / llama.cpp | {ratio['prefill_tps']:.2f} | {ratio['decode_tps']:.2f} | |")

    if args.out:
        report = {
            "config": {"draftbench": binary, "model": os.path.abspath(args.model),
                       "threads": args.threads, "prompt_tokens": args.prompt_tokens,
                       "gen_tokens": args.gen_tokens, "repeats": args.repeats, "seed": args.seed,
                       "flash_attn": args.flash_attn, "llama_cpp_python": llama_cpp.__version__,
                       "llama_cpp_system_info": llama_cpp.llama_print_system_info().decode().strip(),
                       "machine": platform.machine(), "cpus": os.cpu_count(),
                       "llamacpp_decode_from": "empty context (llama-bench tg)",
                       "loadavg_1min_per_repeat": loads,
                       "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
            "draftbench": {"prefill_tokens_per_s": ours["prefill_tps"], "decode_tokens_per_s": ours["decode_tps"],
                           "peak_rss_bytes": ours_rss, "raw_runs": [x["raw"] for x in ours_runs]},
            "llamacpp": {"prefill_tokens_per_s": ref["prefill_tps"], "decode_tokens_per_s": ref["decode_tps"],
                         "peak_rss_bytes_python_process": theirs_rss},
            "ratio_draftbench_over_llamacpp": {"prefill": ratio["prefill_tps"], "decode": ratio["decode_tps"]},
        }
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draftbench", required=True, help="path to the draftbench binary")
    ap.add_argument("--model", required=True, help="GGUF model file")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--prompt-tokens", type=int, default=512)
    ap.add_argument("--gen-tokens", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1234, help="seed for llama.cpp's random prompt ids")
    ap.add_argument("--flash-attn", choices=["on", "off"], default="on")
    ap.add_argument("--out", help="write the results as JSON here")
    sys.exit(run(ap.parse_args()))


if __name__ == "__main__":
    main()
