#!/usr/bin/env python3
"""Side-by-side measurements of every drafter against the autoregressive baseline, in one run.

For each (drafter, temperature) it runs `draftbench generate --json` over the same prompts
at batch 1, interleaving the configurations round by round so machine drift hits all of
them alike, and prints a Markdown table of tokens/step, TPS (median over prompts of the
per-request figure), speedup vs the baseline's TPS, and the step-time split. With
--beam-sweep it also reports ReDrafter's compression ratio and step time per beam width.

  scripts/measure_speculative.py --draftbench build/release/draftbench \
      --model models/gemma-3-270m-q4_k_m.gguf --weights-root models/drafters \
      --prompts datasets/prompts/reference_prompts.txt --n-prompts 8 --max-new-tokens 64

Drafter weights are read from WEIGHTS_ROOT/{redrafter,medusa,eagle} (and
redrafter-ground-truth for --table6); the shipped ones are in models/drafters.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from loop_share import repeated_windows


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:3])} ...: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--draftbench", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--weights-root", required=True)
    ap.add_argument("--prompts", required=True)
    ap.add_argument("--n-prompts", type=int, default=8)
    ap.add_argument("--split", default="heldout", help="corpus JSONL prompts: use only this split (trained drafters: never 'train')")
    ap.add_argument("--chat", action="store_true", help="wrap prompts in the chat template (as the drafters were trained)")
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--temperatures", default="0,1")
    ap.add_argument("--beam-sweep", default="", help="comma-separated beam widths for the ReDrafter BL 5 sweep")
    ap.add_argument("--sweep-prompts", type=int, default=2, help="prompts for the beam sweep (large beams are slow to verify on a CPU)")
    ap.add_argument("--sweep-tokens", type=int, default=16)
    ap.add_argument("--table6", default="", help="comma-separated beam widths: distilled vs ground-truth ReDrafter (BL 5, "
                    "WEIGHTS_ROOT/redrafter and WEIGHTS_ROOT/redrafter-ground-truth) against the baseline, temperature 0")
    ap.add_argument("--skip-table", action="store_true", help="only the beam sweep and/or Table 6")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--variant", action="append", default=[], help="an extra configuration: a drafter kind and its generate options")
    ap.add_argument("--fixed", action="store_true", help="also the fixed paper sizes (--sizing fixed) and an 8-token n-gram")
    ap.add_argument("--drafters", default="", help="comma-separated kinds to measure (default: all; autoregressive always)")
    a = ap.parse_args()

    # Untrained stand-ins would give figures that look real: a missing drafter is an error.
    needed = [] if a.skip_table else [k for k in ("redrafter", "medusa", "eagle")
                                  if not a.drafters or any(d.split("+")[0] == k for d in a.drafters.split(","))]
    needed += ["redrafter-ground-truth"] if a.table6 else []
    for name in needed:
        if not os.path.exists(os.path.join(a.weights_root, name, "drafter.json")) and not os.path.exists(os.path.join(a.weights_root, name, "config.json")):
            sys.exit(f"{os.path.join(a.weights_root, name)}: no drafter.json or config.json (expected trained weights, e.g. models/drafters)")
    prompts = read_prompts(a.prompts, a.split)[: a.n_prompts]
    tmp = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
    for i, p in enumerate(prompts):
        tmp.write(json.dumps({"id": str(i + 1), "prompt": p}) + "\n")
    tmp.close()

    base = [a.draftbench, "generate", "--model", a.model, "--prompts-file", tmp.name, "--json",
            "--max-new-tokens", str(a.max_new_tokens), "--seed", "1"]
    # Chat replies end at the end of the turn, as they were trained; raw prompts run to the length limit.
    base += ["--chat"] if a.chat else ["--ignore-eos"]
    if a.threads:
        base += ["--threads", str(a.threads)]
    w = lambda kind: ["--drafter-weights", os.path.join(a.weights_root, kind)]
    drafters = {
        "autoregressive": ["--drafter", "autoregressive"],
        "medusa (auto)": ["--drafter", "medusa", *w("medusa")],
        "eagle (auto)": ["--drafter", "eagle", *w("eagle")],
        "redrafter (auto)": ["--drafter", "redrafter", *w("redrafter")],
        "ngram (auto)": ["--drafter", "ngram"],
        "medusa+ngram (auto)": ["--drafter", "medusa+ngram", *w("medusa")],
        "eagle+ngram (auto)": ["--drafter", "eagle+ngram", *w("eagle")],
        "redrafter+ngram (auto)": ["--drafter", "redrafter+ngram", *w("redrafter")],
    }
    if a.fixed:  # the paper's sizes, verified whole
        drafters.update({
            "redrafter BW8 BL5 (fixed)": ["--drafter", "redrafter", *w("redrafter"), "--sizing", "fixed", "--beam-width", "8", "--beam-length", "5"],
            "medusa shipped tree (fixed)": ["--drafter", "medusa", *w("medusa"), "--sizing", "fixed"],
            "eagle 60, 5, 10 (fixed)": ["--drafter", "eagle", *w("eagle"), "--sizing", "fixed"],
            "ngram (8 tokens)": ["--drafter", "ngram", "--draft-tokens", "8"],
        })
    for extra in a.variant:  # e.g. "ngram --ngram-branches 2": a labelled extra configuration
        words = extra.split()
        drafters[f"{words[0]} [{' '.join(words[1:])}]"] = ["--drafter", *words]
    if a.drafters:
        drafters = {k: v for k, v in drafters.items() if k == "autoregressive" or k.split()[0] in a.drafters.split(",")}
    temps = [float(t) for t in a.temperatures.split(",")]
    if not a.skip_table:
        results = interleaved(base, tmp.name, prompts, {(name, t): drafters[name] + ["--temperature", str(t)]
                                                       for t in temps for name in drafters})
        print_table(drafters, temps, results)
        if not runs_match_baseline(drafters, temps, results):
            sys.exit("measure_speculative: a run's tokens differ from autoregressive decoding's (above)")
    if a.table6:
        table6(base, tmp.name, prompts, a)
    if a.beam_sweep:
        sweep = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
        sweep.write("\n".join(prompts[: a.sweep_prompts]) + "\n")
        sweep.close()
        cmd = [x if x != tmp.name else sweep.name for x in base]
        cmd[cmd.index("--max-new-tokens") + 1] = str(a.sweep_tokens)
        beam_sweep(cmd, a)
        os.unlink(sweep.name)
    os.unlink(tmp.name)


# First turns of a prompt set: corpus JSONL ("prompt", one split), MT-Bench JSONL ("turns"),
# AlpacaEval JSON (a list of "instruction"), or plain text (a prompt per line).
def read_prompts(path, split):
    with open(path) as f:
        text = f.read()
    if text.lstrip().startswith("["):
        return [r["instruction"] for r in json.loads(text)]
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and lines[0].lstrip().startswith("{"):
        records = [json.loads(line) for line in lines]
        return [r["turns"][0] if "turns" in r else r["prompt"] for r in records
                if "turns" in r or not split or r.get("split", split) == split]
    return lines


# Every configuration's runs, interleaved one prompt of each per round, so that machine
# drift hits all of them alike.
def interleaved(base, prompts_file, prompts, configs):
    results = {c: [] for c in configs}
    for prompt in prompts:
        one = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
        one.write(json.dumps({"id": "1", "prompt": prompt}) + "\n")  # JSON: a prompt may hold newlines
        one.close()
        for c, args in configs.items():
            results[c] += run([x if x != prompts_file else one.name for x in base] + args)
        os.unlink(one.name)
    return results


# Tokens committed per target call, the prefill included (as RequestMetrics::tokens_per_step),
# and the median over prompts of tokens/s per request.
def tokens_per_step(rs):
    return sum(r["metrics"]["generated_tokens"] for r in rs) / sum(r["metrics"]["steps"] + 1 for r in rs)


def median_tps(rs):
    return statistics.median(r["metrics"]["tps"] for r in rs)


# At every temperature each exact configuration must commit exactly the autoregressive
# baseline's tokens, prompt by prompt: at T 0 greedy verification, above it coupled
# verification (engine/DESIGN.md §5.4), makes them the baseline's with the same seed. Prints
# which prompts of which configuration do not, and returns whether all matched. Variants
# with a lossy verification rule are left out.
def runs_match_baseline(drafters, temps, results):
    all_match = True
    for t in temps:
        want = [r["tokens"] for r in results[("autoregressive", t)]]
        exact = [name for name, args in drafters.items() if not any("lossy" in x for x in args)]
        bad = {name: [i for i, (r, w) in enumerate(zip(results[(name, t)], want)) if r["tokens"] != w] for name in exact}
        bad = {name: prompts for name, prompts in bad.items() if prompts}
        for name, prompts in bad.items():
            print(f"T {t:g}: {name} differs from autoregressive decoding on prompts {prompts}")
        if not bad:
            print(f"\nT {t:g}: every exact configuration's tokens equal autoregressive decoding's on all {len(want)} prompts")
        all_match = all_match and not bad
    return all_match


# The share of the replies' 8-token windows that repeat an earlier one (loop_share.py).
def repeated_ngram_share(rs):
    counts = [repeated_windows(r["tokens"]) for r in rs]
    return sum(c[0] for c in counts) / max(sum(c[1] for c in counts), 1)


def table6(base, prompts_file, prompts, a):
    widths = [int(x) for x in a.table6.split(",")]
    variants = {"distilled": "redrafter", "ground truth": "redrafter-ground-truth"}
    configs = {"autoregressive": ["--drafter", "autoregressive", "--temperature", "0"]}
    for bw in widths:
        for label, folder in variants.items():
            configs[(label, bw)] = ["--drafter", "redrafter", "--drafter-weights", os.path.join(a.weights_root, folder), "--sizing", "fixed",
                                    "--beam-width", str(bw), "--beam-length", "5", "--temperature", "0"]
    results = interleaved(base, prompts_file, prompts, configs)
    base_tps = median_tps(results["autoregressive"])
    print(f"\nTable 6 shape: ReDrafter BL 5, T 0, {len(prompts)} prompts; baseline {base_tps:.1f} tokens/s (median), "
          f"{100 * repeated_ngram_share(results['autoregressive']):.0f}% of its 8-token windows repeats")
    print("| BW | distilled tokens/step | distilled speedup | ground truth tokens/step | ground truth speedup |")
    print("|---|---|---|---|---|")
    for bw in widths:
        cells = [f"{tokens_per_step(results[(v, bw)]):.2f} | {median_tps(results[(v, bw)]) / base_tps:.2f}x" for v in variants]
        print(f"| {bw} | {' | '.join(cells)} |", flush=True)


def print_table(drafters, temps, results):
    print("| drafter | T | tokens/step | TPS (median) | speedup | draft ms/step | verify ms/step | accept ms/step |")
    print("|---|---|---|---|---|---|---|---|")
    for t in temps:
        base_tps = median_tps(results[("autoregressive", t)])
        for name in drafters:
            rs = results[(name, t)]
            steps = sum(r["metrics"]["steps"] for r in rs)
            tps, tok = median_tps(rs), tokens_per_step(rs)
            ms = lambda k: 1e3 * sum(r["metrics"]["step_time_s"][k] for r in rs) / max(steps, 1)
            print(f"| {name} | {t:g} | {tok:.2f} | {tps:.1f} | {tps / base_tps:.2f}x | {ms('draft'):.1f} | {ms('verify'):.1f} | {ms('accept'):.1f} |")
    for t in temps:
        print(f"\nT {t:g}: {100 * repeated_ngram_share(results[('autoregressive', t)]):.0f}% of the baseline's 8-token windows repeat an earlier one in the same reply")


def beam_sweep(base, a):
    print("\n| BW (BL 5) | compression ratio | verified tokens/step | beam tokens/step | step ms (draft+verify+accept) |")
    print("|---|---|---|---|---|")
    for bw in [int(x) for x in a.beam_sweep.split(",")]:
        rs = run(base + ["--drafter", "redrafter", "--drafter-weights", os.path.join(a.weights_root, "redrafter"), "--sizing", "fixed",
                         "--beam-width", str(bw), "--beam-length", "5", "--temperature", "0"])
        steps = sum(r["metrics"]["steps"] for r in rs)
        verified = sum(r["metrics"]["mean_verified"] * r["metrics"]["steps"] for r in rs) / steps
        beams = sum(r["metrics"]["mean_beam_tokens"] * r["metrics"]["steps"] for r in rs) / steps
        step_ms = 1e3 * sum(sum(r["metrics"]["step_time_s"][k] for k in ("draft", "verify", "accept")) for r in rs) / steps
        print(f"| {bw} | {beams / verified:.2f} | {verified:.1f} | {beams:.0f} | {step_ms:.1f} |", flush=True)


if __name__ == "__main__":
    main()
