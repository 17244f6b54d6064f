#!/usr/bin/env bash
# Proves the kernel-benchmark gate works: a second build with DRAFTBENCH_INJECT_SLOWDOWN=ON
# (rms_norm takes its sum of squares twice) is benchmarked against this build's
# kernel_bench in the same test, and scripts/bench_compare.py must fail on rms_norm and
# only on it; compared the other way round, nothing may regress.
#   bench_gate_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
slow_build=$build/injected-slowdown
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=$src/.venv/bin/python

if [[ ! -f $slow_build/build.ninja ]]; then
  cmake -S "$src" -B "$slow_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDRAFTBENCH_CUDA=OFF \
    -DDRAFTBENCH_INJECT_SLOWDOWN=ON > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
fi
cmake --build "$slow_build" --target kernel_bench -- --quiet

flags=(--suite=ci --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true
  --benchmark_min_time=0.05 --benchmark_out_format=json)
"$build/kernels/bench/kernel_bench" "${flags[@]}" --benchmark_out="$work/normal.json" > /dev/null
"$slow_build/kernels/bench/kernel_bench" "${flags[@]}" --benchmark_out="$work/slowed.json" > /dev/null

status=0
"$py" "$src/scripts/bench_compare.py" "$work/normal.json" "$work/slowed.json" --json "$work/slowed-vs-normal.json" || status=$?
echo "bench_compare normal -> slowed exited $status"
[[ $status -eq 1 ]] || { echo "FAIL: expected exit 1 (regression)"; exit 1; }

status=0
"$py" "$src/scripts/bench_compare.py" "$work/slowed.json" "$work/normal.json" --json "$work/normal-vs-slowed.json" || status=$?
echo "bench_compare slowed -> normal exited $status"
[[ $status -eq 0 ]] || { echo "FAIL: expected exit 0 (the normal build regresses nowhere)"; exit 1; }

"$py" - "$work/slowed-vs-normal.json" "$work/normal-vs-slowed.json" <<'PYEOF'
import json, sys
def verdicts(path):
    return {row["name"]: row["verdict"] for row in json.load(open(path))["benchmarks"]}
slowed, restored = verdicts(sys.argv[1]), verdicts(sys.argv[2])
regressed = sorted(k for k, v in slowed.items() if v == "REGRESSION")
expected = sorted(k for k in slowed if k.startswith("rms_norm/"))
print("regressed:", regressed)
assert expected, "no rms_norm benchmark in the CI suite"
assert regressed == expected, f"expected exactly {expected}"
improved = sorted(k for k, v in restored.items() if v == "IMPROVED")
print("improved the other way round:", improved)
assert improved == expected, f"expected exactly {expected} to improve"
PYEOF
echo "PASS: the gate fails on the slowed kernel and only on it"
