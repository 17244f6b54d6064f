#!/usr/bin/env python3
"""Write datasets/corpus/code_completions.jsonl: code-completion prompts for drafter training.

A coder model's drafters must learn its code, so the training corpus needs prompts of the
kind datasets/code_style holds for evaluation: a signature and a comment or docstring to
complete, in Python, C and JavaScript. These are composed, not collected: an operation
("the sum of the values that are ...", "the words that ...") crossed with a condition
("even", "a multiple of 7", "longer than 6 letters"), each with its function name, written
as a Python, C or JavaScript stub under one of several instructions. Everything is ours.

Kept apart from the evaluation set: none of its 40 tasks is composed here (the operations
avoid them by design), and a prompt sharing an 8-word window with any evaluation prompt
(datasets/mt_bench_style, alpaca_style, code_style) is dropped, as make_prompts.py does.
All records are "split": "train", ids k000001..., in a seeded order; deterministic.

Usage: python3 datasets/corpus/make_code_prompts.py [--out PATH]
"""

import argparse
import random
import sys
from pathlib import Path

sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus_files import write_jsonl  # noqa: E402
from make_prompts import evaluation_shingles, shingles  # noqa: E402

SEED = 4_2024

INSTRUCTIONS = {
    "python": ["Implement the Python function below. Answer with code only.",
               "Write the body of this Python function and reply with the whole function, nothing else.",
               "Fill in this function so that it does what its docstring says. Only code, please.",
               "Finish this Python stub; the reply should be just the finished function."],
    "c": ["Implement the C function below. Answer with code only.",
          "Write the body of this C function and reply with the whole function, nothing else.",
          "Finish this C stub so that it does what its comment says. Only code, please."],
    "javascript": ["Implement the JavaScript function below. Answer with code only.",
                   "Write the body of this JavaScript function and reply with the whole function, nothing else.",
                   "Finish this JavaScript stub so that it does what its comment says. Only code, please."],
}

# Conditions on an integer: (name fragment, words).
INT_CONDITIONS = [
    ("even", "even"),
    ("odd", "odd"),
    ("positive", "positive"),
    ("negative", "negative"),
    ("multiple_of_3", "a multiple of 3"),
    ("multiple_of_7", "a multiple of 7"),
    ("above_100", "greater than 100"),
    ("below_10", "smaller than 10"),
    ("perfect_square", "a perfect square"),
    ("power_of_two", "a power of two"),
    ("single_digit", "between -9 and 9 inclusive"),
]

# Operations on a list of integers: (name pattern, docstring pattern, Python return type,
# C form or None, JavaScript form or None). {c} is the condition's name fragment, {w} its words.
INT_LIST_OPS = [
    ("sum_of_{c}_values", "Return the sum of the values that are {w}; 0 when there are none.", "int", "long", True),
    ("count_{c}_values", "Return how many of the values are {w}.", "int", "size_t", True),
    ("indices_of_{c}_values", "Return the positions of the values that are {w}, in increasing order.", "list[int]", None, True),
    ("first_{c}_value", "Return the first value that is {w}, or None when there is none.", "int | None", None, True),
    ("last_{c}_value", "Return the last value that is {w}, or None when there is none.", "int | None", None, True),
    ("longest_{c}_stretch", "Return the length of the longest stretch of consecutive values that are all {w}.", "int", "size_t", True),
    ("all_{c}", "Return True when every value is {w}; an empty list gives True.", "bool", "int", True),
    ("without_{c}_values", "Return a new list without the values that are {w}, keeping the order of the rest.", "list[int]", None, True),
    ("split_{c}_values", "Return two lists: the values that are {w} and the others, each in input order.", "tuple[list[int], list[int]]", None, False),
    ("product_of_{c}_values", "Return the product of the values that are {w}; 1 when there are none.", "int", "long long", False),
    ("largest_{c}_value", "Return the largest value that is {w}, or None when there is none.", "int | None", None, True),
    ("share_of_{c}_values", "Return the fraction of the values that are {w}, as a float; an empty list gives 0.0.", "float", "double", True),
]

# Conditions on a word.
WORD_CONDITIONS = [
    ("capitalised", "start with a capital letter"),
    ("with_digit", "contain at least one digit"),
    ("long", "are longer than six letters"),
    ("short", "have at most three letters"),
    ("palindromic", "read the same backwards, ignoring case"),
    ("vowel_free", "contain no vowel"),
    ("doubled_letter", "contain the same letter twice in a row"),
    ("same_ends", "start and end with the same letter, ignoring case"),
]

# Operations on the words of a text (words are separated by whitespace).
WORD_OPS = [
    ("count_{c}_words", "Return how many words of text {w}.", "int"),
    ("{c}_words", "Return the words of text that {w}, in the order they appear.", "list[str]"),
    ("drop_{c}_words", "Return text with the words that {w} removed and the other words joined by single spaces.", "str"),
    ("longest_{c}_word", "Return the longest word of text among those that {w}; the first one on a tie, '' when there is none.", "str"),
    ("shout_{c}_words", "Return text with the words that {w} in upper case and the other words unchanged, joined by single spaces.", "str"),
    ("has_{c}_word", "Return True when text has at least one word among those that {w}.", "bool"),
]

# Character classes: (name fragment, with its article, singular, plural).
CHAR_CLASSES = [
    ("digit", "a decimal digit", "decimal digit", "decimal digits"),
    ("upper", "an upper-case letter", "upper-case letter", "upper-case letters"),
    ("space", "a whitespace character", "whitespace character", "whitespace characters"),
    ("punctuation", "an ASCII punctuation mark", "ASCII punctuation mark", "ASCII punctuation marks"),
]
CHAR_OPS = [
    ("count_{c}_chars", "Return how many characters of text are {a}.", "int", "size_t"),
    ("mask_{c}_chars", "Return text with every {s} replaced by '#'.", "str", None),
    ("strip_{c}_chars", "Return text without its {p}.", "str", None),
    ("first_{c}_position", "Return the index of the first {s} in text, or -1 when there is none.", "int", "long"),
]

# Functions of one non-negative integer n.
NUMBER_TASKS = [
    ("count_set_bits", "Return how many bits of n's binary form are 1."),
    ("count_trailing_zero_bits", "Return how many zero bits end n's binary form; n is positive."),
    ("count_decimal_digits", "Return how many decimal digits n has; 0 has one."),
    ("count_divisors", "Return how many positive integers divide n exactly; n is positive."),
    ("digital_root", "Add up n's decimal digits again and again until one digit is left, and return it."),
    ("reverse_digits", "Return the number whose decimal digits are n's in reverse order (1200 gives 21)."),
    ("is_palindrome_number", "Return whether n reads the same in decimal from both ends."),
    ("collatz_steps", "Return how many steps of the 3n + 1 rule take n down to 1; n is positive."),
    ("triangular_number", "Return the n-th triangular number, 1 + 2 + ... + n."),
    ("sum_of_squares", "Return 1^2 + 2^2 + ... + n^2."),
    ("is_perfect_number", "Return whether n equals the sum of its divisors smaller than itself; n is positive."),
    ("largest_prime_factor", "Return the largest prime that divides n; n is at least 2."),
    ("binary_string", "Return n written in binary, without a prefix; 0 gives '0'."),
    ("factorial_trailing_zeros", "Return how many zeros end the decimal form of n factorial."),
    ("nearest_power_of_two", "Return the power of two closest to n, the smaller one on a tie; n is positive."),
]

# Operations on a mapping from names to integer amounts.
DICT_TASKS = [
    ("keys_by_amount", "Return the keys of amounts sorted by their amount, largest first, then by key.", "list[str]"),
    ("total_amount", "Return the sum of all amounts; an empty mapping gives 0.", "int"),
    ("keys_with_amount_at_least", "Return the keys whose amount is at least limit, sorted.", "list[str]", "limit: int"),
    ("invert_amounts", "Return a mapping from each amount to the sorted list of keys that have it.", "dict[int, list[str]]"),
    ("merge_amounts", "Return a new mapping holding every key of amounts and other, with the amounts of shared keys added.", "dict[str, int]",
     "other: dict[str, int]"),
    ("scale_amounts", "Return a new mapping with every amount multiplied by factor and rounded to the nearest integer.", "dict[str, int]",
     "factor: float"),
    ("key_of_smallest_amount", "Return the key with the smallest amount, the first in sorted order on a tie; None for an empty mapping.",
     "str | None"),
    ("amount_shares", "Return a mapping from each key to its share of the total amount, as a float; an empty mapping gives {}.",
     "dict[str, float]"),
]


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def python_stub(name, params, ret, doc, imports=""):
    return f"{imports}def {name}({params}) -> {ret}:\n    \"\"\"{doc}\"\"\"\n"


def c_stub(name, params, ret, doc, includes="#include <stddef.h>"):
    return f"{includes}\n\n/* {doc} */\n{ret} {name}({params}) {{\n"


def js_stub(name, params, doc):
    return f"// {doc}\nfunction {name}({params}) {{\n"


def compose():
    """(language, stub) pairs, every operation crossed with every condition."""
    out = []
    for cond, words in INT_CONDITIONS:
        for pattern, doc, ret, c_ret, js in INT_LIST_OPS:
            name, text = pattern.format(c=cond), doc.format(w=words)
            out.append(("python", python_stub(name, "values: list[int]", ret, text)))
            if c_ret:
                c_doc = text.replace("None when there is none", "0 when there is none").replace("True", "1").replace("an empty list", "n = 0")
                c_doc = c_doc.replace("the values", "the n values") if "the values" in c_doc else c_doc + " The array holds n values."
                out.append(("c", c_stub(name, "const int *values, size_t n", c_ret, c_doc)))
            if js:
                js_doc = text.replace("None", "null").replace("True", "true").replace("a new list", "a new array").replace("an empty list", "an empty array")
                out.append(("javascript", js_stub(camel(name), "values", js_doc)))
    for cond, words in WORD_CONDITIONS:
        for pattern, doc, ret in WORD_OPS:
            name, text = pattern.format(c=cond), doc.format(w=words)
            out.append(("python", python_stub(name, "text: str", ret, text)))
            out.append(("javascript", js_stub(camel(name), "text", text.replace("True", "true"))))
    for cls, article, singular, plural in CHAR_CLASSES:
        for pattern, doc, ret, c_ret in CHAR_OPS:
            name, text = pattern.format(c=cls), doc.format(a=article, s=singular, p=plural)
            imports = "import string\n\n" if cls == "punctuation" else ""
            out.append(("python", python_stub(name, "text: str", ret, text, imports)))
            out.append(("javascript", js_stub(camel(name), "text", text)))
            if c_ret:
                out.append(("c", c_stub(name, "const char *text", c_ret, text.replace("text", "the NUL-terminated text", 1), "#include <ctype.h>\n#include <stddef.h>")))
    for name, doc in NUMBER_TASKS:
        ret = "bool" if name.startswith("is_") else "str" if name == "binary_string" else "int"
        out.append(("python", python_stub(name, "n: int", ret, doc)))
        if ret != "str":
            out.append(("c", c_stub(name, "unsigned long n", "int" if ret == "bool" else "unsigned long", doc.replace("Return whether", "Return 1 when"),
                                    "#include <stdint.h>")))
        out.append(("javascript", js_stub(camel(name), "n", doc)))
    for name, doc, ret, *extra in DICT_TASKS:
        params = ", ".join(["amounts: dict[str, int]"] + extra)
        out.append(("python", python_stub(name, params, ret, doc)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "code_completions.jsonl")
    args = parser.parse_args()
    banned = evaluation_shingles()
    rng = random.Random(f"draftbench-code-prompts/{SEED}")
    records, seen, dropped = [], set(), 0
    for language, stub in compose():
        prompt = f"{rng.choice(INSTRUCTIONS[language])}\n\n{stub}"
        if stub in seen or not shingles(prompt).isdisjoint(banned):
            dropped += 1
            continue
        seen.add(stub)
        records.append({"split": "train", "style": "code", "category": language, "prompt": prompt})
    random.Random(f"draftbench-code-prompts/{SEED}/order").shuffle(records)
    written = write_jsonl(args.out, ({"id": f"k{index:06d}", **r} for index, r in enumerate(records, start=1)))
    counts = {lang: sum(r["category"] == lang for r in records) for lang in INSTRUCTIONS}
    print(f"wrote {args.out}: {len(records)} prompts {counts}, {dropped} dropped ({written})")


if __name__ == "__main__":
    main()
