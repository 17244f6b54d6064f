#!/usr/bin/env python3
"""How much of a model's output is a loop: per reply, the share of 8-token windows that
already occurred earlier in the same reply. Loops are easy to draft, so a drafter's
tokens/step cannot be read without this.

  scripts/loop_share.py data/distill/responses       replies in distill shards, per kind

measure_speculative.py imports repeated_windows() for the replies it generates.
"""
import glob
import json
import os
import struct
import sys


def repeated_windows(tokens, n=8):
    """(windows that repeat an earlier one, windows) of one token list."""
    seen, repeats = set(), 0
    for j in range(len(tokens) - n + 1):
        gram = tuple(tokens[j : j + n])
        repeats += gram in seen
        seen.add(gram)
    return repeats, max(len(tokens) - n + 1, 0)


# The integer tensors of a safetensors file (the shards' tokens, offsets, trained, kind).
def read_int_tensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + n])
    formats = {"I32": "i", "I64": "q", "U8": "B", "I8": "b"}
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in formats:
            continue
        begin, end = (8 + n + o for o in info["data_offsets"])
        out[name] = struct.unpack(f"<{(end - begin) // struct.calcsize(formats[info['dtype']])}{formats[info['dtype']]}", data[begin:end])
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    kinds = {0: "greedy reply", 1: "sampled reply", 2: "text"}
    per_kind = {}
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "shard-*.safetensors"))):
        t = read_int_tensors(path)
        for i in range(len(t["offsets"]) - 1):
            begin, end = t["offsets"][i], t["offsets"][i + 1]
            trained = t["trained"][begin:end]
            first = begin + trained.index(1) + 1 if 1 in trained else end  # the reply starts after the first trained position
            repeats, windows = repeated_windows(t["tokens"][first:end])
            per_kind.setdefault(kinds.get(t["kind"][i], str(t["kind"][i])), []).append(repeats / windows if windows else 0.0)
    print("| kind | sequences | mean share of repeated 8-token windows | sequences with more than half repeated |")
    print("|---|---|---|---|")
    for kind, shares in per_kind.items():
        print(f"| {kind} | {len(shares)} | {100 * sum(shares) / len(shares):.0f}% | {100 * sum(s > 0.5 for s in shares) / len(shares):.0f}% |")


if __name__ == "__main__":
    main()
