#!/usr/bin/env python3
"""Merge Google Benchmark JSON runs of the same binary on the same machine into one file.

Some costs are fixed per process (where the allocator put a buffer, how code aligned): one
process's repetitions share them, so the gate (scripts/bench_compare.py) compares
repetitions pooled from several processes. The merged file keeps the first run's context
and every per-repetition row; aggregate rows are dropped (bench_compare recomputes them).

  bench_merge.py OUT.json IN.json [IN.json ...]
"""
import json
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    out, inputs = argv[1], argv[2:]
    merged = None
    for path in inputs:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            context, rows = doc["context"], doc["benchmarks"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"bench_merge: {path}: not a Google Benchmark JSON run ({e})", file=sys.stderr)
            return 2
        if merged is None:
            merged = {"context": dict(context, merged_runs=len(inputs)), "benchmarks": []}
        elif context.get("cpu_signature") != merged["context"].get("cpu_signature"):
            print(f"bench_merge: {path}: cpu_signature {context.get('cpu_signature')!r} differs from "
                  f"{merged['context'].get('cpu_signature')!r} (expected runs from one machine)", file=sys.stderr)
            return 2
        merged["benchmarks"] += [row for row in rows if row.get("run_type", "iteration") == "iteration"]
    with open(out, "w", encoding="utf-8") as f:
        json.dump(merged, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
