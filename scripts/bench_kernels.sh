#!/usr/bin/env bash
# Kernel benchmarks and the regression gate (kernels/bench/README.md).
#   scripts/bench_kernels.sh [OUT.json]          short pass (--suite=ci), compared with
#                                                kernels/bench/baseline.json; exit 1 on a regression
#   scripts/bench_kernels.sh --update-baseline   short pass written as the new baseline
#   scripts/bench_kernels.sh --full [OUT.json]   every shape (not gated; about 30 minutes)
# KERNEL_BENCH names the binary (default: the release build's).
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${KERNEL_BENCH:-build/release/kernels/bench/kernel_bench}
baseline=kernels/bench/baseline.json
[[ -x $bench ]] || { echo "bench_kernels: $bench: not built (run scripts/setup.sh)" >&2; exit 2; }

# Ten repetitions, interleaved at random across kernels, so that drift in the machine's
# speed spreads over every kernel instead of landing on whichever ran last.
ci_flags=(--suite=ci --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true
  --benchmark_min_time=0.05 --benchmark_out_format=json)

case "${1:-}" in
  --update-baseline)
    "$bench" "${ci_flags[@]}" --benchmark_out="$baseline" > /dev/null
    echo "bench_kernels: wrote $baseline" >&2 ;;
  --full)
    out=${2:-build/kernel_bench_full.json}
    "$bench" --suite=full --benchmark_repetitions=3 --benchmark_out_format=json --benchmark_out="$out" \
      --benchmark_counters_tabular=true
    echo "bench_kernels: wrote $out" >&2 ;;
  *)
    out=${1:-build/kernel_bench_ci.json}
    "$bench" "${ci_flags[@]}" --benchmark_out="$out" > /dev/null
    exec .venv/bin/python scripts/bench_compare.py "$baseline" "$out" ;;
esac
