#!/usr/bin/env python3
"""Hostile input through the CLI (issue: nothing crashes, hangs or is silently lost): bad
numbers are one-line errors before anything runs, temperatures below the greedy epsilon
decode exactly as greedy, FIFOs and devices are refused at once (every call has a timeout;
generate's, distill's and tokenize's input files alike),
bad specs (NaN, infinite or subnormal-step values, huge grids, FIFOs and devices as dataset or
model) fail before any point runs, a second run on a locked --out is refused, a bad drafter.json is
blamed on its key or field, and a model file truncated mid-run is named in one line."""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

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
    # Integer options name their own range (not the largest double), and echo what was given.
    r = run(gen + ["--sampling-top-k", "-5"])
    refused(r, "--sampling-top-k", "expected an integer in [0, 2147483647], got '-5'")
    assert len(r.stderr) < 200, r.stderr
    for seed in ["9007199254740993", "9007199254740995"]:
        refused(run(gen + ["--seed", seed]), "--seed", f"got {seed}")
    # Two calibrations at once would time each other: the second is refused while the first runs.
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, DRAFTBENCH_CACHE=cache)
        first = subprocess.Popen([db, "calibrate", "--threads", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        lock = os.path.join(cache, ".draftbench.lock")
        deadline = time.time() + 60
        while time.time() < deadline and not (os.path.exists(lock) and open(lock).read().strip()):
            time.sleep(0.02)
        assert first.poll() is None, "the first calibration ended before the second could start"  # it measures for many seconds
        second = run([db, "calibrate", "--threads", "1"], env=env)
        first.kill()
        first.wait()
        refused(second, "is in use by another draftbench process", "one calibration at a time")
    # A chat template without --chat would be ignored: refused instead.
    refused(run(gen + ["--chat-template", "chatml"]), "--chat-template requires --chat")
    # A prompt too long for the context is named by its place among the prompts.
    with tempfile.TemporaryDirectory() as tmp:
        long_prompts = os.path.join(tmp, "long.jsonl")
        with open(long_prompts, "w") as f:
            f.write(json.dumps({"prompt": "hi"}) + "\n" + json.dumps({"prompt": "word " * 40000}) + "\n")
        for drafter in ["autoregressive", "ngram"]:
            refused(run([db, "generate", "--prompts-file", long_prompts, "--max-new-tokens", "4", "--drafter", drafter]),
                    "prompt 2: 40002 tokens", "exceed the model's context")
    # inspect takes a model as every command does: a path, an alias, or --model.
    for how in [["gemma3-270m"], ["--model", "gemma3-270m"], []]:
        r = run([db, "inspect", *how])
        assert r.returncode == 0 and "gemma-3-270m-q4_k_m.gguf" in r.stdout, (how, r.stderr)
    refused(run([db, "frobnicate"]), "unknown command 'frobnicate' (expected one of: generate, bench,")

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
        # distill's and tokenize's input files too: a FIFO would block, /dev/zero never ends.
        model = os.path.join(a.root, "models", "gemma-3-270m-q4_k_m.gguf")
        out = os.path.join(tmp, "distill-out")
        for flag in ["--prompts", "--texts"]:
            refused(run([db, "distill", flag, fifo, "--out", out], timeout=30), "FIFO")
            refused(run([db, "distill", flag, "/dev/zero", "--out", out], timeout=30), "character device")
        prompts = os.path.join(tmp, "prompts.jsonl")
        with open(prompts, "w") as f:
            f.write('{"prompt": "hi"}\n')
        followups = [db, "distill", "--prompts", prompts, "--model", model, "--out", out, "--first-turns", tmp, "--followups"]
        refused(run(followups + [fifo], timeout=30), "FIFO")
        refused(run(followups + ["/dev/zero"], timeout=30), "character device")
        for jsonl in [[], ["--jsonl"]]:
            refused(run([db, "tokenize", "--model", model, "--text-file", fifo, *jsonl], timeout=30), "FIFO")
            refused(run([db, "tokenize", "--model", model, "--text-file", "/dev/zero", *jsonl], timeout=30), "character device")
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
        write_spec("  drafter: [autoregressive]\n", name="/tmp/escape")
        refused(run([db, "run", spec, "--dry-run"]), "expected a plain name")

        # A FIFO or a device named inside a spec (dataset, model) is refused at once too.
        with open(spec, "w") as f:
            f.write(f"schema_version: 1\nname: fifo\ndatasets:\n  - name: mt\n    path: {fifo}\nsweep:\n  drafter: [autoregressive]\n")
        refused(run([db, "run", spec, "--dry-run"], timeout=30), "datasets[0].path", "is not a regular file")
        for model in (fifo, "/dev/zero"):
            with open(spec, "w") as f:
                f.write(f"schema_version: 1\nname: m\nmodel: {model}\ndatasets:\n  - name: mt\n    path: {dataset}\nsweep:\n  drafter: [autoregressive]\n")
            refused(run([db, "run", spec, "--dry-run"], timeout=30), model, "not a regular file")

        # A NaN, an infinity or a huge grid in a sweep ends with an error before any point runs.
        for sweep in ["  drafter: [autoregressive]\n  temperature: [0, .nan]\n",
                      "  drafter: [autoregressive]\n  temperature: [.inf]\n",
                      "  drafter: [autoregressive]\n  temperature: [-.nan]\n",
                      "  drafter: [autoregressive]\n  temperature: {from: 0, to: 1, step: 1e-300}\n",
                      "  drafter: [autoregressive]\n  temperature: {from: 0, to: 1, step: 4.9e-324}\n",
                      "  drafter: [autoregressive]\n  seed: {from: 0, to: 100000}\n  max_new_tokens: {from: 1, to: 100000}\n"]:
            write_spec(sweep)
            nothing_ran = os.path.join(tmp, "nothing_ran")
            refused(run([db, "run", spec, "--out", nothing_ran], timeout=60), "tiny.yaml")
            assert not os.path.exists(os.path.join(nothing_ran, "results.jsonl")), sweep
        write_spec("  drafter: [autoregressive]\n  batch_size: {from: 1, to: 100}\n  beam_width: {from: 1, to: 1000}\n"
                   "  top_k: {from: 1, to: 10}\n  max_new_tokens: {from: 1, to: 10000}\n  seed: {from: 0, to: 9999}\n")
        refused(run([db, "run", spec, "--dry-run"], timeout=30), "plans 100000000000000 points", "--max-points")

        # A subnormal temperature in a spec is refused before any point runs (the command
        # line's --temperature 1e-40 decodes greedily, above).
        write_spec("  drafter: [autoregressive]\n  temperature: [0, 1e-40]\n  max_new_tokens: 4\n")
        out = os.path.join(tmp, "out")
        refused(run([db, "run", spec, "--out", out], timeout=60), "tiny.yaml", "subnormal")
        assert not os.path.exists(os.path.join(out, "results.jsonl"))

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
        drafter_config_errors(db, tmp)
        truncated_model(db, tmp, a.root)
    print("hostile CLI inputs: all refused cleanly; subnormal temperatures decode greedily on the command line and are "
          "refused in specs; the output lock holds; "
          "a model truncated mid-run is named")


def drafter_config_errors(db, tmp):
    """drafter.json: an unknown key and a layer count the weights disagree with are one line blaming
    the key and the field (NaN weights: tests/hostile/drafter_config_test.cpp). With an empty cost
    cache: the weights are refused before any calibration would print its progress."""
    gen = [db, "generate", "--prompt", "hi", "--max-new-tokens", "2", "--drafter", "redrafter"]
    empty_cache = dict(os.environ, DRAFTBENCH_CACHE=os.path.join(tmp, "empty_cost_cache"))
    for name, edit, needles in [("typo", lambda c: c.update(num_draft_layer=2), ["drafter.json: key 'num_draft_layer': unknown"]),
                                ("zero", lambda c: c.update(num_draft_layers=0), ["drafter.json: field 'num_draft_layers': 0 does not match the weights"])]:
        d = os.path.join(tmp, "redrafter_" + name)
        r = run([db, "drafter", "init", "--drafter", "redrafter", "--out", d])
        assert r.returncode == 0, r.stderr
        path = os.path.join(d, "drafter.json")
        config = json.load(open(path))
        edit(config)
        json.dump(config, open(path, "w"))
        r = run(gen + ["--drafter-weights", d], env=empty_cache)
        refused(r, *needles)
        assert r.stderr.count("\n") == 1, r.stderr


def truncated_model(db, tmp, root):
    """The model file cut short while generate reads it: one line naming the file, exit status 1,
    not a bare SIGBUS. The file is truncated once text streams, so the weights are in use."""
    model = os.path.join(tmp, "shrinking.gguf")
    shutil.copyfile(os.path.join(root, "models", "gemma-3-270m-q4_k_m.gguf"), model)
    p = subprocess.Popen([db, "generate", "--model", model, "--prompt", "Count from one to a thousand:", "--max-new-tokens", "2000",
                          "--ignore-eos", "--drafter", "autoregressive", "--threads", "2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        p.stdout.read(1)  # decoding has started
        os.truncate(model, 1 << 20)
        _, err = p.communicate(timeout=TIMEOUT)
    finally:
        p.kill()
        p.wait()
    err = err.decode()
    assert p.returncode == 1, (p.returncode, err)
    assert err.count("\n") == 1 and model in err and "shrank while in use" in err, err


if __name__ == "__main__":
    main()
