#!/usr/bin/env python3
"""Compare draftbench's greedy decoding and first-step logits with llama.cpp's.

For every prompt (one per line; `\\n`, `\\t` and `\\\\` escapes are unescaped), llama.cpp
(via llama-cpp-python) tokenises it (BOS added, special tokens parsed), and both engines
decode `--steps` tokens greedily from the same token ids, EOS ignored. Reported per
prompt: identical tokens (and the first divergence with llama.cpp's logit margin there,
to tell a near-tie from a bug), max |logit difference| on the first step, argmax
agreement, KL of the first step's distributions. Exits 1 if fewer than `--min-share` of
the prompts agree on every token.

`--noise-floor` also runs llama.cpp with flash attention toggled against llama.cpp: the
same metrics then show how far llama.cpp drifts from itself under a change that is exact
in real arithmetic, which is the scale any other correct engine should be judged on.

Usage: check_llamacpp.py --draftbench BIN --model PATH --prompts FILE
                         [--steps 32] [--threads 2] [--noise-floor] [--out JSON]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from typing import Optional

import numpy as np

try:
    import llama_cpp
except ImportError:
    sys.exit("check_llamacpp: the `llama_cpp` package (llama-cpp-python) is missing; "
             "install scripts/requirements-reference.txt")

ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}


def die(msg: str, code: int = 2) -> None:
    print(f"check_llamacpp: {msg}", file=sys.stderr)
    sys.exit(code)


def require_binary(path: str) -> str:
    resolved = shutil.which(path) if os.sep not in path else path
    if not resolved or not os.path.isfile(resolved) or not os.access(resolved, os.X_OK):
        die(f"draftbench binary not found or not executable: {path}")
    return resolved


def unescape(line: str) -> str:
    # Hand-rolled rather than codecs' unicode_escape, which would mangle non-ASCII UTF-8.
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(0)), line)


def load_prompts(path: str) -> list:
    with open(path, encoding="utf-8") as f:
        # Only the line terminator is stripped: trailing spaces are part of a prompt.
        return [unescape(line.rstrip("\r\n")) for line in f if line.strip()]


class LlamaReference:
    """llama.cpp through llama-cpp-python, driven token by token so that EOS never stops it."""

    def __init__(self, model: str, n_ctx: int, threads: int, flash_attn: bool):
        self.llm = llama_cpp.Llama(model_path=model, n_ctx=n_ctx, n_batch=512, n_ubatch=512,
                                   n_threads=threads, n_threads_batch=threads,
                                   flash_attn=flash_attn, verbose=False)
        self.n_vocab = self.llm.n_vocab()

    def tokenize(self, text: str) -> list:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)

    def detokenize(self, ids: list) -> str:
        return self.llm.detokenize(ids).decode("utf-8", errors="replace")

    def _last_logits(self) -> np.ndarray:
        # Llama.eval() requests logits only for the last token of each batch and, without
        # logits_all, no longer copies them into llm.scores: read them from the context.
        ptr = llama_cpp.llama_get_logits_ith(self.llm.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)).copy()

    def _clear(self) -> None:
        self.llm.reset()
        llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(self.llm.ctx), True)

    def greedy(self, ids: list, steps: int, rivals: list):
        """Greedy tokens, the logits after the prompt's last position, and for each rival
        token list the margin logit[ours] - logit[rival's token] at every step (how close
        to a tie this engine was wherever a rival chose differently)."""
        self._clear()
        self.llm.eval(ids)
        logits = self._last_logits()
        first_logits = logits
        tokens, margins = [], [[] for _ in rivals]
        for step in range(steps):
            tok = int(np.argmax(logits))
            tokens.append(tok)
            for rival, out in zip(rivals, margins):
                other = rival[step] if step < len(rival) else tok
                out.append(float(logits[tok] - logits[other]) if 0 <= other < self.n_vocab else None)
            if step + 1 < steps:
                self.llm.eval([tok])
                logits = self._last_logits()
        return tokens, first_logits, margins


@dataclass
class Agreement:
    """How another run agrees with llama.cpp (the primary configuration)."""
    identical: bool
    first_divergence: Optional[int]
    llama_margin_at_divergence: Optional[float]
    first_step_max_abs_logit_diff: float
    first_step_kl: float  # KL(p_llama || p_other) of the first step's softmax, nats
    first_step_argmax_agree: bool


def agreement(ref_tokens, ref_logits, margins, tokens, logits) -> Agreement:
    diverge = next((i for i, (a, b) in enumerate(zip(ref_tokens, tokens)) if a != b), None)
    if diverge is None and len(tokens) != len(ref_tokens):
        diverge = min(len(tokens), len(ref_tokens))
    ref64, oth64 = ref_logits.astype(np.float64), logits.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        max_diff = float(np.nan_to_num(np.abs(oth64 - ref64), nan=np.inf).max())
        log_p = ref64 - ref64.max() - np.log(np.exp(ref64 - ref64.max()).sum())
        log_q = oth64 - oth64.max() - np.log(np.exp(oth64 - oth64.max()).sum())
        kl = float(np.sum(np.exp(log_p) * (log_p - log_q)))
    return Agreement(
        identical=diverge is None, first_divergence=diverge,
        llama_margin_at_divergence=margins[diverge] if diverge is not None and diverge < len(margins) else None,
        first_step_max_abs_logit_diff=max_diff, first_step_kl=kl if np.isfinite(kl) else float("inf"),
        first_step_argmax_agree=int(np.argmax(logits)) == int(np.argmax(ref_logits)))


@dataclass
class PromptResult:
    index: int
    prompt: str
    n_prompt_tokens: int
    draftbench: Agreement
    # llama.cpp with flash attention toggled, against llama.cpp: the noise floor, i.e. how
    # much llama.cpp disagrees with itself after a change that is exact in real arithmetic.
    llamacpp_alt: Optional[Agreement]
    draftbench_tokens: list
    llamacpp_tokens: list
    llamacpp_text: str
    draftbench_text: str
    draftbench_seconds: float


def parse_json_stdout(text: str) -> dict:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        # Tolerate log lines before the JSON object: take the last line that parses.
        for line in reversed(text.strip().splitlines()):
            if line.lstrip().startswith("{"):
                try:
                    return json.loads(line)
                except json.JSONDecodeError:
                    continue
    raise ValueError("no JSON object on stdout")


def run_ours(binary: str, model: str, ids: list, steps: int, logits_path: str):
    cmd = [binary, "generate", "--model", model, "--prompt-ids", ",".join(map(str, ids)),
           "--max-new-tokens", str(steps), "--temperature", "0", "--ignore-eos", "--json",
           "--first-logits-out", logits_path]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        last = (proc.stderr.strip() or proc.stdout.strip() or "(no output)").splitlines()[-1]
        die(f"`{binary} generate ...` exited with {proc.returncode}: {last}", 1)
    try:
        tokens = [int(t) for t in parse_json_stdout(proc.stdout)["tokens"]]
    except (ValueError, KeyError, TypeError) as e:
        die(f"cannot read `tokens` from draftbench's JSON output ({e})", 1)
    logits = np.fromfile(logits_path, dtype="<f4")
    return tokens, logits, seconds


def fmt_agreement(a: Optional[Agreement]) -> str:
    if a is None:
        return ""
    div = "" if a.first_divergence is None else str(a.first_divergence)
    margin = "" if a.llama_margin_at_divergence is None else f"{a.llama_margin_at_divergence:.3g}"
    return (f"{'yes' if a.identical else 'no'} | {div} | {margin} | {a.first_step_max_abs_logit_diff:.3g} | "
            f"{a.first_step_kl:.2g} | {'yes' if a.first_step_argmax_agree else 'no'}")


def print_table(results: list, with_alt: bool) -> None:
    cols = "identical | first divergence | llama margin there | max abs logit diff (step 0) | KL (step 0) | argmax agrees"
    head = f"| # | prompt tokens | {cols} |"
    rule = "|---|---|" + "---|" * 6
    if with_alt:
        head += f" llama.cpp FA toggled: {cols} |"
        rule += "---|" * 6
    print("draftbench vs llama.cpp" + (" (and llama.cpp vs itself with flash attention toggled)" if with_alt else ""))
    print(head)
    print(rule)
    for r in results:
        line = f"| {r.index} | {r.n_prompt_tokens} | {fmt_agreement(r.draftbench)} |"
        if with_alt:
            line += f" {fmt_agreement(r.llamacpp_alt)} |"
        print(line)


def summarise(agreements: list) -> dict:
    n = len(agreements)
    return {
        "identical_share": sum(a.identical for a in agreements) / n,
        "first_step_argmax_agree_share": sum(a.first_step_argmax_agree for a in agreements) / n,
        "first_step_max_abs_logit_diff": max(a.first_step_max_abs_logit_diff for a in agreements),
        "first_step_median_max_abs_logit_diff": float(np.median([a.first_step_max_abs_logit_diff for a in agreements])),
        "first_step_median_kl": float(np.median([a.first_step_kl for a in agreements])),
        "first_step_max_kl": max(a.first_step_kl for a in agreements),
    }


def run(args) -> int:
    binary = require_binary(args.draftbench)
    if not os.path.isfile(args.model):
        die(f"model not found: {args.model}")
    prompts = load_prompts(args.prompts)
    if not prompts:
        die(f"no prompts in {args.prompts}")

    llama = LlamaReference(args.model, args.ctx, args.threads, args.flash_attn == "on")
    token_ids = [llama.tokenize(p) for p in prompts]
    too_long = [i for i, ids in enumerate(token_ids) if len(ids) + args.steps > args.ctx]
    if too_long:
        die(f"prompt {too_long[0]} needs {len(token_ids[too_long[0]]) + args.steps} positions; raise --ctx")

    # The noise floor: the same llama.cpp with flash attention toggled.
    alt = (LlamaReference(args.model, args.ctx, args.threads, args.flash_attn != "on")
           if args.noise_floor else None)

    results = []
    with tempfile.TemporaryDirectory(prefix="draftbench-llamacpp-") as tmp:
        logits_path = os.path.join(tmp, "first_logits.f32")
        for index, (prompt, ids) in enumerate(zip(prompts, token_ids)):
            ours, ours_logits, seconds = run_ours(binary, args.model, ids, args.steps, logits_path)
            os.remove(logits_path)
            if ours_logits.shape != (llama.n_vocab,):
                die(f"prompt {index}: draftbench wrote {ours_logits.size} logits, expected {llama.n_vocab}", 1)
            alt_tokens, alt_logits, _ = alt.greedy(ids, args.steps, []) if alt else (None, None, None)
            rivals = [ours] + ([alt_tokens] if alt else [])
            ref, ref_logits, margins = llama.greedy(ids, args.steps, rivals)
            results.append(PromptResult(
                index=index, prompt=prompt, n_prompt_tokens=len(ids),
                draftbench=agreement(ref, ref_logits, margins[0], ours, ours_logits),
                llamacpp_alt=agreement(ref, ref_logits, margins[1], alt_tokens, alt_logits) if alt else None,
                draftbench_tokens=ours, llamacpp_tokens=ref,
                llamacpp_text=llama.detokenize(ref),
                draftbench_text=llama.detokenize([t for t in ours if 0 <= t < llama.n_vocab]),
                draftbench_seconds=round(seconds, 3)))

    print_table(results, alt is not None)
    ours_summary = summarise([r.draftbench for r in results])
    share = ours_summary["identical_share"]
    # With --near-tie, a prompt that diverges still passes when llama.cpp's own margin at the
    # first divergent step is below it: two correct engines part there on rounding alone.
    divergence_margins = [r.draftbench.llama_margin_at_divergence for r in results if not r.draftbench.identical]
    all_near_ties = args.near_tie is not None and all(m is not None and m < args.near_tie for m in divergence_margins)
    passed = share >= args.min_share or all_near_ties
    summary = {"prompts": len(results), "steps": args.steps, "min_share": args.min_share, "near_tie": args.near_tie,
               "largest_margin_at_divergence": max((m for m in divergence_margins if m is not None), default=None),
               "passed": passed, "draftbench_vs_llamacpp": ours_summary}
    n_same = sum(r.draftbench.identical for r in results)
    print(f"llamacpp: {n_same}/{len(results)} prompts identical over {args.steps} greedy steps "
          f"({share:.1%}, need {args.min_share:.0%}); first-step argmax agrees on "
          f"{ours_summary['first_step_argmax_agree_share']:.1%}; max abs logit diff "
          f"{ours_summary['first_step_max_abs_logit_diff']:.3g}, median KL {ours_summary['first_step_median_kl']:.2g}"
          f" -> {'PASS' if passed else 'FAIL'}"
          f"{' (every divergence at a near-tie: llama.cpp margin < ' + str(args.near_tie) + ')' if all_near_ties and share < args.min_share else ''}")
    if alt:
        floor = summarise([r.llamacpp_alt for r in results])
        summary["llamacpp_fa_toggled_vs_llamacpp"] = floor
        print(f"noise floor (llama.cpp, flash attention {'off' if args.flash_attn == 'on' else 'on'} vs "
              f"{args.flash_attn}): {floor['identical_share']:.1%} identical, argmax agrees "
              f"{floor['first_step_argmax_agree_share']:.1%}, max abs logit diff "
              f"{floor['first_step_max_abs_logit_diff']:.3g}, median KL {floor['first_step_median_kl']:.2g}")
    if args.out:
        report = {
            "config": {"draftbench": binary, "model": os.path.abspath(args.model),
                       "prompts_file": os.path.abspath(args.prompts), "steps": args.steps,
                       "threads": args.threads, "flash_attn": args.flash_attn,
                       "llama_cpp_python": llama_cpp.__version__,
                       "llama_cpp_system_info": llama_cpp.llama_print_system_info().decode().strip()},
            "summary": summary,
            "prompts": [asdict(r) for r in results],
        }
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2, ensure_ascii=False)
    return 0 if passed else 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draftbench", required=True, help="path to the draftbench binary")
    ap.add_argument("--model", required=True, help="GGUF model file")
    ap.add_argument("--prompts", required=True, help="prompts file, one per line, \\n escapes")
    ap.add_argument("--steps", type=int, default=32, help="greedy tokens per prompt")
    ap.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    ap.add_argument("--ctx", type=int, default=4096, help="llama.cpp context size (prompt + steps must fit)")
    ap.add_argument("--flash-attn", choices=["on", "off"], default="on",
                    help="llama.cpp flash attention (llama.cpp's CLI default 'auto' means on for CPU)")
    ap.add_argument("--min-share", type=float, default=0.95,
                    help="required share of prompts with identical greedy output")
    ap.add_argument("--near-tie", type=float,
                    help="also pass when every divergence is where llama.cpp's top-2 margin is below this")
    ap.add_argument("--noise-floor", action="store_true",
                    help="also compare llama.cpp with flash attention toggled against llama.cpp, "
                         "to show how much llama.cpp disagrees with itself")
    ap.add_argument("--out", help="write the full report as JSON here")
    sys.exit(run(ap.parse_args()))


if __name__ == "__main__":
    main()
