#!/usr/bin/env python3
"""The shipped drafters (models/drafters/*) are what their provenance says, load by default,
decode losslessly and draft better than chance.

For each drafter directory: the SHA-256 of drafter.json and model.safetensors equal the ones
in provenance.json; `draftbench generate --drafter KIND` (with no --drafter-weights: the
shipped one is the default for the default model; the ground-truth variant by path) gives
exactly the autoregressive tokens at temperature 0 on held-out prompts; and it commits more
than one token per step on them, which untrained weights do not.

  scripts/check_shipped_drafters.py --draftbench build/release/draftbench
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def generate(draftbench, prompt, args):
    cmd = [draftbench, "generate", "--chat", "--json", "--max-new-tokens", "48", "--prompt", prompt] + args
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draftbench", required=True)
    ap.add_argument("--n-prompts", type=int, default=2)
    a = ap.parse_args()
    os.chdir(ROOT)
    with open("datasets/corpus/prompts.jsonl") as f:
        prompts = [r["prompt"] for r in map(json.loads, f) if r.get("split") == "heldout"][: a.n_prompts]
    failures = []
    baseline = {prompt: generate(a.draftbench, prompt, ["--drafter", "autoregressive"])["tokens"] for prompt in prompts}
    for name in ("redrafter", "medusa", "eagle", "redrafter-ground-truth"):
        d = os.path.join("models/drafters", name)
        with open(os.path.join(d, "provenance.json")) as f:
            provenance = json.load(f)
        for file, want in provenance["files"].items():
            with open(os.path.join(d, file), "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != want:
                    failures.append(f"{d}/{file}: SHA-256 differs from provenance.json")
        kind = provenance["train"]["provenance"]["drafter"]
        args = ["--drafter", kind] + ([] if name == kind else ["--drafter-weights", d])
        for prompt in prompts:
            got = generate(a.draftbench, prompt, args)
            if got["tokens"] != baseline[prompt]:
                failures.append(f"{name}: tokens differ from autoregressive decoding on {prompt[:40]!r}")
            tokens_per_step = got["metrics"]["tokens_per_step"]
            print(f"{name}: {tokens_per_step:.2f} tokens/step on {prompt[:40]!r}")
            if tokens_per_step <= 1.0:
                failures.append(f"{name}: {tokens_per_step:.2f} tokens/step: it never drafts a right token")
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
