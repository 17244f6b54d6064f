#!/usr/bin/env python3
"""scripts/plot_report.py on synthetic report.json files (valid against
reports/schema/report.schema.json): a full sweep draws every figure as a PNG and an SVG
that parse; reports without the shapes skip each figure with one line saying why; and a
report that is not JSON or breaks the schema exits non-zero with one line naming the file.

  .venv/bin/python tests/reports/plot_report_test.py --root .
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import jsonschema  # scripts/requirements-reference.txt, in the project venv

CATEGORIES = {"mt_bench_style": ["writing", "roleplay", "reasoning", "math", "coding", "extraction", "stem", "humanities"],
              "alpaca_style": ["helpful_base", "koala", "oasst", "selfinstruct", "vicuna"]}
FIGURES = ["figure5", "figure6_tokens", "figure6_batch", "figure7", "table5"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def stats(mean, spread=0.0):
    return {"mean": mean, "p1": mean * (1 - spread), "p50": mean, "p99": mean * (1 + spread)}


def metrics(tps, batch_size, tokens_per_step, beam_tokens, verified_tokens, speedup):
    m = {"requests": 16, "generated_tokens": 1024.0, "tokens_per_step": tokens_per_step, "tps": tps,
         "tps_x_bsz": tps * batch_size, "throughput": tps * batch_size * 0.97, "ms_per_token": 1000.0 / tps,
         "time_to_first_token_s": 0.05, "compression_ratio": beam_tokens / verified_tokens,
         "verified_tokens": stats(verified_tokens, 0.25 if verified_tokens > 1 else 0.0),
         "beam_tokens": stats(beam_tokens), "accepted_histogram": [10, 20, 5],
         "step_time_ms": {"draft": 1.0, "verify": 20.0, "accept": 0.5, "other": 0.1}}
    if speedup is not None:
        m["speedup"], m["baseline_tps"] = speedup, tps / speedup
    return m


def point(dataset, drafter, kind, params, status, tps=None, tokens_per_step=1.0, beam=1.0, verified=1.0, speedup=None):
    params = dict(params, drafter=drafter, max_new_tokens=64, seed=0)
    p = {"key": json.dumps({"dataset": dataset, "params": params}, sort_keys=True, separators=(",", ":")),
         "dataset": dataset, "drafter": drafter, "kind": kind, "params": params, "status": status}
    if status != "ok":
        p["message"] = {"oom": "planned 9.1 GB over the 8 GB budget", "timeout": "over 5m", "error": "decode failed"}[status]
        return p
    p["metrics"] = metrics(tps, params["batch_size"], tokens_per_step, beam, verified, speedup)
    p["per_category"] = {}
    for i, category in enumerate(CATEGORIES[dataset]):
        skew = 1 + 0.06 * (i - 3)
        entry = {"requests": 2, "tokens_per_step": tokens_per_step * skew, "tps": tps * skew}
        if speedup is not None and kind != "autoregressive":
            entry["speedup"] = speedup * skew
        p["per_category"][category] = entry
    return p


def autoregressive_tps(batch_size, t):
    return 40.0 / (1 + 0.15 * (batch_size - 1)) * (0.95 if t else 1.0)


def redrafter_point(dataset, t, batch_size, width, length, tree_attention, status="ok"):
    params = {"batch_size": batch_size, "temperature": t, "beam_width": width, "beam_length": length,
              "tree_attention": tree_attention, "distilled": True}
    if width * batch_size >= 64:
        status = "oom"
    if status != "ok":
        return point(dataset, "redrafter", "redrafter", params, status)
    tokens_per_step = 1 + 1.8 * (1 - 0.6 ** (length - 1)) * (1 - 0.7 ** width)
    beam = float(width * length)
    verified = beam * (0.45 + 0.25 / width) if tree_attention else beam
    cost = 1 + 0.01 * verified * batch_size
    tps = autoregressive_tps(batch_size, t) * tokens_per_step / cost
    return point(dataset, "redrafter", "redrafter", params, status, tps, tokens_per_step, beam, verified,
                 tps / autoregressive_tps(batch_size, t))


def full_points():
    """Every shape the figures need: two datasets and temperatures, categories, three
    drafters at batch 1, and on the first dataset a ReDrafter grid over beam width, beam
    length, batch size and tree attention, with OOM, timeout and error cells."""
    points = []
    for dataset in CATEGORIES:
        for t in (0.0, 1.0):
            for b in (1, 2, 4, 8):
                points.append(point(dataset, "autoregressive", "autoregressive", {"batch_size": b, "temperature": t}, "ok",
                                    autoregressive_tps(b, t), speedup=1.0))
            ar = autoregressive_tps(1, t)
            points.append(point(dataset, "medusa", "medusa", {"batch_size": 1, "temperature": t, "tree": "shipped", "distilled": True},
                                "ok", ar * 1.3, 2.1, 30.0, 30.0, 1.3))
            points.append(point(dataset, "eagle", "eagle", {"batch_size": 1, "temperature": t, "depth": 5, "top_k": 10,
                                                             "total_tokens": 60, "distilled": True}, "ok", ar * 1.5, 2.6, 60.0, 60.0, 1.5))
            if dataset != "mt_bench_style":
                points.append(redrafter_point(dataset, t, 1, 8, 5, True))
                continue
            for b in (1, 2, 4, 8):
                for width in (1, 2, 4, 8, 16):
                    for length in (2, 3, 4, 5):
                        for tree_attention in (True, False):
                            status = "ok"
                            if (t, b, length, tree_attention) == (0.0, 8, 5, True):
                                status = {2: "error", 4: "timeout"}.get(width, "ok")
                            points.append(redrafter_point(dataset, t, b, width, length, tree_attention, status))
    return points


def report(points):
    return {"schema": "draftbench-report", "schema_version": 1, "created_utc": "2026-11-23T03:10:34Z",
            "spec": {"file": "synthetic.yaml", "name": "synthetic", "model": "models/gemma-3-270m-q4_k_m.gguf",
                     "datasets": [{"name": d} for d in CATEGORIES],
                     "drafters": [{"name": n, "kind": n} for n in ("autoregressive", "medusa", "eagle", "redrafter")],
                     "sweep": {"axes": {}}, "repeats": 1, "warmup": 0},
            "spec_source": {},
            "environment": {"cpu": {"model": "synthetic", "hardware_threads": 2, "features": "avx2"}, "threads": 2,
                            "compiler": "GNU 12.2.0", "build": {"type": "Release", "cxx_flags": "-O3"},
                            "git": {"commit": "0" * 40, "dirty": False},
                            "model": {"path": "models/gemma-3-270m-q4_k_m.gguf", "sha256": {}}, "drafters": {}, "libraries": {}},
            "points": points}


class Case:
    def __init__(self, root, tmp, validator):
        self.script = os.path.join(root, "scripts", "plot_report.py")
        self.tmp, self.validator = tmp, validator

    def write(self, name, content, valid=True):
        path = os.path.join(self.tmp, name + ".json")
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        if not isinstance(content, str):
            errors = list(self.validator.iter_errors(content))
            assert (not errors) == valid, f"{name}: the fixture should {'' if valid else 'not '}fit the schema: {errors[:1]}"
        return path

    def plot(self, path):
        out = os.path.join(self.tmp, os.path.basename(path) + ".plots")
        proc = subprocess.run([sys.executable, self.script, path, "--out", out], capture_output=True, text=True)
        return proc, out


def check_drawn(out, stems):
    expected = {f"{s}.{ext}" for s in stems for ext in ("png", "svg")}
    found = set(os.listdir(out)) if os.path.isdir(out) else set()
    assert found == expected, f"files: missing {sorted(expected - found)}, unexpected {sorted(found - expected)}"
    for stem in stems:
        with open(os.path.join(out, stem + ".png"), "rb") as f:
            png = f.read()
        assert png.startswith(PNG_MAGIC) and len(png) > 10_000, f"{stem}.png is not a drawn PNG ({len(png)} bytes)"
        root = ET.parse(os.path.join(out, stem + ".svg")).getroot()
        assert root.tag in ("svg", "{http://www.w3.org/2000/svg}svg"), f"{stem}.svg: root is {root.tag}"


def check_lines(proc, drawn, skipped):
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr}"
    lines = proc.stdout.splitlines()
    for name in skipped:
        assert [l for l in lines if re.fullmatch(rf"{name}: skipped \(needs .+\)", l)], f"no skip line for {name}:\n{proc.stdout}"
    for name in drawn:
        assert [l for l in lines if l.startswith(f"{name}: wrote ")], f"no 'wrote' line for {name}:\n{proc.stdout}"
    assert len(lines) == len(skipped) + sum(1 for l in lines if " wrote " in l), f"stray lines:\n{proc.stdout}"


def test_full_report(case):
    proc, out = case.plot(case.write("full", report(full_points())))
    check_lines(proc, FIGURES, [])
    stems = [f"figure5_{d}_T{t}" for d in CATEGORIES for t in (0, 1)] + FIGURES[1:]
    check_drawn(out, stems)
    svg = open(os.path.join(out, "table5.svg")).read()
    # matplotlib writes each text's string as a comment beside its glyphs.
    assert all(f"<!-- {label} -->" in svg for label in ("OOM", "timeout", "error")), "table5 lost a status label"


def test_reports_without_shapes(case):
    autoregressive_only = [p for p in full_points() if p["kind"] == "autoregressive"]
    proc, out = case.plot(case.write("autoregressive_only", report(autoregressive_only)))
    check_lines(proc, [], FIGURES)
    assert "figure7: skipped (needs redrafter points at >= 2 beam widths and >= 2 beam lengths)" in proc.stdout.splitlines()
    check_drawn(out, [])

    # One ReDrafter setting, as in a Table 1 run: only the per-category bars can be drawn.
    one_setting = [p for p in full_points() if p["kind"] != "redrafter" or p["dataset"] == "alpaca_style"]
    proc, out = case.plot(case.write("one_setting", report(one_setting)))
    check_lines(proc, ["figure5"], FIGURES[1:])
    check_drawn(out, [f"figure5_{d}_T{t}" for d in CATEGORIES for t in (0, 1)])


def test_malformed_reports(case):
    good = report(full_points()[:4])
    wrong_schema = dict(good, schema="draftbench-results")
    wrong_status = json.loads(json.dumps(good))
    wrong_status["points"][1]["status"] = "done"
    no_points = {k: v for k, v in good.items() if k != "points"}
    for name, content in (("not_json", '{"schema": "draftbench-report",'), ("wrong_schema", wrong_schema),
                          ("wrong_status", wrong_status), ("no_points", no_points)):
        path = case.write(name, content, valid=False)
        proc, out = case.plot(path)
        err = proc.stderr.strip().splitlines()
        assert proc.returncode != 0, f"{name}: exit 0\n{proc.stdout}"
        assert len(err) == 1 and path in err[0], f"{name}: expected one line naming {path}, got:\n{proc.stderr}"
        assert "Traceback" not in proc.stderr and not os.path.exists(out), f"{name}: {proc.stderr}"
    missing = os.path.join(case.tmp, "missing.json")
    proc, _ = case.plot(missing)
    assert proc.returncode != 0 and missing in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True, help="the repository")
    ap.add_argument("--keep", help="write the plots under this folder and keep them (for looking at)")
    a = ap.parse_args()
    with open(os.path.join(a.root, "reports", "schema", "report.schema.json")) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    with tempfile.TemporaryDirectory(prefix="draftbench_plots_") as tmp:
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
        case = Case(a.root, a.keep or tmp, validator)
        for test in (test_full_report, test_reports_without_shapes, test_malformed_reports):
            test(case)
            print(f"ok: {test.__name__}")


if __name__ == "__main__":
    main()
