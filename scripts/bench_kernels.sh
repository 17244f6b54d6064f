#!/usr/bin/env bash
# Kernel benchmarks and the regression gate (kernels/bench/README.md).
#   scripts/bench_kernels.sh [OUT.json]          short pass (--suite=ci), compared with
#                                                kernels/bench/baseline.json; exit 1 on a regression
#   scripts/bench_kernels.sh --update-baseline   short pass written as the new baseline
#   scripts/bench_kernels.sh --full [OUT.json]   every shape (not gated; tens of minutes)
#   scripts/bench_kernels.sh --pass OUT.json     the short pass only
#   scripts/bench_kernels.sh --gate BASE.json OUT.json
#                                                the gate against another baseline
# KERNEL_BENCH names the binary (default: the release build's).
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${KERNEL_BENCH:-build/release/kernels/bench/kernel_bench}
baseline=kernels/bench/baseline.json
py=.venv/bin/python
need_bench() { [[ -x $bench ]] || { echo "bench_kernels: $bench: not built (run scripts/setup.sh)" >&2; exit 2; }; }

# The short pass: three processes of four repetitions each, interleaved at random across
# kernels, so that drift in the machine's speed spreads over every kernel and per-process
# effects are sampled too (scripts/bench_merge.py).
ci_pass() {  # ci_pass OUT.json [extra kernel_bench flags]
  need_bench
  local out=$1 parts=()
  shift
  for i in 1 2 3; do
    "$bench" --suite=ci --benchmark_repetitions=4 --benchmark_enable_random_interleaving=true \
      --benchmark_min_time=0.05 --benchmark_out_format=json --benchmark_out="$out.part$i" "$@" > /dev/null 2> "$out.log" ||
      { cat "$out.log" >&2; exit 2; }
    parts+=("$out.part$i")
  done
  rm -f "$out.log"
  $py scripts/bench_merge.py "$out" "${parts[@]}"
  rm -f "${parts[@]}"
}
# Kernels on both cores (real time, /threads:2) share them with whatever else runs: a burst
# on the other core doubles their time. They are reported, and gated only on a doubling.
gate_flags=(--threshold-for '/threads:[2-9]|/rows:[0-9]+/real_time=1.0')
compare() { $py scripts/bench_compare.py "${gate_flags[@]}" "$@"; }

# gate BASE.json OUT.json: the short pass, compared with BASE. On this shared machine another
# tenant's burst of cache and memory traffic can slow some kernels by 10-20% for a whole pass
# without touching the calibration kernels, so a regression counts only if a fresh pass of
# just the flagged kernels shows it again. Final verdicts: OUT.json.verdicts.json.
gate() {
  local base=$1 out=$2 status=0
  ci_pass "$out"
  compare "$base" "$out" --json "$out.verdicts.json" || status=$?
  [[ $status -eq 1 ]] || return $status
  local filter
  # Kernel names hold only [a-z0-9_/:.-], so they go into the filter as they are (a '.'
  # matching any character is harmless; Google Benchmark's regex rejects escaped '-').
  filter=$($py -c 'import json, sys
v = json.load(open(sys.argv[1]))
print("^(calibration/.*|" + "|".join(v["regressed"] + v["errors"]) + ")$")' "$out.verdicts.json")
  echo "bench_kernels: confirming in a fresh pass: $filter" >&2
  ci_pass "$out.confirm.json" --benchmark_filter="$filter"
  compare "$base" "$out.confirm.json" --json "$out.verdicts.json"
}

case "${1:-}" in
  --update-baseline)
    ci_pass "$baseline"
    echo "bench_kernels: wrote $baseline" >&2 ;;
  --full)
    need_bench
    out=${2:-build/kernel_bench_full.json}
    "$bench" --suite=full --benchmark_repetitions=3 --benchmark_out_format=json --benchmark_out="$out" \
      --benchmark_counters_tabular=true
    echo "bench_kernels: wrote $out" >&2 ;;
  --pass)
    ci_pass "$2" ;;
  --gate)
    gate "$2" "$3" ;;
  *)
    gate "$baseline" "${1:-build/kernel_bench_ci.json}" ;;
esac
