#!/usr/bin/env bash
# Proves the kernel-benchmark gate works: a second build with DRAFTBENCH_INJECT_SLOWDOWN=ON
# (rms_norm takes its sum of squares four times) is benchmarked against this build's
# kernel_bench in the same test, with the CI pass and thresholds of scripts/bench_kernels.sh,
# and scripts/bench_compare.py must fail on rms_norm and only on it; compared the other way
# round, nothing may regress and rms_norm must improve. The injected slowdown is about 2.6x,
# so the test gates its other kernels at 30% (GATE_THRESHOLD): this shared machine moves
# single kernels by up to 20% between passes, and the test must not fail on that.
#   bench_gate_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
slow_build=$build/injected-slowdown
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ ! -f $slow_build/build.ninja ]]; then
  cmake -S "$src" -B "$slow_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDRAFTBENCH_CUDA=OFF \
    -DDRAFTBENCH_INJECT_SLOWDOWN=ON > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
fi
cmake --build "$slow_build" --target kernel_bench -- --quiet

gate=$src/scripts/bench_kernels.sh
# Both builds run here, minutes apart, so the comparison gates even if the memory/FMA balance
# drifts between passes (bench_compare's advisory is for baselines from elsewhere).
export GATE_THRESHOLD=0.30 GATE_STRICT=1
normal=$build/kernels/bench/kernel_bench slowed=$slow_build/kernels/bench/kernel_bench
KERNEL_BENCH=$normal PROCESSES=6 bash "$gate" --pass "$work/normal.json"

status=0
KERNEL_BENCH=$slowed bash "$gate" --gate "$work/normal.json" "$work/slowed.json" || status=$?
echo "the slowed build against the normal one: gate exited $status"
[[ $status -eq 1 ]] || { echo "FAIL: expected exit 1 (regression)"; exit 1; }

status=0
KERNEL_BENCH=$normal bash "$gate" --gate "$work/slowed.json" "$work/normal2.json" || status=$?
echo "the normal build against the slowed one: gate exited $status"
[[ $status -eq 0 ]] || { echo "FAIL: expected exit 0 (the normal build regresses nowhere)"; exit 1; }

"$src/.venv/bin/python" - "$work/slowed.json" "$work/normal2.json" <<'PYEOF'
import json, os, sys
def verdicts(path):
    return {row["name"]: row["verdict"] for row in json.load(open(path))["benchmarks"]}
def final_verdicts(out):
    """The pass's verdicts, with a flagged kernel's replaced by its confirmation's."""
    v = verdicts(out + ".verdicts.json")
    if os.path.exists(out + ".confirm.verdicts.json"):
        confirmed = verdicts(out + ".confirm.verdicts.json")
        v.update({k: confirmed.get(k, "missing") for k, verdict in v.items() if verdict == "REGRESSION"})
    return v
slowed, restored = final_verdicts(sys.argv[1]), final_verdicts(sys.argv[2])
expected = sorted(k for k in restored if k.startswith("rms_norm/"))
assert expected, "no rms_norm benchmark in the CI suite"
regressed = sorted(k for k, v in slowed.items() if v == "REGRESSION")
print("regressed:", regressed)
assert regressed == expected, f"expected exactly {expected} to regress"
improved = sorted(k for k, v in restored.items() if v == "IMPROVED")
print("improved the other way round:", improved)
assert set(expected) <= set(improved), f"expected {expected} to improve"
PYEOF
echo "PASS: the gate fails on the slowed kernel and only on it"
