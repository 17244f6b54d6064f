#!/usr/bin/env python3
"""The device path end to end through the CLI, on the default model, with the CUDA kernels
run by the grid emulator (--device emulated): `generate` with the shipped ReDrafter yields
exactly the emulated pass's autoregressive tokens, and accepts drafts; `bench decode` and a
sweep (`device:` in the spec) run there and say so in their JSON and report; a GPU asked
for where there is none, and an unknown device, are one-line errors."""
import argparse, json, os, subprocess, sys, tempfile

PROMPT = "The capital of France is"
NEW_TOKENS = "10"


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)


def generate(a, *extra):
    r = run([a.draftbench, "generate", "--prompt", PROMPT, "--max-new-tokens", NEW_TOKENS, "--ignore-eos", "--json", *extra])
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--draftbench", required=True)
    a = p.parse_args()

    base = generate(a, "--device", "emulated", "--drafter", "autoregressive")
    # Fixed sizes: automatic sizing would first calibrate a cost model on the emulator, which
    # measures the emulator, not a device, and takes minutes.
    spec = generate(a, "--device", "emulated", "--drafter", "redrafter", "--sizing", "fixed")
    cpu = generate(a, "--device", "cpu", "--drafter", "autoregressive")
    assert base["device"] == "emulated" and spec["device"] == "emulated" and cpu["device"] == "cpu", (base, spec, cpu)
    assert len(base["tokens"]) == int(NEW_TOKENS), base
    assert spec["tokens"] == base["tokens"], ("ReDrafter on the emulated device is not its greedy decoding", spec["tokens"], base["tokens"])
    assert spec["metrics"]["tokens_per_step"] > 1.0, spec["metrics"]  # drafts were accepted through the device cache
    # Not required (the device attention sums in another order), reported for the record.
    print(f"emulated device: {base['tokens']}; cpu {'the same' if cpu['tokens'] == base['tokens'] else cpu['tokens']}; "
          f"ReDrafter tokens/step {spec['metrics']['tokens_per_step']:.2f}")

    bench = run([a.draftbench, "bench", "decode", "--device", "emulated", "--prompt-tokens", "8", "--gen-tokens", "4", "--repeats", "1", "--json"])
    assert bench.returncode == 0, bench.stderr
    b = json.loads(bench.stdout)
    assert b["device"] == "emulated" and b["decode_tokens_per_s"]["median"] > 0 and b["prefill_tokens_per_s"]["median"] > 0, b

    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        spec_path = os.path.join(tmp, "device.yaml")
        with open(spec_path, "w") as f:
            f.write(f"""schema_version: 1
name: device
device: emulated
chat: false
datasets:
  - {{name: mt, path: {root}/datasets/mt_bench_style/question.jsonl, limit: 1}}
sweep:
  drafter: [autoregressive, redrafter]
  sizing: fixed
  max_new_tokens: 6
warmup: 0
""")
        out = os.path.join(tmp, "out")
        r = run([a.draftbench, "run", spec_path, "--out", out])
        assert r.returncode == 0, r.stderr
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        assert report["environment"]["device"] == "emulated", report["environment"]
        points = report["points"]
        assert [pt["status"] for pt in points] == ["ok", "ok"] and all(pt["device"] == "emulated" for pt in points), points
        redrafter = next(pt for pt in points if pt["drafter"] == "redrafter")
        assert redrafter["same_tokens_as_baseline"] is True, redrafter

        # A GPU sweep's Slurm job array asks each task for a GPU; a CPU one does not.
        for device, gres in (("cuda", True), ("emulated", False)):
            with open(spec_path) as f:
                text = f.read()
            with open(spec_path, "w") as f:
                f.write(text.replace("device: emulated", f"device: {device}").replace("device: cuda", f"device: {device}"))
            r = run([a.draftbench, "run", spec_path, "--emit-slurm", "--slurm-shards", "2", "--out", os.path.join(tmp, "slurm-" + device)])
            assert r.returncode == 0, r.stderr
            with open(os.path.join(tmp, "slurm-" + device, "slurm.sh")) as f:
                assert ("#SBATCH --gres=gpu:1" in f.read()) == gres, device

    # Errors: one line naming what was wrong, a non-zero exit.
    cuda = run([a.draftbench, "generate", "--prompt", PROMPT, "--device", "cuda", "--max-new-tokens", "2"])
    if cuda.returncode != 0:  # no GPU here (a GPU machine decodes)
        lines = cuda.stderr.strip().splitlines()
        assert len(lines) == 1 and "CUDA" in lines[0], cuda.stderr
    bad = run([a.draftbench, "generate", "--prompt", PROMPT, "--device", "gpu"])
    assert bad.returncode != 0 and "--device: gpu not in {cpu,cuda,emulated}" in bad.stderr, bad.stderr
    print("ok")


if __name__ == "__main__":
    main()
