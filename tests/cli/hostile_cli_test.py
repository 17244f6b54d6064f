#!/usr/bin/env python3
"""Hostile input through the CLI (issue: nothing crashes, hangs or is silently lost): bad
numbers are one-line errors before anything runs, temperatures below the greedy epsilon
decode exactly as greedy, FIFOs and devices are refused at once (every call has a timeout),
bad specs fail before any point runs, and a second run on a locked --out is refused."""
import argparse, json, os, subprocess, sys, tempfile, time

TIMEOUT = 120


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=kw.pop("timeout", TIMEOUT), **kw)


def refused(r, *needles):
    """A clean refusal: a non-zero exit (no signal), every needle in stderr, no raw control bytes."""
    assert r.returncode > 0, (r.returncode, r.stderr)
    for n in needles:
        assert n in r.stderr, (n, r.stderr)
    assert not any(ord(c) < 32 and c != "\n" for c in r.stderr), r.stderr


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--draftbench", required=True)
    p.add_argument("--root", required=True)
    a = p.parse_args()
    db = a.draftbench
    gen = [db, "generate", "--prompt", "hi", "--max-new-tokens", "4", "--ignore-eos", "--json", "--drafter", "autoregressive"]

    for t in ["nan", "-nan", "inf", "-1", "1e400"]:
        refused(run(gen + ["--temperature", t]), "--temperature")
    refused(run(gen + ["--top-p", "nan"]), "--top-p")
    refused(run(gen + ["--seed", "-1"]), "--seed")
    refused(run(gen + ["--threads", "100000"]), "--threads")
    refused(run(gen + ["--threads", "-1"]), "--threads")
    refused(run([db, "frobnicate"]), "frobnicate")

    greedy = json.loads(run(gen).stdout.splitlines()[-1])["tokens"]
    for t in ["1e-39", "1e-40", "1e-45", "0.00001"]:
        r = run(gen + ["--temperature", t])
        assert r.returncode == 0, (t, r.stderr)
        assert json.loads(r.stdout.splitlines()[-1])["tokens"] == greedy, t

    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "pipe")
        os.mkfifo(fifo)
        # Nothing ever writes to the FIFO: a blocking open would run into the timeout.
        refused(run([db, "generate", "--model", fifo, "--prompt", "hi"], timeout=30), "FIFO")
        refused(run([db, "generate", "--prompts-file", fifo], timeout=30), "FIFO")
        refused(run([db, "generate", "--prompts-file", "/dev/zero"], timeout=30), "character device")
        refused(run([db, "generate", "--model", "/dev/zero", "--prompt", "hi"], timeout=30), "character device")
        refused(run([db, "run", fifo, "--dry-run"], timeout=30), "FIFO")
        refused(run([db, "run", tmp, "--dry-run"], timeout=30), "is a directory")

        spec = os.path.join(tmp, "tiny.yaml")
        dataset = os.path.join(a.root, "datasets/mt_bench_style/question.jsonl")

        def write_spec(sweep, name="tiny"):
            with open(spec, "w") as f:
                f.write(f"schema_version: 1\nname: {name}\ndatasets:\n  - name: mt\n    path: {dataset}\n    limit: 1\n"
                        f"warmup: 0\nsweep:\n{sweep}")

        write_spec("  drafter: [autoregressive]\n", name="../escape")
        refused(run([db, "run", spec, "--dry-run"]), "expected a plain name")
        write_spec("  drafter: [autoregressive]\n  batch_size: {from: 1, to: 100}\n  beam_width: {from: 1, to: 1000}\n"
                   "  top_k: {from: 1, to: 10}\n  max_new_tokens: {from: 1, to: 10000}\n  seed: {from: 0, to: 9999}\n")
        refused(run([db, "run", spec, "--dry-run"], timeout=30), "plans 100000000000000 points", "--max-points")

        # A subnormal temperature: loads, runs, and decodes exactly as temperature 0.
        write_spec("  drafter: [autoregressive]\n  temperature: [0, 1e-40]\n  max_new_tokens: 4\n")
        out = os.path.join(tmp, "out")
        r = run([db, "run", spec, "--out", out])
        assert r.returncode == 0, r.stderr
        records = [json.loads(line)["record"] for line in open(os.path.join(out, "results.jsonl"))]
        assert [rec["status"] for rec in records] == ["ok", "ok"], records
        prints = [[pp["tokens_fingerprint"] for pp in rec["per_prompt"]] for rec in records]
        assert prints[0] == prints[1], prints

        # The output lock: a second run on a held --out is refused, naming the holder's pid.
        write_spec("  drafter: [autoregressive]\n  max_new_tokens: 64\n  seed: {from: 0, to: 5}\n")
        locked = os.path.join(tmp, "locked")
        first = subprocess.Popen([db, "run", spec, "--out", locked], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            lock = os.path.join(locked, ".draftbench.lock")
            deadline = time.time() + 60
            while time.time() < deadline and not (os.path.exists(lock) and open(lock).read().strip()):
                time.sleep(0.05)
            second = run([db, "run", spec, "--out", locked, "--resume"])
            refused(second, "is in use by another draftbench process", f"pid {first.pid}")
        finally:
            first.kill()
            first.wait()
    print("hostile CLI inputs: all refused cleanly; subnormal temperatures decode greedily; the output lock holds")


if __name__ == "__main__":
    main()
