#!/usr/bin/env python3
"""Write datasets/corpus/followups.jsonl: a second user turn for every training prompt.

Multi-turn distillation (`draftbench distill --followups ... --first-turns DIR`) asks the
target a follow-up after its own first reply, so drafters also learn replies whose context
holds an earlier answer, as MT-Bench's second turns do. Each training prompt of
prompts.jsonl and prompts_extra.jsonl gets one follow-up: drawn from the prompt's category
table and the general table, by a random.Random seeded with the prompt's id, so the file is
deterministic. Held-out prompts get none.

One JSON object per line, in the order of the two prompt files:
    {"id": "p000001", "followup": "..."}

Usage: python3 datasets/corpus/make_followups.py [--out PATH]
"""

import argparse
import json
import random
import sys
from pathlib import Path

sys.dont_write_bytecode = True
from corpus_files import write_jsonl  # noqa: E402

HERE = Path(__file__).resolve().parent
SEED = 4_2024

GENERAL = [
    "Can you make that shorter, in about half the length?",
    "Please rewrite your answer for a twelve-year-old.",
    "Summarise your answer in three bullet points.",
    "What is the weakest part of your answer, and how would you improve it?",
    "Now give the same answer in a more formal tone.",
    "Can you add a concrete example to make it clearer?",
    "Which point in your answer matters most, and why?",
    "Turn your answer into a short numbered checklist.",
]

BY_CATEGORY = {
    "writing": [
        "Rewrite it so that every sentence starts with a different letter.",
        "Give it a catchy title and a one-line subtitle.",
        "Now write the same piece from the opposite point of view.",
        "Add a closing paragraph that ends with a question to the reader.",
        "Rewrite the opening so it grabs attention in the first sentence.",
    ],
    "roleplay": [
        "Stay in character and answer: what would you do if things went badly?",
        "Now reply again, but as if you were speaking to a sceptical audience.",
        "Still in character, describe your biggest regret.",
        "Keep the same role and give one piece of advice to a newcomer.",
        "Answer again in character, but in no more than three sentences.",
    ],
    "reasoning": [
        "Explain your reasoning step by step, checking each step.",
        "What would change in your answer if one of the facts were false?",
        "Is there a second way to reach the same conclusion?",
        "Which assumption does your answer rely on most?",
        "Could someone reasonably disagree with your conclusion? How?",
    ],
    "math": [
        "Check your result by solving the problem a different way.",
        "What happens to the answer if every number doubles?",
        "Write the solution as a general formula.",
        "Explain the key step to someone who finds algebra hard.",
        "Give a similar problem with different numbers, and solve it too.",
    ],
    "coding": [
        "Add error handling for invalid input to your code.",
        "Write three unit tests for your solution.",
        "What is the time and space complexity of your solution?",
        "Rewrite the solution without using any library functions.",
        "Add comments that explain each part of the code.",
        "How would you change the code to handle very large inputs?",
    ],
    "extraction": [
        "Now give the extracted information as a JSON object.",
        "Put the same information in a table with clear column names.",
        "Which details from the text did you leave out, and why?",
        "List only the dates and numbers that appear in the text.",
        "Summarise the text in one sentence.",
    ],
    "stem": [
        "Explain the same idea with an everyday analogy.",
        "What is a common misconception about this topic?",
        "How was this discovered or first measured?",
        "Describe a simple experiment that demonstrates it.",
        "How does this apply to everyday technology?",
    ],
    "humanities": [
        "How have historians or critics disagreed about this?",
        "Compare it with a similar case from another country or period.",
        "What sources would you read to learn more about this?",
        "Why does this still matter today?",
        "Explain the same topic in the form of a short timeline.",
    ],
    "advice": ["What should I avoid doing?", "What if I only have ten minutes a day for this?", "How will I know it is working?"],
    "definition": ["Use the term in three example sentences.", "What is a word that is often confused with it?", "Explain it without any jargon."],
    "list": ["Sort your list from most to least important.", "Add one more item and explain why it belongs.", "Which item would you drop first?"],
    "rewrite": ["Now make it sound more casual.", "Rewrite it again in fewer than twenty words.", "Which change made the biggest difference?"],
    "comparison": ["Which one would you pick, and why?", "Put the comparison in a table.", "Are there situations where the other one is better?"],
    "recipe": ["How can I make it vegetarian?", "What can I prepare in advance?", "How should I store the leftovers?"],
    "email": ["Make the email more polite.", "Write a short reply to that email.", "Shorten the email to three sentences."],
    "brainstorm": ["Which idea is the most practical, and why?", "Give three more ideas that are more unusual.", "Turn the best idea into a short plan."],
    "howto": ["What are the most common mistakes?", "What tools do I need for this?", "How long does each step usually take?"],
    "recommendation": ["Recommend something for a smaller budget.", "Why did you choose the first one?", "What would you suggest for a beginner?"],
    "summary": ["Summarise it again in one sentence.", "What is the main point the author wants to make?", "What questions does the text leave open?"],
    "classification": ["Explain how you decided on each label.", "Which case was the hardest to classify?", "Add a new example for each class."],
}


def followup(record):
    rng = random.Random(f"draftbench-followups/{SEED}/{record['id']}")
    table = BY_CATEGORY[record["category"]] + GENERAL
    return rng.choice(table)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "followups.jsonl")
    args = parser.parse_args()
    rows = []
    for name in ("prompts.jsonl", "prompts_extra.jsonl"):
        with open(HERE / name, encoding="utf-8") as f:
            rows += [{"id": r["id"], "followup": followup(r)} for r in map(json.loads, f) if r["split"] == "train"]
    print(f"wrote {args.out}: {len(rows)} follow-ups ({write_jsonl(args.out, rows)})")


if __name__ == "__main__":
    main()
