#!/usr/bin/env bash
# Where the test suite's time goes (tests/README.md keeps its output for each CPU met):
#   scripts/suite_time.sh                  run what scripts/test.sh runs (ctest -j2, every label but
#                                          exhaustive) with timing, then report
#   scripts/suite_time.sh -L '^quick$'     other tests instead (ctest's selection flags, as given)
#   scripts/suite_time.sh --report         report on the last timed run without running anything
# The report lists the 20 slowest tests, the time per label, the set-up phases of the last
# scripts/setup.sh run (build/setup_times.tsv) and the build's compile time by kind of object
# (build/release/.ninja_log: CUDA objects, libtorch objects, tests, the rest).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/release
junit=$build/suite_time.xml

if [[ ${1:-} != --report ]]; then
  [[ -f $build/build.ninja ]] || { echo "suite_time: $build: not configured (run scripts/setup.sh first)" >&2; exit 2; }
  start=$(date +%s)
  status=0
  select=("$@")
  ((${#select[@]})) || select=(-LE '^exhaustive$')
  ctest --preset release -j2 --timeout 1800 --output-junit "$PWD/$junit" "${select[@]}" > "$build/suite_time.log" 2>&1 || status=$?
  echo "ctest: $(($(date +%s) - start)) s wall, exit $status ($build/suite_time.log has its output)"
fi

python3 - "$junit" "$build" <<'PYEOF'
import collections, json, os, subprocess, sys
import xml.etree.ElementTree as ET

junit, build = sys.argv[1], sys.argv[2]

def labels_by_test():
    """Each test's labels, from ctest's own JSON listing of the configured suite."""
    try:
        out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    result = {}
    for test in json.loads(out).get("tests", []):
        labels = [p["value"] for p in test.get("properties", []) if p.get("name") == "LABELS"]
        result[test["name"]] = labels[0] if labels else []
    return result

if os.path.exists(junit):
    cases = [(float(c.get("time", 0)), c.get("name"), c.get("status", ""))
             for c in ET.parse(junit).getroot().iter("testcase")]
    cases.sort(reverse=True)
    print(f"\n{len(cases)} tests, {sum(t for t, _, _ in cases):.0f} s summed ({junit})")
    print("\nthe 20 slowest (s):")
    for t, name, status in cases[:20]:
        print(f"  {t:7.1f}  {name}{'' if status in ('run', '') else '  [' + status + ']'}")
    labels = labels_by_test()
    per_label = collections.defaultdict(lambda: [0, 0.0])
    for t, name, _ in cases:
        for label in labels.get(name) or ["(none)"]:
            per_label[label][0] += 1
            per_label[label][1] += t
    print("\nby label (tests, s summed):")
    for label, (n, t) in sorted(per_label.items()):
        print(f"  {label:8} {n:4d} {t:8.0f}")
else:
    print(f"no timed run yet ({junit} is missing)")

phases = "build/setup_times.tsv"
if os.path.exists(phases):
    print(f"\nset-up phases of the last scripts/setup.sh (s, {phases}):")
    for line in open(phases):
        name, seconds = line.rstrip("\n").split("\t")
        print(f"  {float(seconds):7.0f}  {name}")

ninja_log = os.path.join(build, ".ninja_log")
if os.path.exists(ninja_log):
    latest = {}  # output -> (start ms, end ms); the log appends, so the last entry wins
    for line in open(ninja_log):
        if line.startswith("#"):
            continue
        start, end, _, output, *_ = line.split("\t")
        latest[output] = (int(start), int(end))
    kinds = collections.defaultdict(lambda: [0, 0.0])
    for output, (start, end) in latest.items():
        kind = ("CUDA objects" if output.endswith(".cu.o") else
                "libtorch objects" if "/train/torch/" in output and output.endswith(".o") else
                "test objects" if output.startswith("tests/") and output.endswith(".o") else
                "other objects" if output.endswith(".o") else "links and the rest")
        kinds[kind][0] += 1
        kinds[kind][1] += (end - start) / 1000
    # Each build's times start at its own zero, so only sums are meaningful across builds.
    print(f"\nthe build's steps (s of one core, each output's latest build summed, {ninja_log}):")
    for kind, (n, t) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        print(f"  {t:7.0f}  {kind} ({n})")
PYEOF
