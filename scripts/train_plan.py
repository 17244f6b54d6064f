#!/usr/bin/env python3
"""What scripts/train_drafters.sh has left to do, in chunks of at most --chunk-minutes.

The recipe's long work is a chain: each distill set's replies (generated, hours for a 1.5B
target on 2 cores), their hidden states (restored from the committed archive on every new
machine, since they are too large to commit), then each drafter's training. A chunk ends
with a commit of what the next one needs (archives, shipped drafters), so the plan counts
only what the committed state lacks:

  plan      one line per step left with its estimated minutes, grouped into chunks
  shipped   exit 0 when models/drafters/<alias>/<drafter> was trained on exactly these
            sets' finished archives (the chain need not train it again), 1 otherwise

Estimates come from what the archives record (seconds per generated item) and from rates
measured on the machine named beside each rate in train_drafters.sh; they are estimates,
and the script prints them as such.
"""
import argparse
import hashlib
import json
import math
import os
import sys


def read_archive_manifest(path):
    """The manifest of a distill archive (engine/train/distill_archive.h), its text's SHA-256."""
    if not os.path.exists(path):
        return None, None
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
    text = header["manifest"]
    return json.loads(text), hashlib.sha256(text.encode()).hexdigest()


def count_items(prompts, followups):
    """One work item per train-split prompt record (with --followups: those with a follow-up)."""
    ids = None
    if followups:
        with open(followups, encoding="utf-8") as f:
            ids = {json.loads(line)["id"] for line in f if line.strip()}
    n = 0
    with open(prompts, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            if r.get("split", "train") == "train" and (ids is None or r.get("id") in ids):
                n += 1
    return n


class Set:
    """One distill set of the recipe: `name:prompts[:followups]`."""

    def __init__(self, spec, args):
        parts = spec.split(":")
        self.name, self.prompts = parts[0], parts[1]
        self.followups = parts[2] if len(parts) > 2 else ""
        self.manifest, self.manifest_sha = read_archive_manifest(os.path.join(args.archives, self.name + ".jsonl"))
        self.items = count_items(self.prompts, self.followups)
        shards = self.manifest["shards"] if self.manifest else []
        self.items_done = sum(s["items"] for s in shards)
        self.seconds_done = sum(s.get("seconds", 0) for s in shards)
        self.tokens = sum(s["tokens"] for s in shards)
        self.trained = sum(s["trained"] for s in shards)
        self.complete = bool(self.manifest and self.manifest.get("complete"))
        work_manifest = os.path.join(args.work, "distill", self.name, "manifest.json")
        self.restored = os.path.exists(work_manifest) and json.load(open(work_manifest)).get("complete", False)


def per_item(sets, key):
    """The recorded rate over the sets that have one (seconds or positions per item)."""
    done = [s for s in sets if s.items_done > 0]
    if not done:
        return None
    return sum(getattr(s, key) for s in done) / sum(s.items_done for s in done)


def plan(args):
    sets = [Set(spec, args) for spec in args.set]
    print("train_plan: the sets' archives (replies made so far; trained = positions a drafter learns at)")
    for s in sets:
        state = "complete" if s.complete else f"{s.items_done} of {s.items} replies"
        print(f"  {s.name:<14} {state:<22} {s.tokens:>10,} tokens {s.trained:>10,} trained")
    seconds_per_item = per_item(sets, "seconds_done") or args.default_item_seconds
    trained_per_item = per_item(sets, "trained") or 100.0
    tokens_per_item = per_item(sets, "tokens") or 170.0
    steps = []  # (what, minutes): generation first, then hidden states, then training
    for s in sets:
        left = s.items - s.items_done if not s.complete else 0
        if left <= 0:
            continue
        own = s.seconds_done / s.items_done if s.items_done else seconds_per_item
        # Generation resumes by shard: a long set is split over chunks (distill --deadline).
        pieces = max(1, math.ceil(left * own / 60 / (0.95 * args.chunk_minutes)))
        for k in range(pieces):
            n = left // pieces + (k < left % pieces)
            steps.append((f"distill {s.name}: {n} of its {s.items} replies to generate{' (part %d of %d)' % (k + 1, pieces) if pieces > 1 else ''}",
                          n * own / 60))
    final = []  # hidden states, then training: one chunk, as hidden states are never committed
    for s in sets:
        if not s.restored:
            tokens = s.tokens + (s.items - s.items_done) * tokens_per_item * (not s.complete)
            final.append((f"distill {s.name}: hidden states of {tokens:,.0f} tokens from the archive",
                          tokens / args.restore_tokens_per_s / 60))
    positions = sum(s.trained + (s.items - s.items_done) * trained_per_item * (not s.complete) for s in sets)
    rates = dict(r.split("=") for r in args.train_rate.split(",") if r)
    for name in filter(None, args.drafters.split(",")):
        if shipped_for(args, name, sets):
            continue
        rate = float(rates.get(name, 0) or 0)
        minutes = positions * args.epochs / rate / 60 if rate > 0 else float("nan")
        final.append((f"train {name}: {positions:,.0f} positions x {args.epochs:g} epoch(s)", minutes))
    if not steps and not final:
        print("train_plan: nothing left: every set is distilled and every drafter shipped for it")
        return
    total = sum(m for _, m in steps + final if not math.isnan(m))
    chunks, current, used = [], [], 0.0
    for what, minutes in steps:
        if current and used + minutes > args.chunk_minutes:
            chunks.append(current)
            current, used = [], 0.0
        current.append((what, minutes))
        used += minutes
    if current:
        chunks.append(current)
    if final:
        chunks.append(final)  # hidden states are not committed: they and training share a chunk
    print(f"train_plan: {len(chunks)} chunk(s) left, about {total:.0f} minutes "
          f"(estimates: rates measured on {args.rates_measured_on})")
    for k, chunk in enumerate(chunks, 1):
        minutes = sum(m for _, m in chunk if not math.isnan(m))
        over = minutes > args.chunk_minutes
        print(f"  chunk {k}: about {minutes:.0f} min{' (over the ' + f'{args.chunk_minutes:.0f}-minute chunk: train on fewer sets, --sets)' if over else ''}")
        for what, m in chunk:
            print(f"    {'?' if math.isnan(m) else f'{m:.0f}':>5} min  {what}")


def shipped_for(args, name, sets):
    """Whether the shipped drafter's provenance lists exactly these finished archives."""
    path = os.path.join(args.ship, name, "provenance.json")
    if not os.path.exists(path) or not all(s.complete for s in sets):
        return False
    provenance = json.load(open(path))
    used = sorted(d.get("manifest_sha256", "") for d in provenance.get("distill", []))
    return used == sorted(s.manifest_sha for s in sets)


def trained_on(run_dir, data_dirs):
    """Whether the finished training run in run_dir trained on exactly these distill directories."""
    with open(os.path.join(run_dir, "train_result.json")) as f:
        return json.load(f)["provenance"].get("data_dirs") == data_dirs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["plan", "shipped", "trained-on"])
    ap.add_argument("--archives", required=True, help="datasets/distill/<alias>: the committed archives")
    ap.add_argument("--work", required=True, help="the work directory (restored sets under distill/)")
    ap.add_argument("--ship", required=True, help="models/drafters/<alias>")
    ap.add_argument("--set", action="append", default=[], help="name:prompts.jsonl[:followups.jsonl], in the recipe's order")
    ap.add_argument("--drafters", default="", help="comma-separated drafters to train")
    ap.add_argument("--drafter", help="shipped: the drafter to ask about")
    ap.add_argument("--run", help="trained-on: a finished training run's directory")
    ap.add_argument("--data", nargs="*", default=[], help="trained-on: the distill directories it should have trained on")
    ap.add_argument("--epochs", type=float, default=1)
    ap.add_argument("--restore-tokens-per-s", type=float, default=265)
    ap.add_argument("--default-item-seconds", type=float, default=4.5)
    ap.add_argument("--train-rate", default="", help="drafter=positions per second,...")
    ap.add_argument("--rates-measured-on", default="an unnamed CPU")
    ap.add_argument("--chunk-minutes", type=float, default=100)
    args = ap.parse_args()
    if args.mode == "trained-on":
        sys.exit(0 if trained_on(args.run, args.data) else 1)
    if args.mode == "shipped":
        sets = [Set(spec, args) for spec in args.set]
        sys.exit(0 if shipped_for(args, args.drafter, sets) else 1)
    plan(args)


if __name__ == "__main__":
    main()
