#!/usr/bin/env python3
"""`draftbench report`, `report --findings` and `compare` on broken inputs: a report.json
missing a field or holding a wrong type, a null metric, a bad --paper-tables file. Each
must exit 1 (not die by a signal) with one line on stderr naming the file, the field and
what was expected. No model runs; the reports are written here.
"""
import argparse
import copy
import json
import pathlib
import subprocess
import tempfile


def point(drafter, tps, status="ok"):
    params = {"drafter": drafter, "temperature": 0, "batch_size": 1, "max_new_tokens": 8, "seed": 0}
    key = json.dumps({"dataset": "mt", "params": params}, sort_keys=True)
    p = {"key": key, "dataset": "mt", "drafter": drafter, "kind": drafter, "params": params, "status": status}
    if status == "ok":
        p["metrics"] = {"tps": tps, "tokens_per_step": 1.0 if drafter == "autoregressive" else 2.5, "speedup": tps / 40.0}
    else:
        p["message"] = "the drafter failed"
    return p


def report(points):
    return {"schema": "draftbench-report", "schema_version": 1, "created_utc": "2026-01-01T00:00:00Z",
            "spec": {"name": "t", "description": "", "paper": None}, "spec_source": {},
            "environment": {"cpu": {"model": "test cpu"}, "threads": 1, "git": {"commit": "0123456789abcdef", "dirty": False}},
            "points": points}


GOOD = report([point("autoregressive", 40.0), point("redrafter", 60.0)])


class Case:
    def __init__(self, draftbench, tmp):
        self.draftbench, self.tmp = draftbench, tmp

    def write(self, relative, content):
        path = self.tmp / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        return relative

    def run(self, *args):
        return subprocess.run([self.draftbench, *args], cwd=self.tmp, capture_output=True, text=True, timeout=60)

    def one_line_error(self, args, *needles):
        """The command exits 1 with one stderr line holding every needle."""
        proc = self.run(*args)
        err = proc.stderr.strip().splitlines()
        shown = f"draftbench {' '.join(args)}: exit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
        assert proc.returncode == 1, shown
        assert len(err) == 1 and all(n in err[0] for n in needles), f"expected one line with {needles}\n{shown}"
        for raw in ("json.exception", "type_error"):
            assert raw not in err[0], f"a raw library error\n{shown}"


def broken_report_tests(case):
    """Every reader refuses a report missing a field, naming the file, the field and what was expected."""
    good = case.write("A/report.json", GOOD)
    mutations = {
        "schema_version": lambda r: r.pop("schema_version"),
        "spec": lambda r: r.pop("spec"),
        "environment": lambda r: r.pop("environment"),
        "points[1].key": lambda r: r["points"][1].pop("key"),
        "points[0]": lambda r: r["points"].__setitem__(0, 3),
    }
    for field, mutate in mutations.items():
        broken = copy.deepcopy(GOOD)
        mutate(broken)
        path = case.write("R/report.json", broken)
        needles = (path, f"field '{field}'", "expected")
        case.one_line_error(["report", path], *needles)
        case.one_line_error(["report", "--findings", path], *needles)
        case.one_line_error(["compare", good, path], *needles)
        case.one_line_error(["compare", path, good], *needles)


def failed_points_tests(case):
    """compare exits 1 when points ok in A did not finish in B, and lists them."""
    good = case.write("A/report.json", GOOD)
    failed = case.write("B/report.json", report([point("autoregressive", 0, "error"), point("redrafter", 0, "timeout")]))
    proc = case.run("compare", good, failed)
    shown = f"exit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
    assert proc.returncode == 1, shown
    assert "2 regression(s)" in proc.stdout and "(ok -> timeout)" in proc.stdout and "(ok -> error)" in proc.stdout, shown
    back = case.run("compare", failed, good)  # failed in A: not comparable, not a regression
    assert back.returncode == 0 and "not comparable (status)" in back.stdout, back.stdout + back.stderr


def null_metric_tests(case):
    """compare on a metric that is null (or not a number) names the report, the point and the metric."""
    good = case.write("A/report.json", GOOD)
    broken = copy.deepcopy(GOOD)
    broken["points"][1]["metrics"]["tps"] = None
    path = case.write("B/report.json", broken)
    needles = (path, "field 'points[1].metrics.tps'", "null (expected a number)")
    case.one_line_error(["compare", good, path], *needles)
    case.one_line_error(["compare", path, good], *needles)


def paper_tables_tests(case):
    """A bad --paper-tables file is named by the path given, whatever its name."""
    good = case.write("A/report.json", GOOD)
    for name, content, needles in (("few_findings", {"findings": ["one"]}, ("field 'findings'", "expected")),
                                   ("array", [1, 2], ("an array", "expected an object")),
                                   ("not_json", "{", ("not valid JSON",))):
        path = case.write(f"custom/{name}.json", content)
        case.one_line_error(["report", "--findings", good, "--paper-tables", path], path, *needles)
    # The findings but not Table 2's rows: still named by the path given.
    root_tables = json.loads((pathlib.Path(__file__).resolve().parents[2] / "reports" / "paper" / "paper_tables.json").read_text())
    no_table2 = {k: v for k, v in root_tables.items() if k != "table2"}
    path = case.write("custom/no_table2.json", no_table2)
    case.one_line_error(["report", "--findings", good, "--paper-tables", path], path, "field 'table2'", "expected")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draftbench", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="draftbench_report_errors_") as tmp:
        case = Case(str(pathlib.Path(a.draftbench).resolve()), pathlib.Path(tmp))
        for test in (broken_report_tests, failed_points_tests, null_metric_tests, paper_tables_tests):
            test(case)
            print(f"ok: {test.__name__}")


if __name__ == "__main__":
    main()
