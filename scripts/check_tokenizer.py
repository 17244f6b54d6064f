#!/usr/bin/env python3
"""Compare draftbench's token ids with an independent tokenizer on the same strings.

  .venv/bin/python scripts/check_tokenizer.py --draftbench build/release/draftbench \\
      --model models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf [--count 2000] [--seed 1]

A GGUF file is compared with llama.cpp (llama-cpp-python, vocab_only); a tokenizer.json
with Hugging Face's `tokenizers`. The strings (test_strings) are generated from a seed:
many scripts, code, whitespace runs, tabs and newlines, digit runs, emoji, contractions,
special tokens inside text, and random characters. Special tokens are parsed as such on
both sides and no BOS is added. Prints "<equal>/<count> equal ids" and the first
differences; exits 1 unless every string gives equal ids and draftbench decodes every
one back to its text.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

WORDS = {
    "latin": "the quick brown fox jumps over lazy dog tokenizer merges rank byte level naïve café déjà vu über straße".split(),
    "cyrillic": "привет мир быстрая лиса токенизатор слово пример Москва".split(),
    "greek": "καλημέρα κόσμε γρήγορη αλεπού λέξη παράδειγμα".split(),
    "cjk": ["你好", "世界", "分词器", "字节", "合并", "こんにちは", "トークン", "日本語", "한국어", "안녕하세요", "단어"],
    "arabic": "مرحبا بالعالم كلمة مثال العربية".split(),
    "hebrew": "שלום עולם מילה דוגמה".split(),
    "indic": "नमस्ते दुनिया शब्द উদাহরণ தமிழ் ไทย สวัสดี".split(),
    "other": ["ქართული", "Հայերեն", "ᚠᚢᚦ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "ﬁ", "Ⅻ", "½", "²³", "٣٤٥", "१२३", "〇"],
}
EMOJI = ["😀", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷", "❤️", "🚀", "🤖", "✅", "🧑🏿‍💻", "☕", "🏳️‍🌈"]
CODE = [
    "def f(x):\n    return x * 2\n", "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}",
    "if x != None and y >= 3:\n        pass", "const s = `${a}+${b}`;", "#include <vector>\nint main() { return 0; }",
    "SELECT * FROM t WHERE id = 42;", "x=[1,2,3];print(x[::-1])", "    \n\n    # comment\n", "λx.x → ∀y∈ℕ",
    "a->b->c; p && q || !r", "{\"key\": [1, 2.5e-3, null]}", "path/to/file.txt:123:45", "0xDEADBEEF 0b1010 1e10",
]
CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "'Re", "'VE", "'D"]
SPACES = [" ", "  ", "   ", "\t", "\n", "\r\n", "\n\n", " \n", "\t\t", "        ", "\u00a0", "\u3000", "\u2028", "\u0085",
          "\u2003", "\u200b", "\u202f", "\x0b", "\x0c", "\u180e", "\u1680", "\u2029"]
# Blocks assigned long ago, so every Unicode table in play agrees on their categories.
BLOCKS = [(0x20, 0x7E), (0xA0, 0x24F), (0x370, 0x3FF), (0x400, 0x4FF), (0x590, 0x5FF), (0x600, 0x6FF), (0x900, 0x97F),
          (0xE00, 0xE7F), (0x1E00, 0x1EFF), (0x2000, 0x206F), (0x2190, 0x22FF), (0x3040, 0x30FF), (0x4E00, 0x4FFF),
          (0xAC00, 0xAD00), (0x1F300, 0x1F5FF), (0x300, 0x36F), (0xFF00, 0xFFEF)]


def random_chars(rng, n):
    out = []
    while len(out) < n:
        lo, hi = rng.choice(BLOCKS)
        c = rng.randint(lo, hi)
        if 0xD800 <= c <= 0xDFFF:
            continue
        out.append(chr(c))
    return "".join(out)


def test_strings(count, seed, specials):
    """`count` strings, the same for the same seed and special-token texts."""
    rng = random.Random(seed)
    all_words = [w for ws in WORDS.values() for w in ws]

    def piece():
        kind = rng.randrange(12)
        if kind == 0:
            return rng.choice(CODE)
        if kind == 1:
            return rng.choice(EMOJI) * rng.randint(1, 3)
        if kind == 2:
            return rng.choice(all_words).capitalize() + rng.choice(CONTRACTIONS)
        if kind == 3:
            return "".join(rng.choice(SPACES) for _ in range(rng.randint(1, 4)))
        if kind == 4:
            return str(rng.randint(0, 10 ** rng.randint(1, 12)))
        if kind == 5:
            return random_chars(rng, rng.randint(1, 6))
        if kind == 6 and specials:
            return rng.choice(specials)
        if kind == 7:
            return rng.choice("!?.,;:-_()[]{}<>\"'`~@#$%^&*+=|\\/") * rng.randint(1, 4)
        if kind == 8:  # a run of one script's words
            return " ".join(rng.choice(rng.choice(list(WORDS.values()))) for _ in range(rng.randint(2, 6)))
        return rng.choice(all_words)

    strings = ["", " ", "\n", "hello world", "Hello World!", "  leading and trailing  ", "it's we'll they'RE",
               "1234567890", "\t\tindented\n\n\n", "a" * 300, " " * 100 + "x", "x" + " " * 50]
    while len(strings) < count:
        parts = [piece() for _ in range(rng.randint(1, 12))]
        sep = rng.choice(["", " ", " ", "\n"])
        strings.append(sep.join(parts))
    return strings[:count]


def draftbench_ids(draftbench, model, strings):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "strings.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for s in strings:
                f.write(json.dumps(s) + "\n")
        out = subprocess.run([draftbench, "tokenize", "--model", model, "--text-file", path, "--jsonl"],
                             capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"check_tokenizer: draftbench tokenize failed: {out.stderr.strip()}")
    results = [json.loads(line) for line in out.stdout.splitlines()]
    if len(results) != len(strings):
        sys.exit(f"check_tokenizer: {len(results)} results for {len(strings)} strings")
    return results


def llamacpp_oracle(model):
    import llama_cpp  # scripts/requirements-reference.txt
    llm = llama_cpp.Llama(model_path=model, vocab_only=True, verbose=False)
    specials = [t for t in ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|eot_id|>", "<tool_call>")
                if len(llm.tokenize(t.encode(), add_bos=False, special=True)) == 1]
    return (lambda s: llm.tokenize(s.encode("utf-8"), add_bos=False, special=True)), specials


def tokenizers_oracle(model):
    import tokenizers  # scripts/requirements-reference.txt
    tok = tokenizers.Tokenizer.from_file(model)
    specials = [t.content for t in tok.get_added_tokens_decoder().values()]
    return (lambda s: tok.encode(s, add_special_tokens=False).ids), specials


def compare(draftbench, model, count, seed, show=5):
    """Returns (equal, count, round_trips) and prints the first `show` differences."""
    oracle, specials = (tokenizers_oracle if model.endswith(".json") else llamacpp_oracle)(model)
    strings = test_strings(count, seed, specials)
    ours = draftbench_ids(draftbench, model, strings)
    equal, round_trips, shown = 0, 0, 0
    for s, result in zip(strings, ours):
        theirs = oracle(s)
        round_trips += bool(result["round_trip"])
        if list(theirs) == result["ids"]:
            equal += 1
        elif shown < show:
            shown += 1
            print(f"  differs: {s!r}\n    draftbench {result['ids']}\n    oracle     {list(theirs)}")
    return equal, len(strings), round_trips


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draftbench", required=True)
    ap.add_argument("--model", required=True, help="GGUF file (vs llama.cpp) or tokenizer.json (vs tokenizers)")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    equal, count, round_trips = compare(a.draftbench, a.model, a.count, a.seed)
    oracle = "tokenizers" if a.model.endswith(".json") else "llama.cpp"
    print(f"{os.path.basename(a.model)}: {equal}/{count} equal ids with {oracle} ({100.0 * equal / count:.2f}%), "
          f"{round_trips}/{count} decode back to the text")
    return 0 if equal == count and round_trips == count else 1


if __name__ == "__main__":
    sys.exit(main())
