#!/usr/bin/env python3
"""A real sweep killed with SIGKILL mid-run, then resumed: nothing measured is lost or
changed, nothing is run twice, and the resumed results equal an uninterrupted run's
(tokens, at temperature 0 and 1). Also: rerunning without --resume is refused, a resumed
run must use the spec it started with, the report fits its JSON Schema and leaves out records
of points not in the spec (another spec's, appended), two shards run as
local processes merge into the uninterrupted run's results, and --emit-slurm writes a
job-array script, --retry-errors runs again only the points that ended in error, and the
uninterrupted run's tables rebuild byte for byte from its results (the committed-reports
check, with its tamper self-test)."""
import argparse, json, os, pathlib, signal, subprocess, sys, tempfile, time

import jsonschema  # scripts/requirements-reference.txt, in the project venv

SPEC = """schema_version: 1
name: resume
datasets:
  - {name: mt, path: %(root)s/datasets/mt_bench_style/question.jsonl, limit: 2}
sweep:
  drafter: [autoregressive, redrafter, medusa]
  temperature: [0, 1]
  beam_width: [1, 2]
  max_new_tokens: 12
warmup: 0
"""


def records(path):
    with open(path) as f:
        return [json.loads(line)["record"] for line in f if line.endswith("\n")]


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def retry_errors(a, tmp):
    """A point whose prompt plus max_new_tokens overflows the context fails at run time; the
    sweep records it as error, exits 1 and goes on. --resume skips it; --resume
    --retry-errors runs it (only it) again, and its new record supersedes the old."""
    spec = os.path.join(tmp, "retry.yaml")
    with open(spec, "w") as f:
        f.write(f"""schema_version: 1
name: retry
datasets:
  - {{name: mt, path: {a.root}/datasets/mt_bench_style/question.jsonl, limit: 1}}
sweep:
  drafter: [autoregressive]
  max_new_tokens: [4, 1000000]
warmup: 0
""")
    out = os.path.join(tmp, "retry")
    results = os.path.join(out, "results.jsonl")
    first = run([a.draftbench, "run", spec, "--out", out])
    assert first.returncode == 1 and "1 point(s) ended in error" in first.stderr, first.stderr
    assert [r["status"] for r in records(results)] == ["ok", "error"], records(results)
    assert "tokens" in records(results)[1]["message"], records(results)[1]
    refused = run([a.draftbench, "run", spec, "--out", out, "--retry-errors"])
    assert refused.returncode != 0 and "--retry-errors: needs --resume" in refused.stderr, refused.stderr
    resumed = run([a.draftbench, "run", spec, "--out", out, "--resume"])
    assert resumed.returncode == 0 and not [l for l in resumed.stderr.splitlines() if " ..." in l], resumed.stderr
    with open(results) as f:
        lines_before = f.readlines()
    retried = run([a.draftbench, "run", spec, "--out", out, "--resume", "--retry-errors"])
    assert retried.returncode == 1, retried.stderr
    ran = [l for l in retried.stderr.splitlines() if " ..." in l]
    assert len(ran) == 1 and ran[0].startswith("[2/2]"), retried.stderr
    with open(results) as f:
        lines_after = f.readlines()
    assert lines_after[:2] == lines_before and len(lines_after) == 3, lines_after
    report = json.load(open(os.path.join(out, "report.json")))
    assert [p["status"] for p in report["points"]] == ["ok", "error"], [p["status"] for p in report["points"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--draftbench", required=True)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="draftbench_resume_")
    spec = os.path.join(tmp, "spec.yaml")
    with open(spec, "w") as f:
        f.write(SPEC % {"root": a.root})
    killed, fresh = os.path.join(tmp, "killed"), os.path.join(tmp, "fresh")
    n_points = int(run([a.draftbench, "run", spec, "--dry-run"]).stdout.strip().splitlines()[-1].split()[0])
    assert n_points == 8, n_points  # 2 autoregressive + 4 redrafter + 2 medusa

    proc = subprocess.Popen([a.draftbench, "run", spec, "--out", killed], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = os.path.join(killed, "results.jsonl")
    deadline = time.time() + 600
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(results) and len(records(results)) >= 3:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the sweep finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = open(results, "rb").read()
    kept = records(results)
    assert 3 <= len(kept) < n_points, len(kept)

    again = run([a.draftbench, "run", spec, "--out", killed])
    assert again.returncode != 0 and "already holds results" in again.stderr, again.stderr
    other = os.path.join(tmp, "other.yaml")
    with open(other, "w") as f:
        f.write((SPEC % {"root": a.root}).replace("max_new_tokens: 12", "max_new_tokens: 13"))
    changed = run([a.draftbench, "run", other, "--out", killed, "--resume"])
    assert changed.returncode != 0 and "a resumed run must use the spec it started with" in changed.stderr, changed.stderr

    resumed = run([a.draftbench, "run", spec, "--out", killed, "--resume"])
    assert resumed.returncode == 0, resumed.stderr
    after = open(results, "rb").read()
    assert after.startswith(before), "records written before the kill changed"
    done = records(results)
    keys = [r["key"] for r in done]
    assert len(keys) == n_points and len(set(keys)) == n_points, keys
    ran_again = [line for line in resumed.stderr.splitlines() if " ..." in line]
    assert len(ran_again) == n_points - len(kept), resumed.stderr

    clean = run([a.draftbench, "run", spec, "--out", fresh])
    assert clean.returncode == 0, clean.stderr
    want = {r["key"]: [p["tokens_fingerprint"] for p in r["per_prompt"]] for r in records(os.path.join(fresh, "results.jsonl"))}
    got = {r["key"]: [p["tokens_fingerprint"] for p in r["per_prompt"]] for r in done}
    assert got == want, "the resumed sweep's tokens differ from an uninterrupted run's"
    report = json.load(open(os.path.join(killed, "report.json")))
    schema = json.load(open(os.path.join(a.root, "reports", "schema", "report.schema.json")))
    jsonschema.validate(report, schema)
    assert len(report["points"]) == n_points
    lossless = [p.get("same_tokens_as_baseline") for p in report["points"] if p["params"]["temperature"] == 0 and p["kind"] != "autoregressive"]
    assert lossless and all(v is True for v in lossless), lossless

    # Another spec's records appended to results.jsonl stay out of the report, as merge leaves
    # them out, and are counted on stderr.
    foreign_spec, foreign_out = os.path.join(tmp, "foreign.yaml"), os.path.join(tmp, "foreign")
    with open(foreign_spec, "w") as f:
        f.write(f"schema_version: 1\nname: foreign\ndatasets:\n  - {{name: mt, path: {a.root}/datasets/mt_bench_style/question.jsonl, limit: 1}}\n"
                "sweep:\n  drafter: [autoregressive]\n  max_new_tokens: [3, 5]\nwarmup: 0\n")
    assert run([a.draftbench, "run", foreign_spec, "--out", foreign_out]).returncode == 0
    with open(results, "ab") as f:
        f.write(open(os.path.join(foreign_out, "results.jsonl"), "rb").read())
    rebuilt = run([a.draftbench, "run", spec, "--out", killed, "--resume"])
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "2 record(s) whose point is not in the spec were left out of the report" in rebuilt.stderr, rebuilt.stderr
    assert len(json.load(open(os.path.join(killed, "report.json")))["points"]) == n_points

    # Two shards as two local processes at once, merged: the same points and tokens.
    shards = [os.path.join(tmp, f"shard-{i}") for i in range(2)]
    procs = [subprocess.Popen([a.draftbench, "run", spec, "--shard", f"{i}/2", "--out", d], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for i, d in enumerate(shards)]
    for p in procs:
        assert p.wait() == 0, p.stderr.read()
    sizes = [len(records(os.path.join(d, "results.jsonl"))) for d in shards]
    assert sorted(sizes) == [n_points // 2, n_points - n_points // 2], sizes
    merged_dir = os.path.join(tmp, "merged")
    merged = run([a.draftbench, "merge", spec, *shards, "--out", merged_dir])
    assert merged.returncode == 0, merged.stderr
    got = {r["key"]: [p["tokens_fingerprint"] for p in r["per_prompt"]] for r in records(os.path.join(merged_dir, "results.jsonl"))}
    assert got == want, "the merged shards' tokens differ from an uninterrupted run's"
    assert [r["key"] for r in records(os.path.join(merged_dir, "results.jsonl"))] == [r["key"] for r in records(os.path.join(fresh, "results.jsonl"))]
    jsonschema.validate(json.load(open(os.path.join(merged_dir, "report.json"))), schema)
    # The merged report names the environment the shards measured in, not the merge's; shards
    # that measured in different ones are each listed with their own.
    environment = lambda d: json.load(open(os.path.join(d, "report.json")))["environment"]
    assert environment(merged_dir) == environment(shards[0]) == environment(shards[1])
    moved = json.load(open(os.path.join(shards[1], "report.json")))
    moved["environment"]["git"]["commit"] = "0" * 40
    json.dump(moved, open(os.path.join(shards[1], "report.json"), "w"))
    mixed_dir = os.path.join(tmp, "merged-mixed")
    assert run([a.draftbench, "merge", spec, *shards, "--out", mixed_dir]).returncode == 0
    listed = environment(mixed_dir)["shards"]
    assert [s["environment"]["git"]["commit"] for s in listed] == [environment(shards[0])["git"]["commit"], "0" * 40], listed
    jsonschema.validate(json.load(open(os.path.join(mixed_dir, "report.json"))), schema)
    # The committed-reports check (tests/reports/committed_reports_test.py) on a real report:
    # the uninterrupted run's tables rebuild byte for byte from its results, and a changed
    # point changes them (no report is committed yet for that test to find).
    sys.path.insert(0, os.path.join(a.root, "tests", "reports"))
    import committed_reports_test as committed
    scratch, root = pathlib.Path(tmp) / "rederive", pathlib.Path(a.root).resolve()
    rebuilt = committed.rebuild(a.draftbench, root, pathlib.Path(fresh), scratch / "rebuilt")
    assert committed.differences(pathlib.Path(fresh), rebuilt) == [], committed.differences(pathlib.Path(fresh), rebuilt)
    assert committed.tamper_is_caught(a.draftbench, root, pathlib.Path(fresh), scratch)
    slurm = run([a.draftbench, "run", spec, "--emit-slurm", "--slurm-shards", "2", "--out", os.path.join(tmp, "slurm")])
    assert slurm.returncode == 0, slurm.stderr
    script = open(os.path.join(tmp, "slurm", "slurm.sh")).read()
    assert "#SBATCH --array=0-1" in script and "--shard ${SLURM_ARRAY_TASK_ID}/2" in script, script
    assert run(["bash", "-n", os.path.join(tmp, "slurm", "slurm.sh")]).returncode == 0

    # The paper's findings over a real report: all seven decided or named as not measurable,
    # written as FINDINGS.md and findings.json.
    findings_dir = os.path.join(tmp, "findings")
    checked = run([a.draftbench, "report", "--findings", os.path.join(merged_dir, "report.json"), "--out", findings_dir])
    assert checked.returncode == 0, checked.stderr
    decided = json.load(open(os.path.join(findings_dir, "findings.json")))
    assert [f["number"] for f in decided] == list(range(1, 8)), decided
    assert all(f["status"] in ("holds", "does not hold", "not measurable") for f in decided), decided
    findings_md = open(os.path.join(findings_dir, "FINDINGS.md")).read()
    assert "| 7 |" in findings_md and "## table2: not runnable here" in findings_md and "## table3: not runnable here" in findings_md
    index = open(os.path.join(findings_dir, "index.html")).read()
    # seven findings, the reports, Tables 2 and 3
    assert '<a href="../merged/index.html">' in index and index.count("<h2>") == 10, index[:2000]

    # compare, several metrics at once: a table each; counts (not timings) do not regress
    # between an uninterrupted run and the merged shards; an unknown metric prints nothing.
    both = [os.path.join(fresh, "report.json"), os.path.join(merged_dir, "report.json")]
    compared = run([a.draftbench, "compare", *both, "--metric", "tokens_per_step,generated_tokens"])
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert compared.stdout.count("point(s) compared on") == 2, compared.stdout
    unknown = run([a.draftbench, "compare", *both, "--metric", "tokens_per_step,bogus"])
    assert unknown.returncode != 0 and unknown.stdout == "" and "'bogus'" in unknown.stderr, unknown

    retry_errors(a, tmp)
    print(f"killed after {len(kept)} of {n_points} points; resumed the other {n_points - len(kept)}; "
          f"results equal an uninterrupted run's; report.json fits its schema; temperature-0 drafters reproduce the baseline's tokens; two shards merge into the same results; "
          f"--retry-errors re-ran only the failed point")


if __name__ == "__main__":
    main()
