#!/usr/bin/env python3
"""Kernel-performance regression gate: a Google Benchmark JSON run against a stored baseline.

Timings are noisy, so both files hold repetitions (--benchmark_repetitions=N
--benchmark_enable_random_interleaving=true, possibly several processes merged by
scripts/bench_merge.py) and a kernel regresses only when it is slower by more than the
threshold AND a one-sided Mann-Whitney U test agrees (as Google Benchmark's tools/compare.py);
a rank test suits skewed, outlier-prone timings. "Slower" compares lower quartiles, not
medians: on a shared machine interference only ever adds time, in bursts that can cover half
of a kernel's repetitions, so the lower quartile tracks the undisturbed time (measured on this
project's CI machine: with medians 6 of 57 same-binary comparisons moved by more than 10%,
with lower quartiles 0 once threaded kernels are set apart). A slower or busier machine
slows everything, so each kernel is divided by the lower quartile of the calibration kernel
in the same run that is limited by the same resource (memory_read for bound=memory, fma for
bound=compute, their geometric mean otherwise; cuda_memory_copy and cuda_fma in the CUDA
suite's runs). That cannot make different CPUs comparable, so a baseline with another
cpu_signature (gpu_signature) only advises, unless --strict-machine. Nor can it
correct a machine whose balance moved: when memory_read and fma change by different amounts
(a memory bus contended by another tenant, other DIMMs behind the same CPU name), a kernel
that sits between the two bounds moves by an unknown mix of both. Measured on this project's
CI: memory_read +17% and fma -0.5% against the baseline, and the single-thread Q5_0 mat-vecs
+35-40% after normalisation, reproduced in both confirmation passes. So when the ratio of the
two calibrations differs from the baseline's by more than --balance-tolerance (default 10%;
the same machine varies by up to 7%), the comparison is printed but only advises, as for
another CPU. --strict-machine gates regardless.

Exit 0: no regression (or advisory); 1: a kernel regressed or errored; 2: bad input (one line on stderr).
"""
import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, field

import numpy as np

TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
CALIBRATION_PREFIX = "calibration/"
# Each suite's calibration kernels by bound, and the context keys that name its machine (the
# first is the signature two runs must share to gate): the CPU suite's (kernel_bench) and the
# CUDA suite's (cuda_kernel_bench), whose context says "probe_set": "cuda".
PROBE_SETS = {
    "cpu": ({"memory": "calibration/memory_read", "compute": "calibration/fma"}, ("cpu_signature", "dot_rows_backend")),
    "cuda": ({"memory": "calibration/cuda_memory_copy", "compute": "calibration/cuda_fma"}, ("gpu_signature",)),
}
QUANTILE = 0.25  # the statistic compared: each side's lower quartile (see above)
FORMAT_HINT = 'expected Google Benchmark --benchmark_out_format=json output: {"context": {...}, "benchmarks": [...]}'


class BadInput(Exception):
    def __init__(self, path, problem):
        super().__init__(f"{path}: {problem}")


@dataclass
class BenchmarkRun:
    path: str
    context: dict
    samples: dict = field(default_factory=dict)  # run_name -> [seconds per repetition]
    bounds: dict = field(default_factory=dict)  # run_name -> "memory" / "compute" / "" (from the label)
    errors: dict = field(default_factory=dict)  # run_name -> error message
    probe_set: str = "cpu"  # a key of PROBE_SETS

    @property
    def calibration_for_bound(self):
        return PROBE_SETS[self.probe_set][0]

    def machine(self):
        return {key: self.context.get(key) for key in PROBE_SETS[self.probe_set][1]}

    def signature(self):
        return self.context.get(PROBE_SETS[self.probe_set][1][0])


def parse_bound(label):
    """The bound= part of a label such as "bound=memory,dtype=q4_0", or ""."""
    match = re.search(r"(?:^|,)\s*bound\s*=\s*([^,]*?)\s*(?:,|$)", label)
    return match.group(1) if match else ""


def load_run(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise BadInput(path, f"cannot read file ({e.strerror})")
    except ValueError as e:  # JSONDecodeError and UnicodeDecodeError
        raise BadInput(path, f"not valid JSON ({e}) ({FORMAT_HINT})")
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise BadInput(path, f'no "benchmarks" list at the top level ({FORMAT_HINT})')
    if not isinstance(doc.get("context"), dict):
        raise BadInput(path, f'no "context" object at the top level ({FORMAT_HINT})')
    probe_set = doc["context"].get("probe_set", "cpu")
    if probe_set not in PROBE_SETS:
        raise BadInput(path, f'context "probe_set" is {probe_set!r} (expected one of {", ".join(PROBE_SETS)})')
    run = BenchmarkRun(path, doc["context"], probe_set=probe_set)
    for i, entry in enumerate(doc["benchmarks"]):
        if not isinstance(entry, dict):
            raise BadInput(path, f"benchmarks[{i}] is a {type(entry).__name__} (expected an object)")
        name = entry.get("run_name", entry.get("name"))  # run_name is absent before GB 1.5
        if not isinstance(name, str):
            raise BadInput(path, f'benchmarks[{i}] has no "run_name" (expected a string)')
        default_type = "aggregate" if "aggregate_name" in entry else "iteration"
        if entry.get("run_type", default_type) != "iteration" or entry.get("skipped"):
            continue  # aggregates are recomputed from the repetitions
        label = entry.get("label", "")
        if not isinstance(label, str):
            raise BadInput(path, f'{name}: "label" is {label!r} (expected a string like "bound=memory")')
        run.bounds[name] = parse_bound(label)
        if entry.get("error_occurred"):
            run.errors[name] = str(entry.get("error_message", "error_occurred"))
            continue
        unit, real_time = entry.get("time_unit"), entry.get("real_time")
        if unit not in TIME_UNITS:
            raise BadInput(path, f'{name}: "time_unit" is {unit!r} (expected one of {", ".join(TIME_UNITS)})')
        if type(real_time) not in (int, float) or not math.isfinite(real_time) or real_time <= 0:
            raise BadInput(path, f'{name}: "real_time" is {real_time!r} (expected a positive number)')
        run.samples.setdefault(name, []).append(real_time * TIME_UNITS[unit])
    if not run.samples and not run.errors:
        raise BadInput(path, 'no per-repetition rows (expected "run_type": "iteration" entries; '
                             "record without --benchmark_report_aggregates_only)")
    return run


def calibration_quartile(run, calibration, kernel):
    # Google Benchmark may append suffixes such as /real_time or /min_time:0.5 to the name.
    names = [n for n in run.bounds if n == calibration or n.startswith(calibration + "/")]
    if not names:
        raise BadInput(run.path, f"no {calibration} benchmark, needed to normalise {kernel} "
                                 "(expected the calibration kernels in the same benchmark run)")
    if len(names) > 1:
        raise BadInput(run.path, f"several {calibration} benchmarks ({', '.join(sorted(names))}) to normalise "
                                 f"{kernel} with (expected exactly one)")
    if names[0] in run.errors:
        raise BadInput(run.path, f"{names[0]} reported an error ({run.errors[names[0]]}), so {kernel} "
                                 "cannot be normalised (expected a clean calibration run)")
    return float(np.quantile(run.samples[names[0]], QUANTILE))


def normalised(run, name, bound):
    """The kernel's repetitions divided by the lower quartile of the calibration kernel(s) for `bound`."""
    by_bound = run.calibration_for_bound
    calibrations = [by_bound[bound]] if bound in by_bound else by_bound.values()
    quartiles = [calibration_quartile(run, calibration, name) for calibration in calibrations]
    return np.asarray(run.samples[name]) / math.prod(quartiles) ** (1 / len(quartiles))


def repetitions_needed(alpha, other_count=None):
    """Smallest n for which a one-sided exact Mann-Whitney U test of n against other_count
    repetitions (n, when None) can reach p < alpha: its smallest p is 1 / C(n + m, n)."""
    n = 1
    while 1 / math.comb(n + (other_count or n), n) >= alpha:
        n += 1
    return n


def check_repetitions(base, cur, name, alpha):
    nb, nc = len(base.samples[name]), len(cur.samples[name])
    if 1 / math.comb(nb + nc, nb) < alpha:
        return
    short, other, n, m = (base, cur, nb, nc) if nb < nc else (cur, base, nc, nb)
    raise BadInput(short.path, f"{name}: {n} repetitions found, at least {repetitions_needed(alpha, m)} needed "
                               f"with {m} in {other.path}, or {repetitions_needed(alpha)} in both (expected enough "
                               f"--benchmark_repetitions for a one-sided Mann-Whitney U test to reach p < {alpha})")


def decide(base_norm, cur_norm, threshold, alpha):
    from scipy.stats import mannwhitneyu  # imported here: it takes a second, bad input need not wait

    ratio = float(np.quantile(cur_norm, QUANTILE) / np.quantile(base_norm, QUANTILE))
    p_slower = float(mannwhitneyu(cur_norm, base_norm, alternative="greater").pvalue)
    p_faster = float(mannwhitneyu(cur_norm, base_norm, alternative="less").pvalue)
    if ratio > 1 + threshold:
        return ratio, p_slower, "REGRESSION" if p_slower < alpha else "ok (not significant)"
    # The same factor as a regression's, not 1 - threshold: a kernel gated on a doubling
    # (threshold 1.0) improves at half the time, where 1 - threshold would never let it.
    if ratio < 1 / (1 + threshold):
        return ratio, p_faster, "IMPROVED" if p_faster < alpha else "ok (not significant)"
    return ratio, p_slower, "ok"


def kernel_verdict(base, cur, name, row, alpha):
    if name in cur.errors:
        return "error"
    if name not in cur.bounds:
        return "missing"
    if name not in base.bounds:
        return "new"
    if name in base.errors:
        return "baseline error"
    check_repetitions(base, cur, name, alpha)
    bound = row["bound"]
    ratio, row["p_value"], verdict = decide(normalised(base, name, bound), normalised(cur, name, bound), row["threshold"], alpha)
    row["change"] = ratio - 1
    return verdict


def balance_change(base, cur):
    """How much the machine's memory/compute balance moved: the ratio of the calibrations'
    lower quartiles in the current run over the same ratio in the baseline, minus one."""
    def balance(run):
        return (calibration_quartile(run, run.calibration_for_bound["memory"], "the machine balance")
                / calibration_quartile(run, run.calibration_for_bound["compute"], "the machine balance"))
    return balance(cur) / balance(base) - 1


def quartile_time(run, name, bound):
    if name not in run.samples:
        return None
    return float(np.quantile(run.samples[name] if bound == "calibration" else normalised(run, name, bound), QUANTILE))


def compare(base, cur, args):
    """One row per benchmark: calibration kernels (raw times, never gating), then the kernels
    (normalised), each in the order they first appear, current run first."""
    names = list(dict.fromkeys([*cur.bounds, *base.bounds]))
    calibrations = [n for n in names if n.startswith(CALIBRATION_PREFIX)]
    kernels = [n for n in names if n not in calibrations and (args.filter is None or args.filter.search(n))]
    rows = []
    for name in calibrations + kernels:
        is_calibration = name in calibrations
        # The baseline's bound decides the calibration for both runs: the ridge point moves
        # between machines, and a kernel must be divided by the same probe on both sides.
        bound = "calibration" if is_calibration else base.bounds.get(name) or cur.bounds.get(name) or "-"
        row = {"name": name, "bound": bound}
        for side, run in (("baseline", base), ("current", cur)):
            row[f"n_{side}"] = len(run.samples.get(name, []))
            row[f"{side}_q25"] = quartile_time(run, name, bound)
        if is_calibration:
            row["verdict"] = "calibration"
            if row["baseline_q25"] and row["current_q25"]:
                row["change"] = row["current_q25"] / row["baseline_q25"] - 1
        else:
            row["threshold"] = next((t for pattern, t in args.threshold_for if pattern.search(name)), args.threshold)
            row["verdict"] = kernel_verdict(base, cur, name, row, args.alpha)
        rows.append(row)
    return rows


def format_row(row, name_width):
    cells = ["-" if x is None else f"{x * 1e6:.4g} us" if row["verdict"] == "calibration" else f"{x:.4g}"
               for x in (row["baseline_q25"], row["current_q25"])]
    n = f"{row['n_baseline'] or '-'}/{row['n_current'] or '-'}"
    change = f"{row['change'] * 100:+.1f}%" if "change" in row else "-"
    p_value = f"{row['p_value']:.3g}" if "p_value" in row else "-"
    return (f"{row['name']:<{name_width}}  {row['bound']:<11}  {n:>7}  {cells[0]:>11}  {cells[1]:>11}  "
            f"{change:>8}  {p_value:>8}  {row['verdict']}")


def print_report(args, base, cur, rows, same_machine, balance):
    for title, run in (("baseline:", base), ("current: ", cur)):
        print(f"{title} {run.path}  " + "  ".join(f"{k}={v!r}" for k, v in run.machine().items()))
    print(f"threshold {args.threshold:.0%}, alpha {args.alpha}; kernel columns are lower quartiles of time / calibration "
          "lower quartile, calibration columns raw lower quartiles; p is one-sided in the direction of the change")
    if not same_machine:
        print("ADVISORY: the baseline was recorded on a different machine (cpu_signature or gpu_signature differs or is missing); "
              + ("gating anyway (--strict-machine)" if args.strict_machine else "regressions do not fail this run"))
    elif abs(balance) > args.balance_tolerance:
        probes = "/".join(name.removeprefix(CALIBRATION_PREFIX) for name in base.calibration_for_bound.values())
        print(f"ADVISORY: the machine's balance moved: {probes} is {balance:+.1%} against the baseline's "
              f"(tolerance {args.balance_tolerance:.0%}), which calibration cannot correct for kernels between the "
              "two bounds; " + ("gating anyway (--strict-machine)" if args.strict_machine
                                else "regressions do not fail this run"))
    name_width = max(len(name) for name in ["benchmark"] + [row["name"] for row in rows])
    print(f"{'benchmark':<{name_width}}  {'bound':<11}  {'n b/c':>7}  {'base q25':>11}  {'cur q25':>11}  "
          f"{'change':>8}  {'p':>8}  verdict")
    for row in rows:
        print(format_row(row, name_width))
    by_verdict = {}
    for row in rows:
        by_verdict.setdefault(row["verdict"], []).append(row["name"])
    for name in by_verdict.get("missing", []):
        print(f"warning: {name} is in the baseline but not in the current run")
    regressed = by_verdict.get("REGRESSION", [])
    summary = f"{sum('p_value' in row for row in rows)} kernels compared, {len(regressed)} regressed"
    if regressed:
        summary += ": " + ", ".join(regressed)
    for verdict in ("error", "IMPROVED", "missing", "new"):
        if verdict in by_verdict:
            summary += f"; {len(by_verdict[verdict])} {verdict.lower()}: " + ", ".join(by_verdict[verdict])
    print(summary)


def parse_override(text):
    pattern, _, fraction = text.rpartition("=")
    try:
        return re.compile(pattern), float(fraction)
    except (re.error, ValueError):
        raise argparse.ArgumentTypeError(f"{text!r} is not REGEX=FRACTION") from None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("baseline", help="stored baseline Google Benchmark JSON")
    parser.add_argument("current", help="Google Benchmark JSON of the run to check")
    parser.add_argument("--threshold", type=float, default=0.10, help="relative slowdown that counts (default 0.10)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--threshold-for", type=parse_override, action="append", default=[],
                        metavar="REGEX=FRACTION", help="threshold for matching benchmarks (repeatable, first wins)")
    parser.add_argument("--filter", type=re.compile, metavar="REGEX", help="only compare matching benchmarks")
    parser.add_argument("--json", metavar="OUT", help="also write the comparison as JSON to OUT")
    parser.add_argument("--balance-tolerance", type=float, default=0.10,
                        help="largest change of the memory_read/fma ratio that still gates (default 0.10)")
    parser.add_argument("--strict-machine", action="store_true",
                        help="gate even if the machine's signature differs or its balance moved")
    args = parser.parse_args()
    if not 0 < args.alpha < 1 or args.threshold < 0 or args.balance_tolerance < 0:
        parser.error("--alpha must be in (0, 1), --threshold and --balance-tolerance >= 0")
    try:
        base, cur = load_run(args.baseline), load_run(args.current)
        if cur.probe_set != base.probe_set:
            raise BadInput(cur.path, f'"probe_set" {cur.probe_set!r} differs from the baseline\'s {base.probe_set!r} '
                                     "(expected two runs of the same suite)")
        rows = compare(base, cur, args)
        balance = balance_change(base, cur)
    except BadInput as e:
        print(f"bench_compare: {e}", file=sys.stderr)
        return 2

    signature = base.signature()
    same_machine = signature is not None and signature == cur.signature()
    gating = (same_machine and abs(balance) <= args.balance_tolerance) or args.strict_machine
    regressed = [row["name"] for row in rows if row["verdict"] == "REGRESSION"]
    errors = [row["name"] for row in rows if row["verdict"] == "error"]
    exit_code = 1 if errors or (regressed and gating) else 0
    print_report(args, base, cur, rows, same_machine, balance)
    if args.json:
        report = {"baseline": {"file": base.path, **base.machine()}, "current": {"file": cur.path, **cur.machine()},
                  "threshold": args.threshold, "alpha": args.alpha, "same_machine": same_machine,
                  "balance_change": balance, "balance_tolerance": args.balance_tolerance,
                  "advisory": not gating, "regressed": regressed, "errors": errors, "exit_code": exit_code,
                  "benchmarks": rows}
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(report, f, indent=2)
        except OSError as e:
            print(f"bench_compare: {args.json}: cannot write the JSON report ({e.strerror})", file=sys.stderr)
            return 2
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
