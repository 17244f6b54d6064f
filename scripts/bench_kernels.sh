#!/usr/bin/env bash
# Kernel benchmarks and the regression gate (kernels/bench/README.md).
#   scripts/bench_kernels.sh [OUT.json]          short pass (--suite=ci), compared with
#                                                kernels/bench/baseline.json; exit 1 on a regression
#   scripts/bench_kernels.sh --update-baseline   short pass written as the new baseline
#   scripts/bench_kernels.sh --full [OUT.json]   every shape (not gated; tens of minutes)
#   scripts/bench_kernels.sh --pass OUT.json     the short pass only
#   scripts/bench_kernels.sh --gate BASE.json OUT.json
#                                                the gate against another baseline
# KERNEL_BENCH names the binary (default: the release build's); BENCH_FILTER, a regex, runs
# only the kernels it matches (a confirmation pass narrows it further).
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${KERNEL_BENCH:-build/release/kernels/bench/kernel_bench}
baseline=kernels/bench/baseline.json
py=.venv/bin/python
need_bench() { [[ -x $bench ]] || { echo "bench_kernels: $bench: not built (run scripts/setup.sh)" >&2; exit 2; }; }

# The short pass: PROCESSES processes (default 3) of four repetitions each, interleaved at
# random across kernels, so that drift in the machine's speed spreads over every kernel and
# per-process effects are sampled too (scripts/bench_merge.py). Baselines take six, so that
# one lucky quiet minute does not become the bar every later pass is held to.
ci_pass() {  # ci_pass OUT.json [extra kernel_bench flags]
  need_bench
  local out=$1 parts=()
  shift
  for i in $(seq "${PROCESSES:-3}"); do
    "$bench" --suite=ci --benchmark_repetitions=4 --benchmark_enable_random_interleaving=true \
      --benchmark_min_time=0.05 --benchmark_out_format=json --benchmark_out="$out.part$i" \
      ${BENCH_FILTER:+"--benchmark_filter=$BENCH_FILTER"} "$@" > /dev/null 2> "$out.log" ||
      { cat "$out.log" >&2; exit 2; }
    parts+=("$out.part$i")
  done
  rm -f "$out.log"
  $py scripts/bench_merge.py "$out" "${parts[@]}"
  rm -f "${parts[@]}"
}
# Thresholds by family, set by how much passes of one binary vary on a 2-core shared VM
# (kernels/bench/README.md, "The regression gate", has the figures):
# - kernels on both cores (real time, /threads:2) share them with whatever else runs, and a
#   burst on the other core doubles their time: gated only on a doubling;
# - the single-thread mat-vecs stream their weights from DRAM, whose share another tenant
#   moves for whole passes: 25%, and so the sampling kernels, which stream a 1 MiB row of
#   logits; tree attention (2 MiB of K/V per head group, shared L3): 20%;
# - kernels of a few microseconds or less on one thread, in L1/L2 (dedup_pack; rms_norm,
#   rope and the gated activations at one token) can run at up to twice their time for a
#   whole process while neither probe moves: gated on a doubling (the injected slowdown of
#   rms_norm is well past that);
# - everything else: GATE_THRESHOLD, default 10%.
# A GATE_THRESHOLD above a family's threshold raises that family's too: a caller that asks for
# a coarse gate (the injected-slowdown test's) gets it on every kernel.
threshold=${GATE_THRESHOLD:-0.10}
at_least_threshold() { awk -v a="$1" -v b="$threshold" 'BEGIN { print (a > b ? a : b) }'; }
gate_flags=(--threshold "$threshold" --threshold-for "/threads:[2-9]|/rows:[0-9]+/real_time=$(at_least_threshold 1.0)"
  --threshold-for "^dot_rows/=$(at_least_threshold 0.25)"
  --threshold-for "^(argmax|softmax_exp|top_k|top_mass|beam_top_k)/=$(at_least_threshold 0.25)"
  --threshold-for "^tree_attention=$(at_least_threshold 0.20)"
  --threshold-for "^dedup_pack/|^(rms_norm|rope_neox|rope_neox_apply|geglu|swiglu)/[^/]+/(rows|tokens):1$=$(at_least_threshold 1.0)")
# GATE_STRICT=1 gates even when the machine balance moved (bench_compare --strict-machine):
# for comparisons that are on one machine by construction, as the injected-slowdown test's.
[[ ${GATE_STRICT:-0} == 1 ]] && gate_flags+=(--strict-machine)
compare() { $py scripts/bench_compare.py "${gate_flags[@]}" "$@"; }

# gate BASE.json OUT.json: the short pass, compared with BASE. On a shared machine another
# tenant's burst of cache, memory or sibling-thread load can slow some kernels by 15-50% for
# tens of seconds, and the calibration kernels do not always feel it. So a flagged kernel
# counts only if it regresses again in each of two fresh passes of just the flagged
# kernels, each after a pause that lets such a burst pass. Verdicts: OUT.json.verdicts.json
# (the pass) and OUT.json.confirm.verdicts.json (the last confirmation, whose exit counts).
gate() {
  local base=$1 out=$2 status=0 verdicts
  rm -f "$out".confirm*
  ci_pass "$out"
  verdicts=$out.verdicts.json
  compare "$base" "$out" --json "$verdicts" || status=$?
  for round in 1 2; do
    [[ $status -eq 1 ]] || return $status
    # Kernel names hold only [a-z0-9_/:.-], so they go into the filter as they are (a '.'
    # matching any character is harmless; Google Benchmark's regex rejects escaped '-').
    local filter
    filter=$($py -c 'import json, sys
v = json.load(open(sys.argv[1]))
print("^(calibration/.*|" + "|".join(v["regressed"] + v["errors"]) + ")$")' "$verdicts")
    echo "bench_kernels: confirmation $round of 2 in a fresh pass: $filter" >&2
    sleep "${BENCH_CONFIRM_PAUSE:-15}"
    ci_pass "$out.confirm.json" --benchmark_filter="$filter"
    verdicts=$out.confirm.verdicts.json
    status=0
    compare "$base" "$out.confirm.json" --json "$verdicts" || status=$?
  done
  return $status
}

case "${1:-}" in
  --update-baseline)
    PROCESSES=6 ci_pass "$baseline"
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
