#!/usr/bin/env python3
"""scripts/plot_training.py draws both figures from a run's train_epochs.jsonl and
train_log.json, and refuses a missing or malformed log with one line naming the file."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def record(epoch, heads):
    tally = lambda loss: {"loss": loss, "steps": [{"loss": loss / heads, "top1": 0.1, "top3": 0.2, "top5": 0.3, "count": 10}] * heads}
    return {"epoch": epoch, "step": 5 * epoch, "drafter": "medusa", "per": "head", "train": tally(3.0 / epoch), "valid": tally(3.2 / epoch),
            "valid_top1": [0.1 * epoch / (h + 1) for h in range(heads)], "valid_top3": [0.2 * epoch / (h + 1) for h in range(heads)],
            "seconds": 1.0, "best": True}


def run(script, *args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    script = os.path.join(args.root, "scripts", "plot_training.py")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = os.path.join(tmp, "medusa")
        os.makedirs(run_dir)
        with open(os.path.join(run_dir, "train_epochs.jsonl"), "w") as f:
            for e in (1, 2, 3):
                f.write(json.dumps(record(e, 3)) + "\n")
        with open(os.path.join(run_dir, "train_log.json"), "w") as f:
            json.dump({"drafter": "medusa", "entries": [{"step": s, "loss": 3.0 - 0.1 * s} for s in range(1, 16)], "epochs": []}, f)
        r = run(script, run_dir)
        if r.returncode != 0:
            failures.append(f"plotting a good run failed: {r.stderr}")
        for name in ("training_loss", "training_accuracy"):
            for ext in ("png", "svg"):
                path = os.path.join(run_dir, "plots", f"{name}.{ext}")
                if not os.path.isfile(path) or os.path.getsize(path) == 0:
                    failures.append(f"{path} not written")
        # Bad input: missing, not JSON, a field missing.
        missing = os.path.join(tmp, "nowhere")
        r = run(script, missing)
        if r.returncode != 1 or "train_epochs.jsonl" not in r.stderr or "missing" not in r.stderr or len(r.stderr.strip().splitlines()) != 1:
            failures.append(f"a missing log: exit {r.returncode}, stderr {r.stderr!r}")
        with open(os.path.join(run_dir, "train_epochs.jsonl"), "a") as f:
            f.write("{not json\n")
        r = run(script, run_dir)
        if r.returncode != 1 or "line 4" not in r.stderr:
            failures.append(f"a corrupt line: exit {r.returncode}, stderr {r.stderr!r}")
        bad = record(1, 2)
        del bad["valid_top3"]
        with open(os.path.join(run_dir, "train_epochs.jsonl"), "w") as f:
            f.write(json.dumps(bad) + "\n")
        r = run(script, run_dir)
        if r.returncode != 1 or "valid_top3" not in r.stderr:
            failures.append(f"a record without valid_top3: exit {r.returncode}, stderr {r.stderr!r}")
    for failure in failures:
        print("FAIL:", failure)
    print("ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
