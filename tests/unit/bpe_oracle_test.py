#!/usr/bin/env python3
"""draftbench's byte-level BPE against two independent implementations on small
vocabularies trained here: for each pre-tokenizer (qwen2, llama-bpe, gpt-2) a BPE is
trained with Hugging Face's `tokenizers` on a generated corpus and saved as
tokenizer.json, and the same vocabulary is written as a vocabulary-only GGUF file
(tokenizer.ggml.model = gpt2). `draftbench tokenize` must give the ids of `tokenizers`
on the tokenizer.json and of llama.cpp (llama-cpp-python) on the GGUF, for every one of
the 2,000 strings of scripts/check_tokenizer.py, and decode each back to its text.

  .venv/bin/python tests/unit/bpe_oracle_test.py --draftbench build/release/draftbench --root .
"""
import argparse
import collections
import json
import os
import sys
import tempfile

import gguf  # scripts/requirements-reference.txt
import tokenizers
from tokenizers import decoders, models, pre_tokenizers, trainers

QWEN2 = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
LLAMA3 = QWEN2.replace(r"|\p{N}|", r"|\p{N}{1,3}|")
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
USER_DEFINED = ["<tool_call>"]


def train(kind, corpus):
    tok = tokenizers.Tokenizer(models.BPE())
    if kind == "gpt-2":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    else:
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(tokenizers.Regex(QWEN2 if kind == "qwen2" else LLAMA3), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, min_frequency=2, special_tokens=SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(corpus, trainer)
    return tok


def add_whole_words(tok, data, corpus, count=300):
    """Adds the `count` commonest words of the corpus that are not vocabulary entries as
    entries no merge chain builds: with ignore_merges (llama-bpe) each such word is then
    one token, without it (qwen2, gpt-2) it is merged as before."""
    vocab = data["model"]["vocab"]
    missing = collections.Counter(word for text in corpus for word, _ in tok.pre_tokenizer.pre_tokenize_str(text)
                                  if word not in vocab and len(word) > 1)
    next_id = max(max(vocab.values()), max(t["id"] for t in data["added_tokens"])) + 1
    for word, _ in missing.most_common(count):
        vocab[word] = next_id
        next_id += 1
    for content in USER_DEFINED:  # added (not special) tokens, after the whole vocabulary
        data["added_tokens"].append({"id": next_id, "content": content, "single_word": False, "lstrip": False,
                                     "rstrip": False, "normalized": True, "special": False})
        next_id += 1


def write_tokenizer_json(tok, kind, path, corpus):
    data = json.loads(tok.to_str())
    add_whole_words(tok, data, corpus)
    data["model"]["ignore_merges"] = kind == "llama-bpe"  # as Llama 3's tokenizer.json has it
    if kind == "qwen2":  # the pair form of merges, as newer tokenizer.json files write them
        data["model"]["merges"] = [m.split(" ", 1) if isinstance(m, str) else m for m in data["model"]["merges"]]
    else:
        data["model"]["merges"] = [" ".join(m) if isinstance(m, list) else m for m in data["model"]["merges"]]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)
    return data


def write_gguf(data, kind, path):
    vocab = {**data["model"]["vocab"], **{t["content"]: t["id"] for t in data["added_tokens"]}}
    assert sorted(vocab.values()) == list(range(len(vocab))), "ids must be 0..n-1"
    tokens = [None] * len(vocab)
    for text, i in vocab.items():
        tokens[i] = text
    types = [gguf.TokenType.NORMAL] * len(tokens)
    for t in data["added_tokens"]:
        types[t["id"]] = gguf.TokenType.CONTROL if t["special"] else gguf.TokenType.USER_DEFINED
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    w = gguf.GGUFWriter(path, "qwen2")
    # The hyper-parameters llama.cpp reads even for a vocabulary-only load.
    w.add_context_length(256)
    w.add_embedding_length(8)
    w.add_feed_forward_length(16)
    w.add_block_count(1)
    w.add_head_count(1)
    w.add_head_count_kv(1)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(kind)
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(vocab["<|endoftext|>"])
    w.add_eos_token_id(vocab["<|im_end|>"])
    w.add_add_bos_token(False)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draftbench", required=True)
    ap.add_argument("--root", required=True, help="the checkout (for scripts/check_tokenizer.py)")
    ap.add_argument("--count", type=int, default=2000)
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(a.root, "scripts"))
    import check_tokenizer

    corpus = check_tokenizer.test_strings(4000, seed=7, specials=[])  # a different seed from the checked strings
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("qwen2", "llama-bpe", "gpt-2"):
            tok = train(kind, corpus)
            json_path, gguf_path = os.path.join(tmp, f"{kind}.json"), os.path.join(tmp, f"{kind}.gguf")
            write_gguf(write_tokenizer_json(tok, kind, json_path, corpus), kind, gguf_path)
            for model, oracle in ((json_path, "tokenizers"), (gguf_path, "llama.cpp")):
                equal, count, round_trips = check_tokenizer.compare(a.draftbench, model, a.count, seed=1)
                ok = equal == count and round_trips == count
                failures += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {kind:9} vs {oracle:10}: {equal}/{count} equal ids, "
                      f"{round_trips}/{count} round trips")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
