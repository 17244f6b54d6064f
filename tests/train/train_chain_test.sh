#!/usr/bin/env bash
# The drafter chain (issue 57): a recipe stopped part-way, then resumed on a new machine
# from the committed state alone, ends with the drafters an uninterrupted run makes.
# On make-model's qwen2-tiny through the Qwen recipe (scripts/train_drafters.sh --smoke
# --model qwen2.5-coder-1.5b --sets greedy,code):
#   whole   one run, start to end;
#   chunk1  stops after one shard of its first set (DISTILL_STOP_AFTER_SHARDS=1, as a
#           deadline would stop it) and exits 0;
#   chunk2  a fresh directory holding only chunk1's archives (what a commit keeps) runs
#           to the end: it restores the archived shard, distils the rest and trains.
# Every shipped drafter of chunk2 must equal the whole run's, byte for byte.
# Usage: train_chain_test.sh DRAFTBENCH WORKDIR
set -euo pipefail
cd "$(dirname "$0")/../.."
db=$1 tmp=$2
rm -rf "$tmp" && mkdir -p "$tmp"
"$db" make-model --like qwen2-tiny --out "$tmp/tiny.gguf" >/dev/null
recipe() { DRAFTBENCH=$db MODEL=$tmp/tiny.gguf DATA=$1 scripts/train_drafters.sh --smoke --model qwen2.5-coder-1.5b --sets greedy,code \
  --drafters eagle,medusa,redrafter; }

recipe "$tmp/whole" >"$tmp/whole.log" 2>&1 || { cat "$tmp/whole.log"; echo "FAIL: the uninterrupted run"; exit 1; }
DISTILL_STOP_AFTER_SHARDS=1 recipe "$tmp/chunk1" >"$tmp/chunk1.log" 2>&1 || { cat "$tmp/chunk1.log"; echo "FAIL: chunk 1 exited non-zero"; exit 1; }
grep -q "distill greedy: stopped" "$tmp/chunk1.log" || { cat "$tmp/chunk1.log"; echo "FAIL: chunk 1 did not stop after its first shard"; exit 1; }
[[ ! -d $tmp/chunk1/drafters ]] || { echo "FAIL: chunk 1 trained before its data was complete"; exit 1; }

mkdir -p "$tmp/chunk2" && cp -r "$tmp/chunk1/archives" "$tmp/chunk2/"
recipe "$tmp/chunk2" >"$tmp/chunk2.log" 2>&1 || { cat "$tmp/chunk2.log"; echo "FAIL: chunk 2"; exit 1; }
grep -q -- "--restore $tmp/chunk2/archives/greedy.jsonl" "$tmp/chunk2.log" || { echo "FAIL: chunk 2 did not restore the archived shard"; exit 1; }
for d in eagle medusa redrafter; do
  cmp "$tmp/whole/drafters/$d/model.safetensors" "$tmp/chunk2/drafters/$d/model.safetensors" ||
    { echo "FAIL: $d from the chain differs from the uninterrupted run's"; exit 1; }
done
echo "ok: stopped after one shard, resumed from the archives alone, the same eagle, medusa and redrafter bytes"
