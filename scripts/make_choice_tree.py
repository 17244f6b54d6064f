#!/usr/bin/env python3
"""Grow a static Medusa candidate tree ("choices") from per-head top-k accuracies.

Medusa's procedure (engine/DESIGN.md §2.2): start from [[0]] and
repeatedly add the neighbour of an accepted path -- its next sibling rank, or its first
child -- with the highest expected acceptance, the product over depths of the probability
that the path's rank at that depth is the right token. Ties go to the first neighbour found,
scanning accepted paths in the order they were added (sibling before child), as Medusa does.

Accuracies are cumulative top-k accuracies per head (head d drafts depth d + 1), as Medusa's
medusa_acc.csv reports them. The probability that rank r is right is top-(r+1) - top-r.
Two ways to give them:
  - the full table: --accuracies FILE with {"topk": [[top1, top2, ..., topK], ...]} (one list
    per depth), used as given;
  - top-1 and top-5 only (flags --top1/--top5, or a file with {"top1": [...], "top5": [...]}):
    ranks are filled in by the rule below.

Fill-in rule (documented in each tree's comment): the per-rank probability decays
geometrically, P(rank r) = top1 * rho^r, with rho in (0, 1) fitted per head so that
top1 * (1 + rho + rho^2 + rho^3 + rho^4) = top5. That interpolates ranks 2-4 and extrapolates
ranks 6-10 with the same decay (so the curve stays increasing, concave and below 1).

Output: {"name", "comment", "choices"} with the paths sorted by (length, lexicographic),
the order draftbench numbers tree nodes in. --nodes counts the paths, the root excluded
(Medusa's "63" trees verify 64 tokens).

Example (the shipped trees):
  scripts/make_choice_tree.py --top1 0.56,0.32,0.20,0.15 --top5 0.78,0.56,0.42,0.34 \
      --nodes 63 --max-depth 4 --max-child 10 --name medusa_63 --out experiments/trees/medusa_63.json
"""

import argparse
import json
import sys


GEOMETRIC_RULE = (
    "; per-rank accuracy P(rank r) = top1 * rho^r, rho fitted per head so that ranks 0-4 sum to top-5 "
    "(interpolates ranks 2-4, extrapolates ranks 6-10)"
)


def fit_geometric_ratio(top1, top5):
    """rho in (0, 1) with top1 * (1 + rho + ... + rho^4) = top5, by bisection."""
    if not 0.0 < top1 <= top5 <= 1.0:
        raise ValueError(f"need 0 < top1 <= top5 <= 1, got top1={top1} top5={top5}")
    target = top5 / top1
    if target >= 5.0:
        raise ValueError(f"top5 {top5} >= 5 * top1 {top1}: per-rank accuracy would not decrease")
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if sum(mid ** i for i in range(5)) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def per_rank_from_top1_top5(top1, top5, n_ranks):
    """Per-depth lists of P(rank r is right), r = 0..n_ranks-1, by the geometric rule."""
    table = []
    for a1, a5 in zip(top1, top5):
        rho = fit_geometric_ratio(a1, a5)
        table.append([a1 * rho ** r for r in range(n_ranks)])
    return table


def per_rank_from_cumulative(topk):
    table = []
    for depth, cumulative in enumerate(topk):
        previous = 0.0
        row = []
        for k, value in enumerate(cumulative):
            if value < previous or value > 1.0:
                raise ValueError(f"depth {depth + 1}: top-{k + 1} accuracy {value} (expected non-decreasing values in [0, 1])")
            row.append(value - previous)
            previous = value
        table.append(row)
    return table


def expected_acceptance(per_rank, path):
    product = 1.0
    for depth, rank in enumerate(path):
        product *= per_rank[depth][rank]
    return product


def grow_tree(per_rank, n_nodes, max_depth, max_child):
    """Medusa's greedy growth; returns the paths in the order they were added."""
    accepted = [(0,)]
    accepted_set = set(accepted)
    while len(accepted) < n_nodes:
        best, best_value = None, 0.0
        for path in accepted:
            neighbours = []
            # Ranks beyond a depth's table (or --max-child) are not candidates.
            if path[-1] + 1 < min(max_child, len(per_rank[len(path) - 1])):
                neighbours.append(path[:-1] + (path[-1] + 1,))
            if len(path) < max_depth:
                neighbours.append(path + (0,))
            for candidate in neighbours:
                if candidate in accepted_set:
                    continue
                value = expected_acceptance(per_rank, candidate)
                if value > best_value:
                    best, best_value = candidate, value
        if best is None:
            raise ValueError(f"cannot grow past {len(accepted)} nodes with max depth {max_depth} and {max_child} ranks")
        accepted.append(best)
        accepted_set.add(best)
    return accepted


def parse_floats(text):
    return [float(x) for x in text.split(",") if x.strip()]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accuracies", help='JSON file: {"topk": [[...], ...]} or {"top1": [...], "top5": [...]}')
    parser.add_argument("--top1", type=parse_floats, help="top-1 accuracy per head, comma-separated")
    parser.add_argument("--top5", type=parse_floats, help="top-5 accuracy per head, comma-separated")
    parser.add_argument("--nodes", type=int, required=True, help="paths in the tree, root excluded")
    parser.add_argument("--max-depth", type=int, default=4)
    parser.add_argument("--max-child", type=int, default=10, help="ranks per depth (top-k)")
    parser.add_argument("--name", required=True)
    parser.add_argument("--source", help="where the accuracies come from, for the comment")
    parser.add_argument("--out", help="output file (default: stdout)")
    args = parser.parse_args(argv)

    if args.accuracies:
        with open(args.accuracies) as f:
            spec = json.load(f)
        if "topk" in spec:
            per_rank = per_rank_from_cumulative(spec["topk"])
            source = f"the cumulative top-k table in {args.accuracies}"
            fill_rule = ""
        else:
            top1, top5 = spec["top1"], spec["top5"]
            per_rank = per_rank_from_top1_top5(top1, top5, args.max_child)
            source = f"top-1 {top1} and top-5 {top5} from {args.accuracies}"
            fill_rule = GEOMETRIC_RULE
    elif args.top1 and args.top5:
        if len(args.top1) != len(args.top5):
            parser.error("--top1 and --top5 need one value per head each")
        per_rank = per_rank_from_top1_top5(args.top1, args.top5, args.max_child)
        source = f"top-1 {args.top1} and top-5 {args.top5}"
        fill_rule = GEOMETRIC_RULE
    else:
        parser.error("give --accuracies FILE, or --top1 and --top5")

    max_depth = min(args.max_depth, len(per_rank))
    max_child = args.max_child
    paths = grow_tree(per_rank, args.nodes, max_depth, max_child)
    paths.sort(key=lambda p: (len(p), p))
    per_depth = [sum(1 for p in paths if len(p) == d) for d in range(1, max_depth + 1)]
    expected = 1.0 + sum(expected_acceptance(per_rank, p) for p in paths)

    comment = (
        f"made by scripts/make_choice_tree.py --nodes {args.nodes} --max-depth {max_depth} --max-child {max_child} "
        f"with accuracies {source}{' (' + args.source + ')' if args.source else ''}{fill_rule}. "
        f"{args.nodes} paths + the root = {args.nodes + 1} tokens verified; "
        f"nodes per depth {per_depth}; expected tokens per step {expected:.3f} under independent heads."
    )
    doc = {"name": args.name, "comment": comment, "choices": [list(p) for p in paths]}
    # One path per line keeps diffs of the shipped trees readable.
    lines = ",\n    ".join(json.dumps(list(p)) for p in paths)
    text = (
        "{\n"
        f'  "name": {json.dumps(doc["name"])},\n'
        f'  "comment": {json.dumps(doc["comment"])},\n'
        f'  "choices": [\n    {lines}\n  ]\n'
        "}\n"
    )
    assert json.loads(text) == doc
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (ValueError, OSError, KeyError, json.JSONDecodeError) as e:
        print(f"make_choice_tree.py: {e}", file=sys.stderr)
        sys.exit(1)
