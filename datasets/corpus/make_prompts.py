#!/usr/bin/env python3
"""Write datasets/corpus/prompts.jsonl and prompts_extra.jsonl: English instructions for drafter distillation.

The prompts are generated, not collected: templates x topics x constraints from the
table modules next to this file (prompt_templates, knowledge_templates, coding_templates,
reasoning_generators, math_generators, passage_generators, alpaca_templates), all written
for this corpus. Two styles:
  mt-bench  the eight MT-Bench categories, MTBENCH_PER_CATEGORY prompts each;
  alpaca    short everyday assistant requests in twelve categories, ALPACA_PER_CATEGORY each.

Deterministic: every category draws from its own random.Random seeded with a string
(string seeds are hashed with SHA-512, so PYTHONHASHSEED does not matter), and the split
depends only on the prompt text. Rerunning gives byte-identical files.

prompts_extra.jsonl enlarges the training side without touching prompts.jsonl (so its
held-out split and every checksum recorded against it stay valid): a second draw per
category from its own seed, up to EXTRA_PER_CATEGORY prompts or as many as the category's
tables allow, each new against every prompt of both files (held-out ones included) and
sharing no 8-word run with the evaluation sets (datasets/mt_bench_style, alpaca_style,
code_style; the suite checks the same). All of them are "train".

Usage: python3 datasets/corpus/make_prompts.py [--out PATH] [--extra-out PATH]
"""

import argparse
import hashlib
import json
import math
import random
import re
import sys
from collections import Counter
from pathlib import Path

sys.dont_write_bytecode = True  # importing the table modules must not leave __pycache__ in the dataset folder
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from alpaca_templates import ALPACA_CATEGORIES  # noqa: E402
from coding_templates import CODING  # noqa: E402
from corpus_files import write_jsonl  # noqa: E402
from knowledge_templates import HUMANITIES, STEM  # noqa: E402
from math_generators import MATH  # noqa: E402
from passage_generators import EXTRACTION  # noqa: E402
from prompt_templates import COMMON_SLOTS, ROLEPLAY, WRITING  # noqa: E402
from reasoning_generators import REASONING  # noqa: E402

SEED = 4_2024
MTBENCH_PER_CATEGORY = 300
ALPACA_PER_CATEGORY = 100
EXTRA_PER_CATEGORY = {"mt-bench": 500, "alpaca": 150}
HELDOUT_FRACTION = 0.12
MIN_HELDOUT_PER_MTBENCH_CATEGORY = 40
# How many constraints a prompt gets: most get none or one, so constraints season the
# corpus rather than dominate it.
CONSTRAINT_COUNTS, CONSTRAINT_WEIGHTS = (0, 1, 2), (45, 40, 15)
WORD_LIMITS = {"extraction": (10, 250), "summary": (10, 250)}
DEFAULT_WORD_LIMITS = (10, 120)
# Give up on a category after this many draws per wanted prompt: a template table too
# small for its target should fail loudly, not loop forever.
MAX_DRAWS_PER_PROMPT = 200

MTBENCH_CATEGORIES = {
    "writing": WRITING, "roleplay": ROLEPLAY, "reasoning": REASONING, "math": MATH,
    "coding": CODING, "extraction": EXTRACTION, "stem": STEM, "humanities": HUMANITIES,
}

# {slot} or {slot2}: the trailing digit asks for a second, different value of the same slot.
SLOT_FIELD = re.compile(r"\{([a-z_]+?)(\d?)\}")
SHINGLE_WORDS = 8
EVALUATION_SETS = ("mt_bench_style/question.jsonl", "alpaca_style/alpaca_eval_style.json", "code_style/code_prompts.jsonl")
# Item counts ("list five ...", COMMON_SLOTS["n_items"]) do not make a request different.
COUNT_WORDS = re.compile(r"\b(three|four|five|six|seven)\b")


def normalise(text):
    """Key for near-duplicate detection: case, punctuation and spacing do not count."""
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def shingles(text):
    """The 8-word windows of text: words are runs of ASCII letters and digits or non-ASCII
    bytes, ASCII-lowercased (as the suite's overlap test splits them)."""
    words = [w.lower() for w in re.findall(rb"[A-Za-z0-9\x80-\xff]+", text.encode("utf-8"))]
    return {b" ".join(words[i:i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1)}


def evaluation_shingles():
    """Every 8-word window of every turn of the evaluation prompt sets."""
    out = set()
    for name in EVALUATION_SETS:
        text = (HERE.parent / name).read_text(encoding="utf-8")
        records = json.loads(text) if name.endswith(".json") else [json.loads(line) for line in text.splitlines() if line.strip()]
        for record in records:
            for turn in record.get("turns", [record.get("instruction", "")]):
                out |= shingles(turn)
    return out


def fill(text, slots, rng):
    """Replace each {slot} in text with a value drawn from slots; values are not re-parsed."""
    chosen, used = {}, {}

    def draw(match):
        name, suffix = match.group(1), match.group(2)
        if name + suffix in chosen:
            return chosen[name + suffix]
        table = slots[name]
        taken = used.setdefault(name, set())
        for _ in range(50):  # {a} and {a2} must differ
            value = table(rng) if callable(table) else rng.choice(table)
            value = value(rng) if callable(value) else value
            if value not in taken:
                break
        taken.add(value)
        chosen[name + suffix] = value
        return value

    return SLOT_FIELD.sub(draw, text)


def draw_constraints(kinds, table, slots, rng):
    """Zero to two constraint sentences, each from a different kind so they never clash."""
    available = [kind for kind in kinds.split(",") if kind]
    count = min(rng.choices(CONSTRAINT_COUNTS, weights=CONSTRAINT_WEIGHTS)[0], len(available))
    return [fill(rng.choice(table[kind]), slots, rng) for kind in rng.sample(available, count)]


def generate_category(style, category, spec, target, seen_bases, seen_prompts, draw="", at_most=False, banned_shingles=frozenset()):
    """target distinct prompts for one category; seen_* are shared across categories.

    draw names a further, independent draw ("" for the original one); at_most returns what
    the tables allow when they give fewer than target; a prompt with a banned 8-word window
    is skipped.
    """
    rng = random.Random(f"draftbench-corpus/{SEED}/{draw}{style}/{category}")
    slots = {**COMMON_SLOTS, **spec["slots"]}
    low, high = WORD_LIMITS.get(category, DEFAULT_WORD_LIMITS)
    prompts = []
    for _ in range(target * MAX_DRAWS_PER_PROMPT):
        if len(prompts) == target:
            return prompts
        template, kinds = rng.choice(spec["templates"])
        base = fill(template, slots, rng)
        constraints = draw_constraints(kinds, spec["constraints"], slots, rng)
        # Constraints after a passage or code block go in their own paragraph.
        joiner = "\n\n" if "\n" in base else " "
        prompt = base + (joiner + " ".join(constraints) if constraints else "")
        if not low <= len(prompt.split()) <= high:
            continue
        # One prompt per base request (before constraints): otherwise a small table would
        # fill the quota with the same request under different constraints.
        base_key, prompt_key = COUNT_WORDS.sub("n", normalise(base)), normalise(prompt)
        if base_key in seen_bases or prompt_key in seen_prompts or not shingles(prompt).isdisjoint(banned_shingles):
            continue
        seen_bases.add(base_key)
        seen_prompts.add(prompt_key)
        prompts.append(prompt)
    if at_most:
        return prompts
    raise SystemExit(f"{style}/{category}: only {len(prompts)} of {target} distinct prompts; enlarge its tables")


def heldout_count(style, size):
    wanted = math.ceil(HELDOUT_FRACTION * size)
    return max(wanted, MIN_HELDOUT_PER_MTBENCH_CATEGORY) if style == "mt-bench" else wanted


def assign_splits(records):
    """Held out: per (style, category), the prompts with the smallest SHA-256 of their text.

    Hashing the text (not the position) keeps a prompt's split fixed even if other
    prompts change, and spreads the held-out set evenly over templates.
    """
    groups = {}
    for record in records:
        groups.setdefault((record["style"], record["category"]), []).append(record)
    for (style, _), members in groups.items():
        members.sort(key=lambda r: hashlib.sha256(r["prompt"].encode("utf-8")).hexdigest())
        for rank, record in enumerate(members):
            record["split"] = "heldout" if rank < heldout_count(style, len(members)) else "train"


def category_plan():
    plan = [("mt-bench", name, spec) for name, spec in MTBENCH_CATEGORIES.items()]
    return plan + [("alpaca", name, spec) for name, spec in ALPACA_CATEGORIES.items()]


def finish_records(records, id_prefix, draw):
    """Interleave categories (any prefix of the file is a mixed sample) and number them."""
    random.Random(f"draftbench-corpus/{SEED}/{draw}order").shuffle(records)
    return [{"id": f"{id_prefix}{index:06d}", "split": r["split"], "style": r["style"], "category": r["category"],
             "prompt": r["prompt"]} for index, r in enumerate(records, start=1)]


def build_records():
    """(prompts.jsonl's records, prompts_extra.jsonl's records)."""
    seen_bases, seen_prompts = set(), set()
    records, extra = [], []
    per_category = {"mt-bench": MTBENCH_PER_CATEGORY, "alpaca": ALPACA_PER_CATEGORY}
    for style, category, spec in category_plan():
        for prompt in generate_category(style, category, spec, per_category[style], seen_bases, seen_prompts):
            assert not SLOT_FIELD.search(prompt), f"unfilled slot in: {prompt!r}"
            records.append({"style": style, "category": category, "prompt": prompt})
    assign_splits(records)
    # The extra draw comes after the whole original one, so the original file is unchanged.
    banned = evaluation_shingles()
    for style, category, spec in category_plan():
        for prompt in generate_category(style, category, spec, EXTRA_PER_CATEGORY[style], seen_bases, seen_prompts, "extra/", True, banned):
            assert not SLOT_FIELD.search(prompt), f"unfilled slot in: {prompt!r}"
            extra.append({"split": "train", "style": style, "category": category, "prompt": prompt})
    return finish_records(records, "p", ""), finish_records(extra, "x", "extra/")


def print_summary(records, out_path, written):
    """Markdown tables (pasted into README.md) of counts per style, category and split."""
    counts = Counter((r["style"], r["category"], r["split"]) for r in records)
    words = {}
    for r in records:
        words.setdefault((r["style"], r["category"]), []).append(len(r["prompt"].split()))
    print("| style | category | train | heldout | total | words min/mean/max |")
    print("|---|---|---:|---:|---:|---|")
    for (style, category), lengths in sorted(words.items(), key=lambda kv: (kv[0][0] != "mt-bench", kv[0])):
        train, held = counts[(style, category, "train")], counts[(style, category, "heldout")]
        print(f"| {style} | {category} | {train} | {held} | {train + held} | "
              f"{min(lengths)}/{sum(lengths) / len(lengths):.0f}/{max(lengths)} |")
    for style in ("mt-bench", "alpaca"):
        train = sum(v for (s, _, split), v in counts.items() if s == style and split == "train")
        held = sum(v for (s, _, split), v in counts.items() if s == style and split == "heldout")
        print(f"| **{style}** | all | {train} | {held} | {train + held} | |")
    held = sum(1 for r in records if r["split"] == "heldout")
    print(f"| **all** | all | {len(records) - held} | {held} | {len(records)} | |")
    print(f"\nwrote {out_path} ({written})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "prompts.jsonl")
    parser.add_argument("--extra-out", type=Path, default=HERE / "prompts_extra.jsonl")
    args = parser.parse_args()
    for records, path in zip(build_records(), (args.out, args.extra_out)):
        print_summary(records, path, write_jsonl(path, records))
        print()


if __name__ == "__main__":
    main()
