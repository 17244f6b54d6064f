#!/usr/bin/env bash
# The README's main job: set up, then generate from a prompt on the default model and
# print tokens/s.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/release/draftbench generate --max-new-tokens 96 \
  --prompt "${DRAFTBENCH_PROMPT:-The three most important ideas in computer science are}"
