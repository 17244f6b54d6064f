#!/usr/bin/env bash
# The README's main job: set up, then run experiments/quickstart.yaml on the default model —
# autoregressive decoding and the shipped Medusa, EAGLE and ReDrafter drafters on 16 of our
# MT-Bench-style prompts at temperatures 0 and 1 — and print its Table-1-style table.
# The report (report.json, tables, index.html) lands in reports/quickstart/. An interrupted
# run is resumed; a finished one is kept as reports/quickstart.previous/ and measured again.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
out=reports/quickstart
if [[ -f $out/report.json ]]; then
  rm -rf "$out.previous"
  mv "$out" "$out.previous"
fi
resume=()
[[ -f $out/results.jsonl ]] && resume=(--resume)
build/release/draftbench run experiments/quickstart.yaml --out "$out" "${resume[@]}"
