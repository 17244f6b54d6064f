#!/usr/bin/env bash
# The default drafters for the default model, end to end, by our own commands (issue 4):
#   1. draftbench distill, the target's own replies to the 8,273 training prompts of
#      datasets/corpus/prompts.jsonl and prompts_extra.jsonl, with hidden states, in five
#      directories under data/distill/: greedy and greedy-extra (greedy replies), sampled
#      and sampled-extra (one sampled reply per prompt at T 1.0 and 0.7, labelled by its own
#      tokens), second (the greedy reply to datasets/corpus/followups.jsonl's follow-up after
#      the target's own first reply, for prompts.jsonl's 3,136)
#      Each directory's replies are archived in datasets/distill/<alias>/ (tokens only,
#      engine/train/distill_archive.h); a later run restores from them instead of
#      generating again, which is most of distillation's time.
#   2. draftbench train: ReDrafter, Medusa and EAGLE on all five together (distilled
#      labels), one epoch
#   3. the ground-truth ReDrafter for Table 6: distill the human-written
#      datasets/corpus/ground_truth.jsonl (hidden states only) and train on its own tokens
#   4. install each into models/drafters/<name>/ (fp16 safetensors + drafter.json) with
#      provenance.json: commands, corpus and data checksums, seed, epochs, losses,
#      accuracies, training time
# Every stage resumes: distill continues after its last shard, a drafter whose
# train_result.json exists is not retrained, and one stopped part-way (its checkpoint.bin)
# continues where it stopped. DEADLINE=2026-11-26T18:00:00Z (or 2.5h) stops training safely
# before it. Work files go to $DATA (default data/).
#
# Another target (--model qwen2.5-coder-1.5b, an alias of draftbench's model table) has its
# own corpus and sizes (below) and ships into models/drafters/<alias>/.
#
#   scripts/train_drafters.sh            the shipped drafters (hours on 2 cores)
#   scripts/train_drafters.sh --smoke    the whole pipeline on a tiny slice (< 2 minutes),
#                                        into $DATA (default data/smoke), then checks that the engine loads
#                                        each drafter and decodes losslessly with it
#   scripts/train_drafters.sh --model qwen2.5-coder-1.5b [--smoke]
#   scripts/train_drafters.sh --drafters eagle,medusa
#                                        only these of the recipe's drafters (default: all of
#                                        redrafter, medusa, eagle, redrafter-ground-truth that
#                                        the recipe makes); distillation runs either way
#   scripts/train_drafters.sh --sets greedy,code
#                                        distil and train on only these of the recipe's sets
#                                        (a chunk of the chain whose hidden states and training
#                                        fit one session; provenance lists the sets used)
#
# Chunks (issue 57): a long recipe runs as a chain of chunks of at most about 100 minutes,
# each ending with a commit of datasets/distill/<alias>/ (the replies) and the shipped
# drafters. DEADLINE stops distillation between shards and training between steps; a new
# machine resumes from the committed state alone. Hidden states are never committed (about
# 3 KB a token for a 1.5B target): they are restored from the archives in the chunk that
# trains. DISTILL_STOP_AFTER_SHARDS=N stops each distillation after N new shards, as a
# deadline would (tests/train/train_chain_test.sh). At start the script prints the chunks
# left and their estimated minutes
# (scripts/train_plan.py); a drafter shipped for exactly these sets' finished archives is
# not trained again.
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=0 model_name=gemma3-270m only="" only_sets=""
all_drafters=(redrafter medusa eagle redrafter-ground-truth)
while (($#)); do
  case $1 in
    --smoke) smoke=1 ;;
    --model) model_name=${2:?--model takes an alias}; shift ;;
    --drafters) only=${2:?--drafters takes a comma-separated list}; shift ;;
    --sets) only_sets=${2:?--sets takes a comma-separated list}; shift ;;
    *) echo "train_drafters: unknown argument '$1' (expected --smoke, --model ALIAS, --drafters LIST, --sets LIST)" >&2; exit 2 ;;
  esac
  shift
done
declare -A wanted=()
if [[ -n $only ]]; then
  IFS=, read -ra names <<<"$only"
  for n in "${names[@]}"; do
    [[ " ${all_drafters[*]} " == *" $n "* ]] ||
      { echo "train_drafters: --drafters: '$n' is not a drafter of this script (expected some of: $(IFS=,; echo "${all_drafters[*]}"))" >&2; exit 2; }
    wanted[$n]=1
  done
else
  for n in "${all_drafters[@]}"; do wanted[$n]=1; done
fi
# The smoke run's resume and SIGTERM checks train ReDrafter, and its last check copies Medusa.
if ((smoke)) && [[ -z ${wanted[redrafter]:-} || -z ${wanted[medusa]:-} ]]; then
  echo "train_drafters: --smoke trains redrafter and medusa (its checks use both)" >&2; exit 2
fi
# Per target: its file, where its drafters ship, its corpus (distill_corpus, run below,
# fills `sets` with the directories trained on), the EAGLE layer's options, and whether the
# ground-truth ReDrafter of Table 6 is made.
sampled=(--sampled-every 1 --no-greedy --no-sampled-continuations)
followups=(--followups datasets/corpus/followups.jsonl)
case $model_name in
  gemma3-270m)
    # EAGLE with the copy input (engine/drafters/eagle/eagle.h): +15% tokens/step on the
    # held-out slice, +5% on mt_bench_style in the one-epoch probe (docs/usage.md, "Recipes tried").
    MODEL=${MODEL:-models/gemma-3-270m-q4_k_m.gguf} ship_root=models/drafters archive_root=datasets/distill/gemma3-270m data_default=data eagle_args=(--previous-token) ground_truth=1
    plan_rates=(--rates-measured-on "an unrecorded CPU") epochs=1
    distill_corpus() {
      distill greedy prompts.jsonl --sampled-every 0
      distill greedy-extra prompts_extra.jsonl --sampled-every 0
      distill sampled prompts.jsonl "${sampled[@]}" --temperature 1.0
      distill sampled-extra prompts_extra.jsonl "${sampled[@]}" --temperature 0.7
      distill second prompts.jsonl "${followups[@]}" --first-turns "$work/distill/greedy"
      # Second turns for prompts_extra.jsonl too would add 5,137 replies: about an hour of
      # distillation and a quarter more training time on 2 cores, left out for that reason.
    } ;;
  qwen2.5-coder-1.5b)
    # The target's n_ff (8960) would make an f16 EAGLE of about 100 MB; 2048 keeps it near 40.
    MODEL=${MODEL:-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf} ship_root=models/drafters/qwen2.5-coder-1.5b
    archive_root=datasets/distill/qwen2.5-coder-1.5b
    data_default=data/qwen2.5-coder-1.5b eagle_args=(--ffn-size 2048 --previous-token) ground_truth=0
    # A 1.5B target runs ~6x slower a token here: its own code prompts, greedy and sampled,
    # the main prompts and their second turns, and sampled replies at T 1 (the temperature
    # it is measured at besides T 0).
    # Rates for the plan, measured on an AMD EPYC Zen 5 (2 cores): hidden states restored
    # at about 265 tokens/s.
    # EAGLE (--ffn-size 2048) trains at about 700 positions/s there.
    plan_rates=(--restore-tokens-per-s 265 --train-rate eagle=700 --rates-measured-on "AMD EPYC Zen 5, 2 cores")
    # Its corpus is a seventh of Gemma's (330,000 trained positions in greedy and code): two
    # passes over it.
    epochs=2
    distill_corpus() {
      distill greedy prompts.jsonl --sampled-every 0
      distill code code_completions.jsonl --sampled-every 0
      distill code-sampled code_completions.jsonl "${sampled[@]}" --temperature 0.7
      distill second prompts.jsonl "${followups[@]}" --first-turns "$work/distill/greedy"
      distill sampled prompts.jsonl "${sampled[@]}" --temperature 1.0
    } ;;
  *) echo "train_drafters: no recipe for the model '$model_name' (expected gemma3-270m or qwen2.5-coder-1.5b)" >&2; exit 2 ;;
esac
[[ -f $MODEL ]] || { echo "train_drafters: $MODEL is not there (scripts/setup.sh --model $model_name installs it)" >&2; exit 1; }
DRAFTBENCH=${DRAFTBENCH:-build/release/draftbench}
if ((smoke)); then DATA=${DATA:-$data_default/smoke}; else DATA=${DATA:-$data_default}; fi
SEED=${SEED:-0}
PYTHON=${PYTHON:-.venv/bin/python}  # the project venv has matplotlib (scripts/setup.sh)
[[ -x $DRAFTBENCH ]] || { echo "train_drafters: $DRAFTBENCH not built (run scripts/setup.sh)" >&2; exit 1; }

if ((smoke)); then
  work=$DATA
  install_root=$work/drafters
  archives=$work/archives
  distill_args=(--max-new-tokens 24 --batch-size 3 --shard-items 4)
  prompt_limit=(--max-prompts 6)
  text_args=(--max-texts 3 --max-text-tokens 96)
  train_args=(--epochs 1 --max-steps 4 --batch-size 64 --draft-vocab 2048 --log-every 1)
  record_prompts=1
else
  work=$DATA
  install_root=$ship_root
  archives=$archive_root
  # Gemma: 19,682 replies; about 380 trained positions a second on 2 cores (greedy; sampled
  # replies about 250), some 2 hours in all. One epoch over some 2.4 million positions:
  # about 27 minutes for EAGLE at 1,530 positions a second on 2 otherwise idle cores.
  distill_args=(--max-new-tokens 128 --batch-size 32 --shard-items 128)
  prompt_limit=()
  text_args=(--max-text-tokens 512)
  train_args=(--epochs "$epochs")
  record_prompts=8
fi
# The LM-head products in bf16 where the CPU multiplies bf16 natively (AMX or AVX-512 BF16,
# through oneDNN), f32 elsewhere: 1.4-1.6x the positions a second on the AMX Xeon at the
# same validation loss (`draftbench train --head-precision`, docs/usage.md, "Recipes tried").
train_args+=(--head-precision auto)
mkdir -p "$work" "$archives"
log() { echo "train_drafters: $*" >&2; }
run() { log "$*"; "$@"; }

# 1. Replies to the training prompts (held-out prompts are never distilled). A directory
# not yet begun starts from its archive in $archives when there is one (the replies of an
# earlier run, committed: restoring skips generating them), and every directory's archive
# is written back there, so that committing it keeps this run's replies.
#
# distill_corpus runs twice: first only to list the recipe's sets (for --sets and the plan),
# then to distil them.
planning=1 recipe_sets=() plan_sets=() sets=()
distill() {
  local out=$1 prompts=$2; shift 2
  if ((planning)); then
    recipe_sets+=("$out")
    [[ -z $only_sets || ,$only_sets, == *,$out,* ]] || return 0
    local followups_file=""
    [[ " $* " == *" --followups "* ]] && followups_file=:datasets/corpus/followups.jsonl
    plan_sets+=(--set "$out:datasets/corpus/$prompts$followups_file")
    return 0
  fi
  [[ -z $only_sets || ,$only_sets, == *,$out,* ]] || { log "distill $out: not asked for (--sets)"; return 0; }
  local restore=()
  [[ -f $archives/$out.jsonl && ! -f $work/distill/$out/manifest.json ]] && restore=(--restore "$archives/$out.jsonl")
  run "$DRAFTBENCH" distill --model "$MODEL" --prompts "datasets/corpus/$prompts" --split train "${prompt_limit[@]}" \
    "${distill_args[@]}" --seed "$SEED" "$@" "${restore[@]}" ${DEADLINE:+--deadline "$DEADLINE"} \
    ${DISTILL_STOP_AFTER_SHARDS:+--stop-after-shards "$DISTILL_STOP_AFTER_SHARDS"} --archive "$archives/$out.jsonl" \
    --out "$work/distill/$out"
  if ! python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1])).get("complete") else 1)' \
    "$work/distill/$out/manifest.json" 2>/dev/null; then
    log "distill $out: stopped for DEADLINE (or DISTILL_STOP_AFTER_SHARDS); commit $archives/$out.jsonl, then rerun this script (with a new DEADLINE) to continue"
    exit 0
  fi
  sets+=("$out")
}
distill_corpus
planning=0
if [[ -n $only_sets ]]; then
  IFS=, read -ra names <<<"$only_sets"
  for n in "${names[@]}"; do
    [[ " ${recipe_sets[*]} " == *" $n "* ]] ||
      { echo "train_drafters: --sets: '$n' is not a set of the $model_name recipe (expected some of: $(IFS=,; echo "${recipe_sets[*]}"))" >&2; exit 2; }
  done
fi
# A duration is counted once, from now: every command of the chunk stops before the same time.
if [[ -n ${DEADLINE:-} && $DEADLINE =~ ^[0-9.]+[smh]?$ ]]; then
  DEADLINE=$(python3 -c 'import datetime, sys
t = sys.argv[1]; unit = {"s": 1, "m": 60, "h": 3600}.get(t[-1], 1); t = t.rstrip("smh")
print((datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=float(t) * unit)).strftime("%Y-%m-%dT%H:%M:%SZ"))' "$DEADLINE")
  log "DEADLINE: $DEADLINE"
fi
plan_drafters=$(for n in eagle medusa redrafter; do [[ -n ${wanted[$n]:-} ]] && printf '%s,' "$n"; done)
plan() { python3 scripts/train_plan.py "$@" --archives "$archives" --work "$work" --ship "$install_root" "${plan_sets[@]}"; }
((smoke)) || plan plan --drafters "$plan_drafters" --epochs "$epochs" "${plan_rates[@]}" >&2
distill_corpus
if ((smoke)); then
  restored=$work/restored-greedy
  rm -rf "$restored"
  run "$DRAFTBENCH" distill --model "$MODEL" --restore "$archives/greedy.jsonl" --out "$restored"
  diff -r "$work/distill/greedy" "$restored" >&2 || { log "the greedy directory restored from its archive differs"; exit 1; }
  log "greedy restored from its archive: byte-identical"
  # A rerun with nothing left to distil leaves the archive alone (the file is not replaced).
  inode=$(stat -c %i "$archives/greedy.jsonl")
  distill greedy prompts.jsonl --sampled-every 0
  [[ $(stat -c %i "$archives/greedy.jsonl") == "$inode" ]] || { log "a run with nothing to distil rewrote the greedy archive"; exit 1; }
fi
response_dirs=("${sets[@]/#/$work/distill/}")
responses=$(IFS=,; echo "${response_dirs[*]}")

# 2-3. Drafters; name, data directories (comma-separated), labels, extra options.
# An unfinished run (its checkpoint.bin) is resumed, bit for bit; with DEADLINE set (an ISO
# time or a duration, `draftbench train --deadline`), training stops itself before it and
# this script exits 0 with the line to rerun.
train() {
  local name=$1 drafter=$2 data=$3 labels=$4; shift 4
  local out=$work/train/$name resume=() dirs
  [[ -n ${wanted[$name]:-} ]] || { log "$name: not asked for (--drafters)"; return 0; }
  if ((!smoke)) && [[ ! -f $out/checkpoint.bin ]] && plan shipped --drafter "$name"; then
    log "$name: already shipped in $install_root/$name for these sets' archives"
    return 0
  fi
  IFS=, read -ra dirs <<<"$data"
  # A finished run in $out trained on other sets (an earlier --sets) is not this one: shipping
  # it would give its weights this run's provenance. Train again.
  if [[ -f $out/train_result.json ]] && ! plan trained-on --run "$out" --data "${dirs[@]}"; then
    log "$name: $out was trained on other sets; training again on ${dirs[*]}"
    rm -rf "$out"
  fi
  if [[ -f $out/train_result.json ]]; then
    log "$name: already trained ($out)"
  else
    if [[ -f $out/checkpoint.bin ]]; then resume=(--resume); else rm -rf "$out"; fi
    run "$DRAFTBENCH" train --drafter "$drafter" --model "$MODEL" --data "${dirs[@]}" --labels "$labels" \
      --seed "$SEED" "${train_args[@]}" "$@" ${DEADLINE:+--deadline "$DEADLINE"} "${resume[@]}" --out "$out"
    if [[ ! -f $out/train_result.json ]]; then
      log "$name: stopped before the deadline; rerun this script (with a new DEADLINE) to continue"
      exit 0
    fi
  fi
  ship "$name" "$out" "$data"
}

# The exported drafter, its per-epoch log and curves, and its provenance, without the
# per-epoch checkpoints.
ship() {
  local name=$1 out=$2 data=$3 dest=$install_root/$1
  mkdir -p "$dest"
  cp "$out/drafter.json" "$out/model.safetensors" "$out/train_epochs.jsonl" "$dest/"
  run "$PYTHON" scripts/plot_training.py "$out" --out "$dest/curves"
  python3 - "$out" "$data" "$dest" "$name" <<'PYEOF'
import hashlib, json, os, sys
out, data, dest, name = sys.argv[1:]
result = json.load(open(os.path.join(out, "train_result.json")))
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()


def distilled(directory):
    manifest = json.load(open(os.path.join(directory, "manifest.json")))
    return {
        "dir": directory,
        "command": manifest.get("command"),
        "settings": manifest["settings"],
        "target": manifest["target"],
        "inputs": manifest["inputs"],
        "totals": manifest.get("totals"),
        "seconds": sum(s.get("seconds", 0) for s in manifest["shards"]),
        "manifest_sha256": sha(os.path.join(directory, "manifest.json")),
    }


curves = sorted(os.path.join("curves", f) for f in os.listdir(os.path.join(dest, "curves")))
provenance = {
    "drafter": name,
    "train": result,
    "distill": [distilled(d) for d in data.split(",")],
    # Validation loss and top-1/top-3 per epoch, and scripts/plot_training.py's drawings of them.
    "curves": {"epochs": "train_epochs.jsonl", "plots": curves},
    "files": {f: sha(os.path.join(dest, f)) for f in ("drafter.json", "model.safetensors", "train_epochs.jsonl")},
}
json.dump(provenance, open(os.path.join(dest, "provenance.json"), "w"), indent=2)
open(os.path.join(dest, "provenance.json"), "a").write("\n")
PYEOF
  # The regression slice the suite holds it to (scripts/check_shipped_drafters.py).
  run python3 scripts/check_shipped_drafters.py --draftbench "$DRAFTBENCH" --model "$MODEL" --root "$install_root" \
    --only "$name" --record --record-prompts "$record_prompts" --min-tokens-per-step 0
  log "$name -> $dest ($(du -h "$dest/model.safetensors" | cut -f1))"
}

# EAGLE first: a chunk cut short by DEADLINE ships the strongest drafter.
train eagle eagle "$responses" distilled "${eagle_args[@]}"
train medusa medusa "$responses" distilled
train redrafter redrafter "$responses" distilled
if ((smoke)); then
  # Resume equivalence (issue 31): the same run stopped after 2 steps and resumed exports
  # the same bytes as the unbroken one.
  pieces=$work/train/redrafter-pieces
  rm -rf "$pieces"
  piece() { run "$DRAFTBENCH" train --drafter redrafter --model "$MODEL" --data "${response_dirs[@]}" --labels distilled \
    --seed "$SEED" "${train_args[@]}" --checkpoint-every 0 --out "$pieces" "$@"; }
  piece --stop-after-steps 2
  piece --resume
  cmp "$work/train/redrafter/model.safetensors" "$pieces/model.safetensors" ||
    { log "resumed redrafter differs from the unbroken one"; exit 1; }
  log "redrafter stopped after 2 steps and resumed: byte-identical to the unbroken run"
  # SIGTERM (a scheduler, `timeout`) stops safely too: the step under way, a checkpoint, exit
  # 0 with the line to resume by; the resumed run then finishes.
  signalled=$work/train/redrafter-signalled
  rm -rf "$signalled"
  sig_args=(train --drafter redrafter --model "$MODEL" --data "${response_dirs[@]}" --labels distilled --seed "$SEED"
    --epochs 400 --max-steps 60 --batch-size 64 --draft-vocab 2048 --log-every 1 --checkpoint-every 0 --out "$signalled")
  "$DRAFTBENCH" "${sig_args[@]}" 2>"$signalled.log" &
  pid=$!
  until grep -q "^train: step 2/" "$signalled.log" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { log "the SIGTERM run ended before its second step"; cat "$signalled.log" >&2; exit 1; }
    sleep 0.2
  done
  kill -TERM "$pid"
  wait "$pid" || { log "train exited $? on SIGTERM (expected 0)"; exit 1; }
  grep -q "stopped on SIGTERM" "$signalled.log" && [[ -f $signalled/checkpoint.bin ]] ||
    { log "SIGTERM did not stop training with a checkpoint"; cat "$signalled.log" >&2; exit 1; }
  run "$DRAFTBENCH" "${sig_args[@]}" --resume
  log "redrafter stopped by SIGTERM: checkpoint written, exit 0, resumed"
fi

if ((ground_truth)) && [[ -n ${wanted[redrafter-ground-truth]:-} ]]; then
  run "$DRAFTBENCH" distill --model "$MODEL" --texts datasets/corpus/ground_truth.jsonl --no-text-continuations \
    "${text_args[@]}" --seed "$SEED" --out "$work/distill/ground_truth"
  train redrafter-ground-truth redrafter "$work/distill/ground_truth" ground_truth
fi

if ((smoke)); then
  # The engine loads every drafter, and decoding with it is lossless (a few training steps
  # do not make a drafter that must beat chance).
  run python3 scripts/check_shipped_drafters.py --draftbench "$DRAFTBENCH" --model "$MODEL" \
    --root "$install_root" --n-prompts 1 --min-tokens-per-step 0
  # The regression check can fail: a drafter recorded at more tokens per step than it drafts.
  regressed=$work/regressed
  rm -rf "$regressed" && mkdir -p "$regressed" && cp -r "$install_root/medusa" "$regressed/"
  python3 -c 'import json, sys; p = sys.argv[1]; j = json.load(open(p)); j["heldout_check"]["mean"] = 99.0; json.dump(j, open(p, "w"))' \
    "$regressed/medusa/provenance.json"
  if python3 scripts/check_shipped_drafters.py --draftbench "$DRAFTBENCH" --model "$MODEL" --root "$regressed" --only medusa \
    --min-tokens-per-step 0 2>"$regressed/check.log"; then
    log "the regression check passed a drafter recorded at 99 tokens/step"; exit 1
  fi
  grep -q "below" "$regressed/check.log" || { log "the regression check failed for another reason:"; cat "$regressed/check.log" >&2; exit 1; }
  log "regression check: a drafter below its recorded tokens per step fails"
fi
log "done"
