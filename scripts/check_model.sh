#!/usr/bin/env bash
# draftbench's forward pass on a real GGUF model, checked four ways, each against something
# independent of the engine:
#   1. tokenizer: ids equal llama.cpp's on 2,000 generated strings (check_tokenizer.py);
#   2. llama.cpp: greedy continuations of the first 20 prompts of datasets/prompts/
#      reference_prompts.txt, 32 steps, and the first step's logits (check_llamacpp.py;
#      passes when at least 80% of the prompts agree on every token, or when every
#      divergence is at a near-tie, llama.cpp's own top-2 margin there below 0.25). It also
#      runs llama.cpp against itself with flash attention toggled, a change exact in real
#      arithmetic: the agreement any correct engine can be expected to reach;
#   3. float64: first-step logits against a numpy float64 forward pass of the file's
#      dequantised weights (check_float_reference.py, gemma3 and qwen2);
#   4. exactness: the model tests tagged [tree] and [invariance] (a tree's nodes get their
#      paths' logits bit for bit; logits do not depend on the rest of the batch or the
#      thread count) run on this model.
# Usage: scripts/check_model.sh MODEL.gguf|ALIAS [OUT_DIR]   (ALIAS: qwen2.5-coder-1.5b, gemma3-270m)
# Needs the release build and the reference packages (scripts/setup.sh --tests). Writes
# OUT_DIR/{tokenizer.txt,llamacpp.json,float_reference.json} (default build/check_model/<name>)
# and exits non-zero if any check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { echo "usage: scripts/check_model.sh MODEL.gguf|ALIAS [OUT_DIR]" >&2; exit 2; }
model=$1
case $model in
  qwen2.5-coder-1.5b) model=models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf ;;
  gemma3-270m) model=models/gemma-3-270m-q4_k_m.gguf ;;
esac
[[ -f $model ]] || { echo "check_model: $model not found (scripts/setup.sh --model NAME installs the known ones)" >&2; exit 2; }
bin=${DRAFTBENCH:-build/release/draftbench}
tests=${DRAFTBENCH_MODEL_TESTS:-build/release/tests/model_tests}
for f in "$bin" "$tests"; do
  [[ -x $f ]] || { echo "check_model: $f not found (build with: cmake --build --preset release)" >&2; exit 2; }
done
py=.venv/bin/python
out=${2:-build/check_model/$(basename "$model" .gguf)}
mkdir -p "$out"
prompts=$out/prompts.txt
head -n 20 datasets/prompts/reference_prompts.txt >"$prompts"

failed=()
step() { echo "== check_model: $1"; }
step "tokenizer against llama.cpp (2,000 strings)"
$py scripts/check_tokenizer.py --draftbench "$bin" --model "$model" | tee "$out/tokenizer.txt" || failed+=(tokenizer)
step "greedy decoding against llama.cpp (20 prompts, 32 steps)"
$py scripts/check_llamacpp.py --draftbench "$bin" --model "$model" --prompts "$prompts" --steps 32 --min-share 0.8 \
  --near-tie 0.25 --noise-floor --out "$out/llamacpp.json" || failed+=(llamacpp)
step "first-step logits against a float64 forward pass"
$py scripts/check_float_reference.py --draftbench "$bin" --model "$model" --prompts "$prompts" \
  --out "$out/float_reference.json" || failed+=(float_reference)
step "tree == chains and batch invariance, bit for bit"
DRAFTBENCH_MODEL=$model "$tests" "[tree],[invariance]" || failed+=(exactness)

if ((${#failed[@]})); then
  echo "check_model: $model: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "check_model: $model: every check passed (reports in $out)"
