#!/usr/bin/env bash
# draftbench's token ids against llama.cpp's (llama-cpp-python, vocabulary only) on 2,000
# generated strings, for a real GGUF file:
#   scripts/check_tokenizer.sh models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf [--count N]
# Needs the release build (`draftbench`) and the reference packages (scripts/setup.sh --tests).
# Exits non-zero unless every string gives equal ids and decodes back to its text.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { echo "usage: scripts/check_tokenizer.sh MODEL.gguf [--count N] [--seed S]" >&2; exit 2; }
model=$1; shift
bin=${DRAFTBENCH:-build/release/draftbench}
[[ -x $bin ]] || { echo "check_tokenizer: $bin not found (build with: cmake --build --preset release)" >&2; exit 2; }
exec .venv/bin/python scripts/check_tokenizer.py --draftbench "$bin" --model "$model" "$@"
