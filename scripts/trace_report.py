#!/usr/bin/env python3
"""What a drafter gets right, step by step, from `draftbench generate --trace`.

    draftbench generate --chat --json --prompts-file P --drafter eagle --trace T.jsonl > R.jsonl
    scripts/trace_report.py R.jsonl T.jsonl

For every step it takes the root, the token the target actually produced after it, and the
root's children in the draft (in the drafter's order). It reports, per prompt and over all:
steps, draft tokens accepted per step, the share of steps whose next token is a copy (the
pair root -> next occurred earlier in prompt or output), and how often the drafter's first
child was that token, on all steps and on the copy steps, and how often it was among the
children at all. A drafter that copies as well as a lookup scores near 1 on copy steps.
"""
import argparse
import json
import sys


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def prompt_stats(result, steps):
    seq = result["prompt_ids"] + result["tokens"]
    pos = len(result["prompt_ids"])  # the current root's index in seq
    s = dict(steps=0, accepted=0, copy=0, first=0, first_on_copy=0, among=0)
    for st in steps:
        tokens, parents, path = st["tokens"], st["parents"], st["accepted"]
        if pos >= len(seq) or tokens[0] != seq[pos]:
            sys.exit(f"trace_report: prompt {result['id']} step {st['step']}: the trace does not follow the output (wrong files?)")
        s["steps"] += 1
        s["accepted"] += len(path) - 1
        if pos + 1 < len(seq):
            truth = seq[pos + 1]
            children = [tokens[i] for i in range(1, len(tokens)) if parents[i] == 0]
            copy = any(seq[i] == seq[pos] and seq[i + 1] == truth for i in range(pos))
            hit = bool(children) and children[0] == truth
            s["copy"] += copy
            s["first"] += hit
            s["first_on_copy"] += hit and copy
            s["among"] += truth in children
        pos += len(path)
    return s


def line(name, s):
    n, c = max(s["steps"], 1), max(s["copy"], 1)
    return (f"{name:>12} {s['steps']:6d} {s['accepted'] / n:9.2f} {s['copy'] / n:6.0%} {s['first'] / n:9.0%} "
            f"{s['first_on_copy'] / c:12.0%} {s['among'] / n:9.0%}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="generate --json output (one object per prompt)")
    parser.add_argument("trace", help="generate --trace output")
    args = parser.parse_args()
    results = read_lines(args.results)
    by_prompt = {}
    for st in read_lines(args.trace):
        by_prompt.setdefault(st["prompt"], []).append(st)
    total = dict(steps=0, accepted=0, copy=0, first=0, first_on_copy=0, among=0)
    print(f"{'prompt':>12} {'steps':>6} {'accepted':>9} {'copy':>6} {'1st right':>9} {'1st on copy':>12} {'in child':>9}")
    for r in results:
        s = prompt_stats(r, by_prompt.get(r["id"], []))
        print(line(str(r["id"]), s))
        for k in total:
            total[k] += s[k]
    print(line("all", total))


if __name__ == "__main__":
    main()
