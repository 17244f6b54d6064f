#!/usr/bin/env python3
"""The shipped drafters (models/drafters/*) are what their provenance says, load by default,
decode losslessly, draft better than chance, and no worse than when they were shipped.

For each drafter directory: the SHA-256 of drafter.json and model.safetensors equal the ones
in provenance.json; `draftbench generate --drafter KIND` (with no --drafter-weights: the
shipped one is the default for the default model; the ground-truth variant, and every
drafter of another --root, by path) gives exactly the autoregressive tokens at temperature 0
on held-out prompts; and a drafter trained on distilled labels commits more than 1.5 tokens
per step on them. (Four smoke-training steps already reach 1.1-1.2 on these looping replies,
so "more than one" would prove nothing; the ground-truth variant, at 1.2-1.3 on chat
prompts, is not held to a bar it cannot be told apart by.)

Regression check: provenance.json's "heldout_check" records, when the drafter was shipped
(`--record`), its tokens per step on a fixed held-out slice (prompt ids, T 0, the shipped
sizes). Tokens per step at T 0 is a count, not a timing: it changes only where a near-tie
in the target's logits falls the other way on another CPU. The check fails when the mean
over the slice falls more than 5% below the recorded one.

  scripts/check_shipped_drafters.py --draftbench build/release/draftbench
  scripts/check_shipped_drafters.py ... --root data/smoke/drafters --model M --min-tokens-per-step 0
  scripts/check_shipped_drafters.py --draftbench build/release/draftbench --record [--only NAME]
  scripts/check_shipped_drafters.py --draftbench ... --model qwen2.5-coder-1.5b --root models/drafters/qwen2.5-coder-1.5b

A model alias with its own drafters folder (engine/model/model_aliases.cpp) is checked as the
default model is: `generate --model ALIAS --drafter KIND` must find them with no
--drafter-weights. Besides batch 1, every drafter decodes BATCH_PROMPTS prompts together
(--batch-size 4), again exactly the autoregressive tokens. At temperature 1 every drafter,
with automatic and with fixed sizing, commits exactly the tokens autoregressive sampling
draws with the same seed on SAMPLED_PROMPTS prompts: verification is exact and its draws
are coupled to the positions (sampling.h), so a drafter changes how many tokens a step
commits, never which; that the autoregressive draws follow the target distribution is
proven statistically by the unit tests (decoder_sampling_test.cpp).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DRAFTERS = ("redrafter", "medusa", "eagle", "redrafter-ground-truth")
RECORD_PROMPTS = 8          # the regression slice: the first held-out prompts of the corpus
BATCH_PROMPTS = 4           # decoded together in the batch check
SAMPLED_PROMPTS = 2         # decoded at temperature 1 against autoregressive sampling
SAMPLED_ARGS = ["--temperature", "1", "--seed", "5"]
ALIAS_FOLDERS = {"qwen2.5-coder-1.5b": "models/drafters/qwen2.5-coder-1.5b"}  # as model_aliases.cpp names them
MAX_NEW_TOKENS = 48
REGRESSION_TOLERANCE = 0.05  # relative


def generate(a, prompt, args, max_new_tokens=MAX_NEW_TOKENS):
    cmd = [a.draftbench, "generate", "--chat", "--json", "--max-new-tokens", str(max_new_tokens), "--prompt", prompt] + args
    cmd += ["--model", a.model] if a.model else []
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def generate_batch(a, prompts, args, max_new_tokens):
    """Every prompt's tokens, decoded together at --batch-size len(prompts)."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for pid, prompt in prompts:
            f.write(json.dumps({"id": pid, "prompt": prompt}) + "\n")
    cmd = [a.draftbench, "generate", "--chat", "--json", "--max-new-tokens", str(max_new_tokens), "--prompts-file", f.name,
           "--batch-size", str(len(prompts))] + args + (["--model", a.model] if a.model else [])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    os.unlink(f.name)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: {proc.stderr.strip()}")
    return [json.loads(line)["tokens"] for line in proc.stdout.splitlines() if line.strip()]


def heldout_prompts():
    """(id, text) of the corpus's held-out prompts, in file order."""
    with open("datasets/corpus/prompts.jsonl") as f:
        return [(r["id"], r["prompt"]) for r in map(json.loads, f) if r.get("split") == "heldout"]


def check_files(d, provenance, failures):
    for file, want in provenance["files"].items():
        with open(os.path.join(d, file), "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != want:
                failures.append(f"{d}/{file}: SHA-256 differs from provenance.json")


def check_sampled(a, name, drafter_args, prompts, n_tokens, baseline, failures):
    """At temperature 1, the drafter at fixed and at automatic sizing draws autoregressive sampling's tokens."""
    for pid, prompt in prompts:
        key = (pid, n_tokens, "sampled")
        if key not in baseline:
            baseline[key] = generate(a, prompt, ["--drafter", "autoregressive"] + SAMPLED_ARGS, n_tokens)["tokens"]
        for sizing in ("fixed", "auto"):
            got = generate(a, prompt, drafter_args + ["--sizing", sizing] + SAMPLED_ARGS, n_tokens)
            if got["tokens"] != baseline[key]:
                failures.append(f"{name}: at T 1 ({sizing} sizing), tokens differ from autoregressive sampling on {pid} {prompt[:40]!r}")
            print(f"{name}: T 1, {sizing} sizing, {got['metrics']['tokens_per_step']:.2f} tokens/step on {pid}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draftbench", required=True)
    ap.add_argument("--n-prompts", type=int, default=2, help="held-out prompts for drafters without a recorded slice")
    ap.add_argument("--root", default="models/drafters", help="the drafters' folder")
    ap.add_argument("--model", default="", help="target model (default: generate's, the default model)")
    ap.add_argument("--min-tokens-per-step", type=float, default=1.5, help="each distilled drafter must exceed this")
    ap.add_argument("--record", action="store_true", help="measure the regression slice and write it into provenance.json")
    ap.add_argument("--only", default="", help="check or record this drafter only")
    ap.add_argument("--record-prompts", type=int, default=RECORD_PROMPTS, help="the regression slice's size when recording")
    a = ap.parse_args()
    # generate's defaults apply: the default model's folder, or an alias's own.
    default_model = a.root == "models/drafters" and not a.model
    shipped = default_model or ALIAS_FOLDERS.get(a.model) == a.root
    a.draftbench = os.path.abspath(a.draftbench)
    a.root = os.path.join(ROOT, a.root) if shipped else os.path.abspath(a.root)
    a.model = a.model if a.model in ALIAS_FOLDERS else os.path.abspath(a.model) if a.model else ""
    os.chdir(ROOT)
    heldout = heldout_prompts()
    failures, baseline = [], {}
    # The default model's folder must hold all four; another target's, those it has.
    names = [n for n in DRAFTERS if default_model or os.path.isdir(os.path.join(a.root, n))]
    if not names:
        sys.exit(f"{a.root}: holds none of {', '.join(DRAFTERS)}")
    for name in names:
        if a.only and name != a.only:
            continue
        d = os.path.join(a.root, name)
        path = os.path.join(d, "provenance.json")
        with open(path) as f:
            provenance = json.load(f)
        check_files(d, provenance, failures)
        kind = provenance["train"]["provenance"]["drafter"]
        distilled = provenance["train"]["provenance"]["options"]["labels"] == "distilled"
        recorded = None if a.record else provenance.get("heldout_check")
        n_tokens = recorded["max_new_tokens"] if recorded else MAX_NEW_TOKENS
        if recorded:
            by_id = dict(heldout)
            prompts = [(pid, by_id[pid]) for pid in recorded["prompts"]]
        else:
            prompts = heldout[: a.record_prompts if a.record else a.n_prompts]
        # The shipped sizes, verified whole: tokens per step then measure the drafter, not sizing.
        drafter_args = ["--drafter", kind] + ([] if shipped and name == kind else ["--drafter-weights", d])
        args = drafter_args + ["--sizing", "fixed"]
        per_prompt = []
        for pid, prompt in prompts:
            if (pid, n_tokens) not in baseline:
                baseline[pid, n_tokens] = generate(a, prompt, ["--drafter", "autoregressive"], n_tokens)["tokens"]
            got = generate(a, prompt, args, n_tokens)
            if got["tokens"] != baseline[pid, n_tokens]:
                failures.append(f"{name}: tokens differ from autoregressive decoding on {pid} {prompt[:40]!r}")
            tokens_per_step = got["metrics"]["tokens_per_step"]
            per_prompt.append(tokens_per_step)
            print(f"{name}: {tokens_per_step:.2f} tokens/step on {pid} {prompt[:40]!r}")
            if distilled and tokens_per_step <= a.min_tokens_per_step:
                failures.append(f"{name}: {tokens_per_step:.2f} tokens/step on {pid}, not above {a.min_tokens_per_step}")
        batch = prompts[:BATCH_PROMPTS]
        if len(batch) > 1 and not a.record:
            for pid, prompt in batch:
                if (pid, n_tokens) not in baseline:
                    baseline[pid, n_tokens] = generate(a, prompt, ["--drafter", "autoregressive"], n_tokens)["tokens"]
            together = generate_batch(a, batch, args, n_tokens)
            for (pid, prompt), tokens in zip(batch, together):
                if tokens != baseline[pid, n_tokens]:
                    failures.append(f"{name}: at batch {len(batch)}, tokens differ from autoregressive decoding on {pid} {prompt[:40]!r}")
            print(f"{name}: batch {len(batch)} {'identical' if len(together) == len(batch) else 'incomplete'} to autoregressive decoding")
            if len(together) != len(batch):
                failures.append(f"{name}: batch {len(batch)} gave {len(together)} replies")
        if not a.record:
            check_sampled(a, name, drafter_args, prompts[:SAMPLED_PROMPTS], n_tokens, baseline, failures)
        mean = sum(per_prompt) / len(per_prompt)
        if a.record:
            provenance["heldout_check"] = {"prompts": [pid for pid, _ in prompts], "max_new_tokens": n_tokens, "sizing": "fixed",
                                           "temperature": 0, "tokens_per_step": [round(x, 4) for x in per_prompt], "mean": round(mean, 4)}
            with open(path, "w") as f:
                f.write(json.dumps(provenance, indent=2) + "\n")
            print(f"{name}: recorded {mean:.3f} tokens/step over {len(prompts)} held-out prompts in {path}")
        elif recorded:
            floor = recorded["mean"] * (1 - REGRESSION_TOLERANCE)
            print(f"{name}: mean {mean:.3f} tokens/step, recorded {recorded['mean']:.3f} (floor {floor:.3f})")
            if mean < floor:
                failures.append(f"{name}: {mean:.3f} tokens/step on the recorded slice, below {floor:.3f} (recorded {recorded['mean']:.3f} - 5%)")
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
