#!/usr/bin/env python3
"""make-model's qwen2-tiny through the CLI, with no real model: --list shows the recipe,
the file it writes chats (the ChatML template read from the file) and decodes the same
tokens with and without the ngram drafter, as speculative decoding must."""
import argparse, json, os, subprocess, tempfile


def run(cmd, env):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300, env=env)
    assert r.returncode == 0, f"{cmd}: {r.stderr}"
    return r.stdout


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--draftbench", required=True)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, DRAFTBENCH_CACHE=os.path.join(tmp, "cache"))  # the ngram run's cost model stays here
        listed = run([a.draftbench, "make-model", "--list"], env)
        assert any(line.split()[:1] == ["qwen2-tiny"] for line in listed.splitlines()), listed
        model = os.path.join(tmp, "qwen2-tiny.gguf")
        run([a.draftbench, "make-model", "--like", "qwen2-tiny", "--seed", "1", "--out", model], env)
        results = {}
        for drafter in ["autoregressive", "ngram"]:
            out = run([a.draftbench, "generate", "--model", model, "--chat", "--prompt", "hi", "--max-new-tokens", "16", "--threads", "1",
                       "--drafter", drafter, "--json"], env)
            results[drafter] = json.loads(out.splitlines()[0])
        auto, ngram = results["autoregressive"], results["ngram"]
        print(f"qwen2-tiny, --chat 'hi': {len(auto['prompt_ids'])} prompt tokens, {auto['tokens']}")
        assert auto["prompt_tokens"] > 20, auto  # the default system prompt came with the template
        assert auto["tokens"] and auto["tokens"] == ngram["tokens"], (auto["tokens"], ngram["tokens"])
        assert auto["prompt_ids"] == ngram["prompt_ids"]


if __name__ == "__main__":
    main()
