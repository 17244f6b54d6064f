#!/usr/bin/env python3
"""Every report committed under reports/ re-derives, byte for byte, from its own results.

A committed report directory (tracked by git: reports/paper-cpu/<spec>/) holds
results.jsonl (the measured points), run.json (the spec it ran) and the renderings
draftbench wrote from them. This test rebuilds each one with
`draftbench merge` from results.jsonl alone (no model runs) and requires every committed
table (tables/*.md, .html, .tex) to equal the rebuilt one, and report.json's points and
environment to equal the rebuilt ones. A renderer change that alters a published table therefore fails
here until the committed reports are re-rendered on purpose.

Self-test: a copy of one report with a single speculative point's tokens/step changed in
results.jsonl (its line checksum recomputed) must rebuild to different tables. With no
report committed yet it exits 77 (skipped), saying so. A report of an optional model
(reports/qwen-coder/) whose file this checkout lacks cannot be rebuilt (its spec names the
model): it is skipped, by name, and checked where the model is installed.
"""
import argparse
import hashlib
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

SKIPPED = 77  # ctest's SKIP_RETURN_CODE for this test


def committed_reports(root):
    """Directories under reports/ whose finished run is committed: results, spec and tables
    tracked by git (run outputs such as reports/quickstart/ are ignored, not committed)."""
    listed = subprocess.run(["git", "ls-files", "--", "reports"], cwd=root, capture_output=True, text=True)
    if listed.returncode != 0:
        raise SystemExit(f"git ls-files failed in {root}: {listed.stderr.strip()}")
    tracked = set(listed.stdout.splitlines())
    found = []
    for path in sorted(tracked):
        if path.endswith("/results.jsonl"):
            d = path[: -len("results.jsonl")]
            if {d + "run.json", d + "report.json"} <= tracked and any(p.startswith(d + "tables/") for p in tracked):
                found.append(root / d)
    return found


def spec_dir(root, name):
    """The folder of the checkout's spec named `name` (experiments/**/<name>.yaml): the base its
    relative paths were written against. None when there is not exactly one."""
    found = sorted((root / "experiments").rglob(f"{name}.yaml"))
    return found[0].parent if len(found) == 1 else None


def mirror(root, rel, scratch):
    """scratch/rel as a folder whose surroundings are the checkout's: every entry of root along
    the way is linked in, except the folders on the path to rel, which are made. A spec written
    into scratch/rel then finds its relative paths as it did in root/rel."""
    here, there = scratch, root
    for part in rel.parts:
        here.mkdir(parents=True, exist_ok=True)
        for entry in there.iterdir():
            if entry.name not in (part, ".git") and not (here / entry.name).exists():
                (here / entry.name).symlink_to(entry)
        here, there = here / part, there / part
    here.mkdir(parents=True, exist_ok=True)
    return here


def rebuild(draftbench, root, report_dir, scratch):
    """Rebuilds report_dir from its results.jsonl into a fresh directory; returns it."""
    spec = json.loads((report_dir / "run.json").read_text())["spec"]
    base = spec_dir(root, spec.get("name", ""))
    scratch.mkdir(parents=True)
    # The spec goes where its own file is, relative to a mirror of the checkout, so that its
    # relative paths (../../datasets/...) resolve as when it ran.
    spec_home = mirror(root, base.relative_to(root), scratch / "checkout") if base is not None else scratch
    spec_file = spec_home / "spec.yaml"  # JSON is YAML: the spec exactly as the run recorded it
    spec_file.write_text(json.dumps(spec))
    out = scratch / "rebuilt"
    done = subprocess.run([draftbench, "merge", str(spec_file), str(report_dir), "--out", str(out)], cwd=root, capture_output=True, text=True)
    if done.returncode != 0 and "is not there (run scripts/setup.sh --model" in done.stderr:
        return None  # an optional model this checkout lacks
    if done.returncode != 0:
        raise SystemExit(f"{report_dir}: draftbench merge failed: {done.stderr.strip()}")
    return out


def differences(committed, rebuilt):
    """What differs between a committed report directory and its rebuild."""
    found = []
    tables = sorted((committed / "tables").iterdir())
    if not tables:
        found.append(f"{committed}/tables: empty")
    for table in tables:
        other = rebuilt / "tables" / table.name
        if not other.is_file():
            found.append(f"{table}: the rebuild has no such table")
        elif table.read_bytes() != other.read_bytes():
            found.append(f"{table}: differs from the table rebuilt from results.jsonl")
    report, again = (json.loads((d / "report.json").read_text()) for d in (committed, rebuilt))
    if report["points"] != again["points"]:
        found.append(f"{committed}/report.json: its points differ from those rebuilt from results.jsonl")
    if report["environment"] != again["environment"]:  # merge keeps the measured environment
        found.append(f"{committed}/report.json: its environment differs from the rebuilt report's")
    return found


def line_checksum(record):
    return hashlib.sha256(json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()


def tamper(report_dir, copy):
    """Copies report_dir and changes one speculative point's tokens/step in its results."""
    shutil.copytree(report_dir, copy)
    lines = (copy / "results.jsonl").read_text().splitlines()
    for i, line in enumerate(lines):
        entry = json.loads(line)
        record = entry["record"]
        speculative = record.get("point", {}).get("drafter") != "autoregressive" and record.get("status") == "ok"
        # Only a line whose checksum Python reproduces can be re-signed here.
        if speculative and line_checksum(record) == entry["sha256"]:
            record["metrics"]["tokens_per_step"] += 0.5
            lines[i] = json.dumps({"sha256": line_checksum(record), "record": record}, separators=(",", ":"), ensure_ascii=False)
            (copy / "results.jsonl").write_text("\n".join(lines) + "\n")
            return
    raise SystemExit(f"{report_dir}: no speculative point to tamper with")


def tamper_is_caught(draftbench, root, report_dir, scratch):
    """The self-test: a copy of report_dir with one point changed must rebuild to other tables."""
    tampered = scratch / "tampered"
    tamper(report_dir, tampered)
    changed = [f for f in differences(tampered, rebuild(draftbench, root, tampered, scratch / "t")) if "differs from the table" in f]
    return bool(changed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draftbench", required=True)
    parser.add_argument("--root", required=True, type=pathlib.Path)
    args = parser.parse_args()
    root = args.root.resolve()
    reports = committed_reports(root)
    if not reports:
        print("no committed report under reports/ yet (scripts/run_paper_cpu.sh writes reports/paper-cpu/): nothing to rebuild")
        sys.exit(SKIPPED)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for i, d in enumerate(reports):
            rebuilt = rebuild(args.draftbench, root, d, tmp / f"r{i}")
            if rebuilt is None:
                print(f"{d.relative_to(root)}: skipped, its model is not installed here")
                continue
            found = differences(d, rebuilt)
            failures += found
            print(f"{d.relative_to(root)}: {'rebuilt byte for byte' if not found else f'{len(found)} difference(s)'}")
        if not tamper_is_caught(args.draftbench, root, reports[0], tmp):
            failures.append("self-test: a changed tokens/step in results.jsonl left every table as committed")
        else:
            print("self-test: a changed tokens/step in results.jsonl changes the rebuilt tables")
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
