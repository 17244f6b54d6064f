#!/usr/bin/env python3
"""Tests for scripts/bench_compare.py, run as a subprocess on synthetic Google Benchmark JSON.

Run: python tests/kernels/bench_compare_test.py   (exit 0 = pass)

Each comparison costs about a second (importing scipy.stats), so the tests declare their
comparisons with @comparison and setUpClass runs them all at once, in parallel.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import numpy as np

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_compare.py"
SIGNATURE = "AMD EPYC 7763 64-Core Processor | avx2 | 2 threads"
REPETITIONS = 10
NOISE = 0.025  # sigma of the lognormal noise on every repetition

# run_name -> (typical real_time, time_unit, label); units are mixed on purpose.
KERNELS = {
    "calibration/memory_read": (2.0e6, "ns", "bound=memory"),
    "calibration/fma": (450.0, "us", "bound=compute"),
    "BM_dot_rows/4096": (800.0, "us", "bound=memory,dtype=q4_0"),
    "BM_dequant/q8_0/65536": (120000.0, "ns", "bound=memory"),
    "BM_matmul/256": (3.5e6, "ns", "bound=compute"),
    "BM_softmax/32000": (95.0, "us", "dtype=f32,bound=compute"),
}
MEMORY_KERNELS = ["BM_dot_rows/4096", "BM_dequant/q8_0/65536"]
COMPUTE_KERNELS = ["BM_matmul/256", "BM_softmax/32000"]
ALL_KERNELS = MEMORY_KERNELS + COMPUTE_KERNELS


def google_benchmark_json(seed, scale=None, kernels=KERNELS, samples=None, repetitions=REPETITIONS,
                          signature=SIGNATURE, errors=()):
    """A file shaped like `--benchmark_repetitions=N --benchmark_enable_random_interleaving=true
    --benchmark_out_format=json` output. scale: run_name -> slowdown factor; samples: run_name ->
    explicit real_time values; errors: run_names that report error_occurred."""
    rng = np.random.default_rng(seed)
    scale, samples = scale or {}, samples or {}
    iterations, aggregates = [], []
    for family, (name, (typical, unit, label)) in enumerate(kernels.items()):
        if name in samples:
            times = np.asarray(samples[name], dtype=float)
        else:
            times = typical * scale.get(name, 1.0) * rng.lognormal(0.0, NOISE, repetitions)
        common = {"family_index": family, "per_family_instance_index": 0, "run_name": name,
                  "repetitions": len(times), "threads": 1}
        for index, t in enumerate(times):
            row = {"name": name, **common, "run_type": "iteration", "repetition_index": index,
                   "iterations": 1000, "real_time": float(t), "cpu_time": float(t) * 0.99,
                   "time_unit": unit, "bytes_per_second": 4.0e9 / float(t), "label": label}
            if name in errors:
                row.update(error_occurred=True, error_message="buffer allocation failed",
                           iterations=0, real_time=0.0, cpu_time=0.0, bytes_per_second=0.0)
            iterations.append(row)
        mean, std = float(times.mean()), float(times.std(ddof=1)) if len(times) > 1 else 0.0
        for aggregate, value in (("mean", mean), ("median", float(np.median(times))),
                                 ("stddev", std), ("cv", std / mean)):
            aggregates.append({"name": f"{name}_{aggregate}", **common, "run_type": "aggregate",
                               "aggregate_name": aggregate,
                               "aggregate_unit": "percentage" if aggregate == "cv" else "time",
                               "iterations": len(times), "real_time": value, "cpu_time": value,
                               "time_unit": unit, "label": label})
    rng.shuffle(iterations)  # random interleaving mixes the repetitions of all benchmarks
    context = {"date": "2025-03-01T10:00:00+00:00", "host_name": "bench-runner-1",
               "executable": "./build/release/kernels/kernel_bench", "num_cpus": 2,
               "mhz_per_cpu": 2450, "cpu_scaling_enabled": False,
               "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 1},
                          {"type": "Unified", "level": 2, "size": 524288, "num_sharing": 1}],
               "load_avg": [0.5, 0.4, 0.3], "library_version": "v1.9.1",
               "library_build_type": "release", "json_schema_version": 1,
               "cpu_signature": signature, "dot_rows_backend": "avx2"}
    return {"context": context, "benchmarks": iterations + aggregates}


def without(name, kernels=KERNELS):
    return {k: v for k, v in kernels.items() if k != name}


def with_first_real_time(doc, value):
    doc["benchmarks"][0]["real_time"] = value
    return doc


def summary_regressed(stdout):
    """The kernel names listed after 'regressed:' on the summary line."""
    line = next(l for l in stdout.splitlines() if "kernels compared" in l)
    names = line.split("regressed", 1)[1].split(";")[0]
    return sorted(n.strip() for n in names.lstrip(":").split(",") if n.strip())


def table_row(stdout, name):
    return next(l for l in stdout.splitlines() if l.startswith(name + " "))


COMPARISONS = {}  # name -> (baseline document or raw text, current document or raw text, options)


def comparison(name, baseline, current, *options):
    """Declares a run of the script for the decorated test; "{report}" in options becomes a
    path for --json, which the test finds parsed in run.report."""
    def register(test):
        COMPARISONS[name] = (baseline, current, options)
        return test
    return register


def run_comparison(directory, baseline, current, options):
    directory.mkdir()
    paths = []
    for filename, doc in (("base.json", baseline), ("cur.json", current)):
        paths.append(directory / filename)
        paths[-1].write_text(doc if isinstance(doc, str) else json.dumps(doc))
    report = directory / "report.json"
    options = [option.replace("{report}", str(report)) for option in options]
    result = subprocess.run([sys.executable, str(SCRIPT), *map(str, paths), *options],
                            capture_output=True, text=True, timeout=120)
    return SimpleNamespace(returncode=result.returncode, stdout=result.stdout, stderr=result.stderr,
                           baseline_path=str(paths[0]), current_path=str(paths[1]),
                           report=json.loads(report.read_text()) if report.exists() else None)


def verdicts(run):
    return {row["name"]: row for row in run.report["benchmarks"]}


class BenchCompareTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
            futures = {name: pool.submit(run_comparison, Path(cls.tmp.name) / name, *args)
                       for name, args in COMPARISONS.items()}
            cls.runs = {name: future.result() for name, future in futures.items()}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assertExit(self, run, code):
        self.assertEqual(run.returncode, code, f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}")

    @comparison("identical", google_benchmark_json(1), google_benchmark_json(2))
    def test_identical_distributions_pass(self):
        run = self.runs["identical"]
        self.assertExit(run, 0)
        self.assertNotIn("REGRESSION", run.stdout)
        self.assertEqual(summary_regressed(run.stdout), [])
        self.assertIn("4 kernels compared", run.stdout)
        # Aggregate rows are not repetitions: 10 per side, not 14.
        self.assertIn(" 10/10 ", table_row(run.stdout, "BM_matmul/256"))
        self.assertIn("calibration", table_row(run.stdout, "calibration/fma"))

    @comparison("one_slower", google_benchmark_json(1), google_benchmark_json(2, {"BM_matmul/256": 1.3}),
                "--json", "{report}")
    def test_one_slower_kernel_is_the_only_one_named_also_in_json(self):
        run = self.runs["one_slower"]
        self.assertExit(run, 1)
        self.assertEqual(summary_regressed(run.stdout), ["BM_matmul/256"])
        self.assertIn("REGRESSION", table_row(run.stdout, "BM_matmul/256"))
        self.assertEqual(run.report["regressed"], ["BM_matmul/256"])
        self.assertEqual(run.report["exit_code"], 1)
        rows = verdicts(run)
        self.assertEqual(rows["BM_matmul/256"]["verdict"], "REGRESSION")
        self.assertEqual({rows[name]["verdict"] for name in ALL_KERNELS if name != "BM_matmul/256"}, {"ok"})
        self.assertEqual(rows["BM_dot_rows/4096"]["bound"], "memory")
        self.assertEqual(rows["calibration/fma"]["verdict"], "calibration")
        self.assertEqual((rows["BM_matmul/256"]["n_baseline"], rows["BM_matmul/256"]["n_current"]), (10, 10))

    @comparison("everything_slower", google_benchmark_json(1), google_benchmark_json(2, {name: 1.5 for name in KERNELS}))
    @comparison("kernels_slower", google_benchmark_json(1), google_benchmark_json(2, {name: 1.5 for name in ALL_KERNELS}))
    def test_slower_machine_is_normalised_away_by_calibration(self):
        self.assertExit(self.runs["everything_slower"], 0)
        # The same kernel times with the calibration left alone: only normalisation saved them.
        self.assertExit(self.runs["kernels_slower"], 1)
        self.assertEqual(summary_regressed(self.runs["kernels_slower"].stdout), sorted(ALL_KERNELS))

    @comparison("below_threshold", google_benchmark_json(1), google_benchmark_json(2, {"BM_matmul/256": 1.05}),
                "--json", "{report}")
    def test_slowdown_below_threshold_passes(self):
        run = self.runs["below_threshold"]
        self.assertExit(run, 0)
        matmul = verdicts(run)["BM_matmul/256"]
        self.assertEqual(matmul["verdict"], "ok")
        # Significant, so only the threshold keeps it from being a regression.
        self.assertLess(matmul["p_value"], 0.05)
        self.assertGreater(matmul["change"], 0.02)

    # 4 repetitions each, calibration identical on both sides. The lower quartiles differ by
    # 26% (3.1125 vs 2.475, numpy's linear interpolation) but the ranks overlap: U = 11 of 16,
    # exact one-sided p = 17/70 = 0.24.
    @comparison("not_significant",
                google_benchmark_json(1, repetitions=4, samples={
                    "calibration/memory_read": [2.0e6] * 4, "calibration/fma": [450.0] * 4,
                    "BM_matmul/256": [3.0e6, 1.8e6, 4.2e6, 2.7e6]}),
                google_benchmark_json(2, repetitions=4, samples={
                    "calibration/memory_read": [2.0e6] * 4, "calibration/fma": [450.0] * 4,
                    "BM_matmul/256": [3.9e6, 2.1e6, 4.8e6, 3.45e6]}),
                "--json", "{report}")
    def test_large_but_not_significant_shift_passes(self):
        run = self.runs["not_significant"]
        self.assertExit(run, 0)
        matmul = verdicts(run)["BM_matmul/256"]
        self.assertEqual(matmul["verdict"], "ok (not significant)")
        self.assertAlmostEqual(matmul["change"], 3.1125 / 2.475 - 1, places=6)
        self.assertAlmostEqual(matmul["p_value"], 17 / 70, places=6)

    # Memory got 1.5x slower and compute did not. A kernel without a bound is normalised by the
    # geometric mean of both calibrations, so it moves by sqrt(1.5). Any other normalisation
    # shows up as a REGRESSION or an IMPROVED somewhere.
    @comparison("memory_slower",
                google_benchmark_json(1, kernels={**KERNELS, "BM_rope/128": (40.0, "us", "dtype=f32")}),
                google_benchmark_json(2, kernels={**KERNELS, "BM_rope/128": (40.0, "us", "dtype=f32")},
                                      scale={"calibration/memory_read": 1.5, "BM_dot_rows/4096": 1.5,
                                             "BM_dequant/q8_0/65536": 1.5, "BM_rope/128": 1.5 ** 0.5}),
                "--json", "{report}", "--strict-machine")
    def test_each_kernel_uses_its_matching_calibration(self):
        run = self.runs["memory_slower"]
        self.assertExit(run, 0)
        rows = verdicts(run)
        names = ALL_KERNELS + ["BM_rope/128"]
        self.assertEqual({name: rows[name]["verdict"] for name in names}, {name: "ok" for name in names})
        self.assertEqual(rows["BM_rope/128"]["bound"], "-")

    @comparison("other_machine", google_benchmark_json(1),
                google_benchmark_json(2, {"BM_matmul/256": 1.3}, signature="Intel Xeon Gold 6230 | avx512 | 2 threads"))
    @comparison("other_machine_strict", google_benchmark_json(1),
                google_benchmark_json(2, {"BM_matmul/256": 1.3}, signature="Intel Xeon Gold 6230 | avx512 | 2 threads"),
                "--strict-machine")
    def test_different_machine_is_advisory_unless_strict(self):
        run = self.runs["other_machine"]
        self.assertExit(run, 0)
        advisory = [line for line in run.stdout.splitlines() if "different machine" in line]
        self.assertEqual(len(advisory), 1, run.stdout)
        self.assertIn("REGRESSION", table_row(run.stdout, "BM_matmul/256"))
        self.assertIn(SIGNATURE, run.stdout)
        self.assertIn("Intel Xeon Gold 6230", run.stdout)
        self.assertExit(self.runs["other_machine_strict"], 1)

    # Memory 20% slower, compute unchanged: the balance moved by more than the 10% tolerance, so
    # the matmul's 30% stays visible in the table but does not fail the run, unless strict. The
    # same slowdown with the balance within tolerance (memory 8% slower) gates.
    @comparison("balance_moved", google_benchmark_json(1),
                google_benchmark_json(2, {"calibration/memory_read": 1.2, "BM_matmul/256": 1.3}),
                "--json", "{report}")
    @comparison("balance_moved_strict", google_benchmark_json(1),
                google_benchmark_json(2, {"calibration/memory_read": 1.2, "BM_matmul/256": 1.3}), "--strict-machine")
    @comparison("balance_within_tolerance", google_benchmark_json(1),
                google_benchmark_json(2, {"calibration/memory_read": 1.08, "BM_matmul/256": 1.3}))
    def test_moved_machine_balance_is_advisory_unless_strict(self):
        run = self.runs["balance_moved"]
        self.assertExit(run, 0)
        advisory = [line for line in run.stdout.splitlines() if "balance moved" in line]
        self.assertEqual(len(advisory), 1, run.stdout)
        self.assertIn("REGRESSION", table_row(run.stdout, "BM_matmul/256"))
        self.assertAlmostEqual(run.report["balance_change"], 0.2, delta=0.05)
        self.assertTrue(run.report["advisory"])
        self.assertExit(self.runs["balance_moved_strict"], 1)
        self.assertExit(self.runs["balance_within_tolerance"], 1)
        self.assertNotIn("balance moved", self.runs["balance_within_tolerance"].stdout)

    def assertBadInput(self, run, blamed, *fragments):
        self.assertExit(run, 2)
        lines = run.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, run.stderr)
        path = run.baseline_path if blamed == "baseline" else run.current_path
        self.assertTrue(lines[0].startswith(f"bench_compare: {path}: "), lines[0])
        for fragment in fragments:
            self.assertIn(fragment, lines[0])

    @comparison("not_json", "this is not {json", google_benchmark_json(2))
    @comparison("no_benchmarks", google_benchmark_json(1), {"context": {}})
    @comparison("no_fma", google_benchmark_json(1), google_benchmark_json(2, kernels=without("calibration/fma")))
    @comparison("two_repetitions", google_benchmark_json(1, repetitions=2), google_benchmark_json(2, repetitions=2))
    @comparison("real_time_string", google_benchmark_json(1), with_first_real_time(google_benchmark_json(2), "fast"))
    def test_bad_inputs_exit_2_with_one_line_naming_the_file(self):
        self.assertBadInput(self.runs["not_json"], "baseline", "not valid JSON")
        self.assertBadInput(self.runs["no_benchmarks"], "current", '"benchmarks"')
        self.assertBadInput(self.runs["no_fma"], "current", "calibration/fma")
        self.assertBadInput(self.runs["two_repetitions"], "current", "2 repetitions found")
        self.assertBadInput(self.runs["real_time_string"], "current", "real_time")

    @comparison("threshold_override", google_benchmark_json(1), google_benchmark_json(2, {"BM_matmul/256": 1.3}),
                "--threshold-for", "softmax=0.05", "--threshold-for", r"BM_matmul/\d+=0.5")
    def test_threshold_override_for_noisy_kernel(self):
        run = self.runs["threshold_override"]  # without the override: see "one_slower"
        self.assertExit(run, 0)
        self.assertNotIn("REGRESSION", run.stdout)

    @comparison("coarse_threshold_improves", google_benchmark_json(1), google_benchmark_json(2, {"BM_matmul/256": 0.4}),
                "--threshold-for", r"BM_matmul/\d+=1.0", "--json", "{report}")
    def test_coarse_threshold_still_sees_an_improvement(self):
        # Threshold 1.0 (gated on a doubling) improves at under half the time: 0.4x does.
        run = self.runs["coarse_threshold_improves"]
        self.assertExit(run, 0)
        self.assertEqual(verdicts(run)["BM_matmul/256"]["verdict"], "IMPROVED")

    @comparison("missing_and_new", google_benchmark_json(1, kernels=without("BM_dequant/q8_0/65536")),
                google_benchmark_json(2, kernels=without("BM_softmax/32000")))
    def test_missing_and_new_benchmarks_do_not_fail(self):
        run = self.runs["missing_and_new"]
        self.assertExit(run, 0)
        self.assertTrue(table_row(run.stdout, "BM_softmax/32000").endswith("missing"))
        self.assertTrue(table_row(run.stdout, "BM_dequant/q8_0/65536").endswith("new"))
        self.assertIn("warning: BM_softmax/32000", run.stdout)

    @comparison("error_in_current", google_benchmark_json(1), google_benchmark_json(2, errors={"BM_softmax/32000"}))
    def test_error_in_current_run_fails(self):
        run = self.runs["error_in_current"]
        self.assertExit(run, 1)
        self.assertTrue(table_row(run.stdout, "BM_softmax/32000").endswith("error"))


if __name__ == "__main__":
    unittest.main()
