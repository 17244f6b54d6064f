#!/usr/bin/env bash
# The paper reproduced on this machine: every spec of experiments/paper/ run to completion
# into reports/paper-cpu/<spec>/, then the paper's findings decided from all of them into
# reports/paper-cpu/ (FINDINGS.md, findings.json, index.html), and every page checked
# (scripts/check_report_pages.py: local links resolve; in headless Chromium when installed).
#
#   scripts/run_paper_cpu.sh                   all seven specs, then the findings
#   scripts/run_paper_cpu.sh table5 figure7    only these specs, then the findings over what exists
#   DEADLINE=2026-11-27T05:00:00Z scripts/run_paper_cpu.sh   stop (safely) at that time
#
# A spec whose report exists is not run again; one stopped part-way resumes (`run --resume`:
# finished points are kept, the point under way is measured again). The run stops at
# DEADLINE by SIGTERM; rerun the same command to continue. Each spec's estimate:
# `build/release/draftbench run experiments/paper/SPEC.yaml --dry-run`.
set -euo pipefail
cd "$(dirname "$0")/.."
DRAFTBENCH=${DRAFTBENCH:-build/release/draftbench}
OUT=${OUT:-reports/paper-cpu}
all=(table1 table4_cpu table5 table6 figure5 figure6 figure7)
specs=("$@")
((${#specs[@]})) || specs=("${all[@]}")
[[ -x $DRAFTBENCH ]] || { echo "run_paper_cpu: $DRAFTBENCH not built (run scripts/setup.sh)" >&2; exit 1; }

seconds_left() {  # until DEADLINE, or a day when none is set
  [[ -n ${DEADLINE:-} ]] || { echo 86400; return; }
  echo $(($(date -d "$DEADLINE" +%s) - $(date +%s)))
}

for name in "${specs[@]}"; do
  spec=experiments/paper/$name.yaml
  [[ -f $spec ]] || { echo "run_paper_cpu: no spec $spec (expected one of: ${all[*]})" >&2; exit 2; }
  dir=$OUT/$name
  if [[ -f $dir/report.json ]]; then
    echo "run_paper_cpu: $name: done ($dir/report.json)" >&2
    continue
  fi
  resume=()
  [[ -f $dir/results.jsonl ]] && resume=(--resume)
  left=$(seconds_left)
  ((left > 60)) || { echo "run_paper_cpu: DEADLINE reached before $name; rerun to continue" >&2; exit 0; }
  echo "run_paper_cpu: $name -> $dir (${resume[*]:-fresh}; ${left}s left)" >&2
  status=0
  timeout --signal=TERM "$left" "$DRAFTBENCH" run "$spec" --out "$dir" "${resume[@]}" || status=$?
  if ((status == 124)); then
    echo "run_paper_cpu: $name stopped at DEADLINE; rerun to continue" >&2
    exit 0
  fi
  ((status == 0)) || exit "$status"
done

reports=()
for name in "${all[@]}"; do [[ -f $OUT/$name/report.json ]] && reports+=("$OUT/$name/report.json"); done
((${#reports[@]})) || { echo "run_paper_cpu: no finished report under $OUT" >&2; exit 1; }
"$DRAFTBENCH" report --findings "${reports[@]}" --out "$OUT" > /dev/null
python3 scripts/check_report_pages.py "$OUT/index.html"
echo "run_paper_cpu: ${#reports[@]} of ${#all[@]} reports; findings in $OUT/FINDINGS.md, pages from $OUT/index.html" >&2
