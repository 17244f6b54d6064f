#!/usr/bin/env bash
# The README's main job: set up, then answer a prompt on the default model with the shipped
# ReDrafter (models/drafters/redrafter) and print tokens/s, after the autoregressive
# baseline on the same prompt for comparison (same tokens at temperature 0, by design).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
prompt=${DRAFTBENCH_PROMPT:-Give me three tips for a rainy weekend.}
generate=(build/release/draftbench generate --chat --max-new-tokens 96 --prompt "$prompt")
"${generate[@]}" --drafter autoregressive >/dev/null
"${generate[@]}" --drafter redrafter  # the shipped weights are the default; beam width 8, length 5
