#!/usr/bin/env python3
"""Write datasets/corpus/passages.jsonl: prompts that carry a passage of real text.

The generated prompts of prompts.jsonl are drawn from tables, so their wording recurs, and a
drafter can learn it by heart: on held-out corpus prompts a drafter trained on them beats
the n-gram lookup by 1.4x, on the hand-written mt_bench_style prompts it falls to 0.8x. There
the target copies text it has never seen (the default model echoes its prompt), and copying
is only learnt from copying novel text. Each prompt here is an instruction around a passage
(summarise, rewrite, list what it names, answer from it) whose sentences are human-written:
short docstrings of the Python standard library (12-39 words, licence PSF), two to five
per passage, from unrelated objects, so no passage repeats a template.

Kept apart from ground_truth.jsonl (docstrings of 40-400 words: Table 6's human text): a
docstring in that range is never used, nor one sharing an 8-word window with a ground-truth
response. Kept apart from the evaluation sets as make_prompts.py is: a prompt sharing an
8-word window with datasets/mt_bench_style, alpaca_style or code_style is dropped. Each
docstring appears in two passages, with different company. All records are
"split": "train", ids d000001..., in a seeded order. Docstrings differ between Python
patch releases: run it with /usr/bin/python3, as make_ground_truth.py.

Usage: /usr/bin/python3 datasets/corpus/make_passage_prompts.py [--out PATH]
"""

import argparse
import json
import random
import re
import sys
from pathlib import Path

sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus_files import write_jsonl  # noqa: E402
from make_prompts import evaluation_shingles, shingles  # noqa: E402
import make_ground_truth as stdlib_docs  # noqa: E402  (last: it restricts sys.path to the standard library)

SEED = 4_2024
MIN_DOC_WORDS, MAX_DOC_WORDS = 12, 39  # below make_ground_truth's 40: never a ground-truth record
PASSAGE_WORDS = (45, 110)
PASSES = 2  # each docstring's appearances, each time among other docstrings

# {passage} is the text; the others vary the frame as MT-Bench's extraction and writing
# questions do (instruction first or last, quoted or set off).
INSTRUCTIONS = [
    "Summarise the following text in two sentences.\n\n{passage}",
    "Turn the notes below into a bulleted list, one point per sentence.\n\n\"{passage}\"",
    "Rewrite this passage so that a beginner could follow it.\n\n{passage}",
    "List every function, class or module named in the text below.\n\n{passage}",
    "Here is part of some library documentation:\n\n{passage}\n\nWhat is it mainly about?",
    "Proofread the paragraph below and return the corrected version.\n\n{passage}",
    "From the text below, extract each action it describes, as a numbered list.\n\n\"{passage}\"",
    "Read this and write three questions a student might ask about it.\n\n{passage}",
    "Text:\n{passage}\n\nTask: explain the text in plain English, in under 80 words.",
    "Translate the following technical note into simpler words, keeping its meaning.\n\n{passage}",
    "Give this passage a short title, then repeat it with the key terms in bold.\n\n{passage}",
    "Below is a description taken from a manual.\n\n\"{passage}\"\n\nWhich parts of it would a tester check first?",
    "Condense the passage below into a single sentence of at most 25 words.\n\n{passage}",
    "Explain, step by step, what the following documentation says happens.\n\n{passage}",
    "I was given this note at work:\n\n{passage}\n\nCan you put it into a short email to a colleague?",
    "Identify the most important sentence in the text below and say why.\n\n{passage}",
]


def short_docstrings():
    """The standard library's distinct docstrings of MIN..MAX words, cleaned as make_ground_truth.py cleans."""
    stdlib_docs.MIN_WORDS, stdlib_docs.MAX_WORDS = MIN_DOC_WORDS, MAX_DOC_WORDS
    docs, seen = [], set()
    for module_name in stdlib_docs.stdlib_module_names():
        module = sys.modules[module_name]
        for _kind, _dotted, _owner, doc in stdlib_docs.documented_objects(module_name, module):
            text = stdlib_docs.clean(doc)
            if text is None:
                continue
            text = re.sub(r"\s+", " ", text).strip()  # one paragraph: a passage is prose
            if text not in seen:
                seen.add(text)
                docs.append(text)
    return docs


def ground_truth_shingles():
    out = set()
    for line in (HERE / "ground_truth.jsonl").read_text(encoding="utf-8").splitlines():
        out |= shingles(json.loads(line)["response"])
    return out


def passages(docs, rng):
    """Each docstring PASSES times, in passages of PASSAGE_WORDS words built in shuffled order."""
    out = []
    for _ in range(PASSES):
        order = list(docs)
        rng.shuffle(order)
        current, words = [], 0
        for doc in order:
            n = len(doc.split())
            if current and words + n > PASSAGE_WORDS[1]:
                if words >= PASSAGE_WORDS[0]:
                    out.append(" ".join(current))
                current, words = [], 0
            current.append(doc)
            words += n
        if words >= PASSAGE_WORDS[0]:
            out.append(" ".join(current))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "passages.jsonl")
    args = parser.parse_args()
    banned_gt = ground_truth_shingles()
    docs = [d for d in short_docstrings() if shingles(d).isdisjoint(banned_gt)]
    rng = random.Random(f"draftbench-passages/{SEED}")
    banned = evaluation_shingles()
    records, seen, dropped = [], set(), 0
    for passage in passages(sorted(docs), rng):
        prompt = rng.choice(INSTRUCTIONS).format(passage=passage)
        if passage in seen or not shingles(prompt).isdisjoint(banned):
            dropped += 1
            continue
        seen.add(passage)
        records.append({"split": "train", "style": "passage", "category": "docstrings", "prompt": prompt})
    random.Random(f"draftbench-passages/{SEED}/order").shuffle(records)
    written = write_jsonl(args.out, ({"id": f"d{index:06d}", **r} for index, r in enumerate(records, start=1)))
    words = [len(r["prompt"].split()) for r in records]
    print(f"wrote {args.out}: {len(records)} prompts from {len(docs)} docstrings, {dropped} dropped, words "
          f"{min(words)}/{sum(words) // len(words)}/{max(words)} ({written})")


if __name__ == "__main__":
    main()
