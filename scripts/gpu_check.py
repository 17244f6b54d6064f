#!/usr/bin/env python3
"""The GPU check: one command that says whether draftbench's CUDA path is right on this
machine and how fast it is. scripts/gpu_check.sh calls it (inside the bundle that
scripts/gpu_bundle.sh writes, or from a checkout); `--emulated` rehearses the same
sequence through `--device emulated` on a machine without a GPU.

Steps, in order of importance, each under its own timeout and all inside one budget
(a step the budget does not reach is recorded as not run, never as passed):
  facts        nvidia-smi, driver and toolkit versions, compute capability, libraries
  model        a random-weight GGUF with the real model's shapes (draftbench make-model),
               or the model given with --model
  cuda_tests   every CUDA test binary; on a GPU machine a test that reports itself
               skipped (exit 77) is a failure; the device forward-pass test also runs
               the model's quantised products
  lossless     greedy generate on the device: autoregressive, then each trained drafter
               with `drafter init` weights and the n-gram drafter, token-identical to the
               autoregressive device run
  logits       the device's first-step logits against the CPU's (largest absolute
               difference, argmax agreement) and the share of greedy tokens that agree
  bench_decode pp/tg tokens/s on the device and on the CPU
  kernel_bench the CUDA Google Benchmark suite, JSON in the regression gate's format
  sanitizers   compute-sanitizer synccheck/racecheck/initcheck on the block-program
               tests, memcheck on the device forward-pass test
  profile      one nsys profile of decode steps, where nsys works

Writes gpu_check.json (the summary) and gpu_check.log (every command and its output)
to the output folder; exit 0 when nothing failed, 1 otherwise. Standard library only:
it runs under any python3."""
import argparse, datetime, glob, json, os, platform, re, shutil, signal, struct, subprocess, sys, tempfile, time

SKIPPED = 77  # the CUDA test binaries' "no CUDA device" exit code (tests/cuda/gpu_test_support.h)
DRAFTERS = ("redrafter", "medusa", "eagle")
# The block programs whose barriers and shared memory the CPU emulation cannot check.
BLOCK_PROGRAM_TESTS = ("tree_acceptance", "top_k", "sampling", "rms_norm", "tree_attention", "beam_packing", "quant_matvec")
SANITIZER_TOOLS = ("synccheck", "racecheck", "initcheck")


class Check:
    """Runs commands under the budget, logs them, and collects the summary."""

    def __init__(self, args, out_dir):
        self.args = args
        self.out_dir = out_dir
        self.log = open(os.path.join(out_dir, "gpu_check.log"), "w")
        self.deadline = time.monotonic() + args.budget_s
        self.summary = {"schema": "draftbench-gpu-check/1", "mode": "emulated" if args.emulated else "gpu",
                        "device": args.device, "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                        "budget_s": args.budget_s, "steps": {}, "failures": [], "incomplete": []}

    def remaining(self):
        return self.deadline - time.monotonic()

    def say(self, text):
        print(text, flush=True)
        self.log.write(text + "\n")
        self.log.flush()

    def run(self, cmd, timeout, env=None, cwd=None):
        """(rc, stdout, stderr, seconds); rc None on a timeout. Output goes to the log."""
        timeout = max(1.0, min(timeout, self.remaining()))
        self.log.write(f"\n$ {' '.join(cmd)}   [timeout {timeout:.0f} s]\n")
        self.log.flush()
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                             env=env, cwd=cwd, start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            rc = None
        seconds = time.monotonic() - t0
        self.log.write(out[-20000:] + ("\n[stderr]\n" + err[-20000:] if err.strip() else "") +
                       f"\n[exit {rc if rc is not None else 'timeout'} after {seconds:.1f} s]\n")
        self.log.flush()
        return rc, out, err, seconds

    def step(self, name, fn):
        """Runs one step; an exception or a budget overrun is recorded, never fatal."""
        if self.remaining() < 5:
            self.summary["steps"][name] = {"status": "not run", "reason": "the budget ran out first"}
            self.summary["incomplete"].append(name)
            self.say(f"[{name}] not run: budget spent")
            return None
        t0 = time.monotonic()
        self.say(f"[{name}] ...")
        try:
            result = fn()
        except StepFailed as e:
            result = {"status": "fail", "reason": str(e)}
        except Exception as e:  # a bug of this script must still leave a summary behind
            result = {"status": "fail", "reason": f"{type(e).__name__}: {e}"}
        result["seconds"] = round(time.monotonic() - t0, 1)
        self.summary["steps"][name] = result
        if result["status"] == "fail":
            self.summary["failures"].append(f"{name}: {result.get('reason', 'see the step')}")
        elif result["status"] in ("timeout", "not run"):
            self.summary["incomplete"].append(name)
        self.say(f"[{name}] {result['status']}" + (f": {result['reason']}" if result.get("reason") else "") +
                 f" ({result['seconds']} s)")
        self.write_summary()  # what is measured survives a kill of the rest
        return result

    def write_summary(self):
        s = self.summary
        s["ok"] = not s["failures"]
        path = os.path.join(self.out_dir, "gpu_check.json")
        with open(path + ".tmp", "w") as f:
            json.dump(s, f, indent=1)
            f.write("\n")
        os.replace(path + ".tmp", path)


class StepFailed(Exception):
    pass


def find_binary(bin_dir, name):
    """bin_dir/name (the bundle), else the first bin_dir/**/name (a build tree)."""
    direct = os.path.join(bin_dir, name)
    if os.access(direct, os.X_OK):
        return direct
    for root, dirs, files in os.walk(bin_dir):
        dirs[:] = [d for d in dirs if d != "CMakeFiles"]
        if name in files and os.access(os.path.join(root, name), os.X_OK):
            return os.path.join(root, name)
    return None


def without_model():
    """The environment without DRAFTBENCH_MODEL: the tests then use their own tiny models."""
    return {k: v for k, v in os.environ.items() if k != "DRAFTBENCH_MODEL"}


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


# ---- steps -------------------------------------------------------------------------------

def facts(c, db):
    f = {"status": "pass", "hostname": platform.node(), "python": platform.python_version(), "kernel": platform.release()}
    with open("/proc/cpuinfo") as cpuinfo:
        models = [l.split(":", 1)[1].strip() for l in cpuinfo if l.startswith("model name")]
    f["cpu"] = {"model": models[0] if models else "unknown", "cores": os.cpu_count()}
    if shutil.which("nvidia-smi"):
        rc, out, _, _ = c.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,compute_cap,clocks.max.sm,clocks.max.mem",
                               "--format=csv,noheader"], 30)
        if rc == 0 and out.strip():
            name, driver, memory, cap, sm, mem = [x.strip() for x in out.strip().splitlines()[0].split(",")]
            f["gpu"] = {"name": name, "driver": driver, "memory": memory, "compute_capability": cap, "max_sm_clock": sm, "max_mem_clock": mem}
        c.run(["nvidia-smi"], 30)
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)
    if nvcc:
        rc, out, _, _ = c.run([nvcc, "--version"], 30)
        m = re.search(r"release ([\d.]+), (V[\d.]+)", out)
        f["cuda_toolkit"] = m.group(0) if m else out.strip().splitlines()[-1:]
    rc, out, _, _ = c.run(["ldd", db], 30)
    missing = [l.split()[0] for l in out.splitlines() if "not found" in l]
    f["libraries"] = {l.split()[0]: l.split("=>")[1].split("(")[0].strip() for l in out.splitlines() if "=>" in l and "not found" not in l}
    manifest = os.path.join(os.path.dirname(db), "..", "MANIFEST.json")
    if os.path.exists(manifest):
        with open(manifest) as m:
            f["bundle"] = json.load(m)
    if missing:
        f.update(status="fail", reason=f"draftbench cannot load {', '.join(missing)}")
    elif not c.args.emulated and "gpu" not in f:
        f.update(status="fail", reason="nvidia-smi reports no GPU")
    c.summary["host"] = {k: f[k] for k in ("hostname", "cpu", "gpu", "cuda_toolkit") if k in f}
    return f


def cuda_tests(c, bin_dir):
    """The GPU test binaries (each against its CPU reference) and the emulation tests."""
    names = sorted({os.path.basename(p) for p in glob.glob(os.path.join(bin_dir, "**", "cuda_*_test"), recursive=True)})
    if not names and not c.args.emulated:  # a build without nvcc has only the emulation tests
        raise StepFailed(f"no cuda_*_test binaries under {bin_dir}")
    tests, counts = [], {"passed": 0, "failed": 0, "skipped": 0, "timeout": 0}
    for name in names:
        # The device forward-pass test also compares the model's quantised products.
        env = dict(os.environ, DRAFTBENCH_MODEL=c.args.model) if c.args.model else without_model()
        rc, out, err, s = c.run([find_binary(bin_dir, name)], 180, env=env)
        if rc is None: result = "timeout"
        elif rc == 0: result = "passed"
        elif rc == SKIPPED: result = "skipped"
        else: result = "failed"
        counts[result] += 1
        tail = (out + err).strip().splitlines()[-1:] or [""]
        tests.append({"name": name, "result": result, "seconds": round(s, 1), "last_line": tail[0][:300]})
    emulation = find_binary(bin_dir, "cuda_emulation_tests")
    if not emulation:
        raise StepFailed(f"no cuda_emulation_tests binary under {bin_dir}")
    else:
        rc, out, err, s = c.run([emulation], 300)
        m = re.search(r"All tests passed \((\d+) assertions? in (\d+) test cases?\)", out) or \
            re.search(r"test cases?:\s*(\d+)\s*\|\s*(\d+) passed", out)
        result = "passed" if rc == 0 else ("timeout" if rc is None else "failed")
        counts[result] += 1
        tests.append({"name": "cuda_emulation_tests", "result": result, "seconds": round(s, 1),
                      "last_line": (m.group(0) if m else (out.strip().splitlines() or [""])[-1])[:300]})
    r = {"status": "pass", "counts": counts, "tests": tests}
    # On a GPU a skip means the tests never reached the device (an old driver looks like
    # "no device"); in the rehearsal every GPU binary must skip and nothing else may.
    bad = counts["failed"] + counts["timeout"] + (0 if c.args.emulated else counts["skipped"])
    if bad:
        r.update(status="fail", reason=", ".join(f"{t['name']} {t['result']}" for t in tests
                                                 if t["result"] in ("failed", "timeout") or (t["result"] == "skipped" and not c.args.emulated)))
    return r


def model_step(c, db, work):
    if c.args.model:
        return {"status": "pass", "path": c.args.model, "source": "given"}
    path = os.path.join(work, f"{c.args.recipe}.gguf")
    rc, out, err, s = c.run([db, "make-model", "--like", c.args.recipe, "--seed", "1", "--out", path], 180)
    if rc != 0:
        raise StepFailed(f"make-model exited {rc}: {err.strip()[-300:]}")
    c.args.model = path
    return {"status": "pass", "path": path, "source": f"make-model --like {c.args.recipe} --seed 1", "bytes": os.path.getsize(path),
            "write_s": round(s, 1)}


def generate(c, db, device, *extra, timeout=180):
    rc, out, err, _ = c.run([db, "generate", "--model", c.args.model, "--device", device, "--prompts-file", c.prompts_file,
                             "--max-new-tokens", str(c.args.new_tokens), "--ignore-eos", "--json", *extra], timeout)
    if rc != 0:
        raise StepFailed(f"generate {' '.join(extra)} on {device} exited {rc}: {err.strip()[-300:]}")
    return json_lines(out)


def lossless(c, db, work):
    """Each drafter's greedy tokens on the device equal autoregressive decoding's there."""
    base = generate(c, db, c.args.device, "--drafter", "autoregressive")
    c.device_tokens = [r["tokens"] for r in base]
    r = {"status": "pass", "prompts": len(base), "new_tokens": c.args.new_tokens, "drafters": {}}
    bad = []
    for kind in DRAFTERS:
        weights = os.path.join(work, f"drafter-{kind}")
        rc, _, err, _ = c.run([db, "drafter", "init", "--model", c.args.model, "--drafter", kind, "--out", weights,
                               "--draft-vocab", str(min(8192, c.args.draft_vocab))], 120)
        if rc != 0:
            bad.append(f"{kind}: drafter init exited {rc}: {err.strip()[-200:]}")
            continue
        try:
            got = generate(c, db, c.args.device, "--drafter", kind, "--drafter-weights", weights, "--batch-size", "2")
        except StepFailed as e:
            bad.append(f"{kind}: {e}")
            continue
        same = [g["tokens"] == b["tokens"] for g, b in zip(got, base)]
        r["drafters"][kind] = {"same_tokens": all(same) and len(got) == len(base),
                               "tokens_per_step": [round(g["metrics"]["tokens_per_step"], 3) for g in got]}
        if not r["drafters"][kind]["same_tokens"]:
            bad.append(f"{kind}: tokens differ from autoregressive decoding on the device")
    # Training-free, and the one drafter whose drafts a random model accepts: it repeats
    # itself, and the lookups find the repeats. A fixed size keeps calibration out of it.
    try:
        got = generate(c, db, c.args.device, "--drafter", "ngram", "--draft-tokens", "8", "--batch-size", "2")
        r["drafters"]["ngram"] = {"same_tokens": [g["tokens"] for g in got] == c.device_tokens,
                                  "tokens_per_step": [round(g["metrics"]["tokens_per_step"], 3) for g in got]}
        if not r["drafters"]["ngram"]["same_tokens"]:
            bad.append("ngram: tokens differ from autoregressive decoding on the device")
    except StepFailed as e:
        bad.append(f"ngram: {e}")
    if bad:
        r.update(status="fail", reason="; ".join(bad))
    return r


def read_floats(path):
    with open(path, "rb") as f:
        data = f.read()
    return struct.unpack(f"<{len(data) // 4}f", data)


def logits(c, db, work):
    """The device's first-step logits against the CPU's, and greedy agreement."""
    rows = []
    for i, ids in enumerate(c.logit_prompts):
        pair = {}
        for device in (c.args.device, "cpu"):
            path = os.path.join(work, f"logits-{i}-{device}.f32")
            rc, _, err, _ = c.run([db, "generate", "--model", c.args.model, "--device", device, "--prompt-ids", ids,
                                   "--max-new-tokens", "1", "--json", "--first-logits-out", path], 120)
            if rc != 0:
                raise StepFailed(f"first logits on {device} exited {rc}: {err.strip()[-300:]}")
            pair[device] = read_floats(path)
        dev, cpu = pair[c.args.device], pair["cpu"]
        if len(dev) != len(cpu) or not dev:
            raise StepFailed(f"logit rows of {len(dev)} and {len(cpu)} values")
        finite = all(v == v and abs(v) != float("inf") for v in dev)
        top = max(range(len(cpu)), key=cpu.__getitem__)
        rows.append({"max_abs_diff": max(abs(a - b) for a, b in zip(dev, cpu)), "max_abs_logit": max(abs(v) for v in cpu),
                     "argmax_agrees": max(range(len(dev)), key=dev.__getitem__) == top, "finite": finite})
    cpu_runs = generate(c, db, "cpu", "--drafter", "autoregressive")
    agree = total = 0
    first_divergence = []
    for d, h in zip(c.device_tokens or [], [x["tokens"] for x in cpu_runs]):
        agree += sum(a == b for a, b in zip(d, h))
        total += max(len(d), len(h))
        first_divergence.append(next((i for i, (a, b) in enumerate(zip(d, h)) if a != b), None))
    r = {"status": "pass", "prompts": len(rows), "max_abs_diff": max(x["max_abs_diff"] for x in rows),
         "max_abs_logit": max(x["max_abs_logit"] for x in rows), "argmax_agreement": sum(x["argmax_agrees"] for x in rows) / len(rows),
         "greedy_token_agreement": agree / total if total else None, "first_divergence": first_divergence}
    # Not bit-identical by design (transcendentals and cuBLASLt's order differ), so the
    # bound is loose: it catches a broken kernel, not rounding.
    if not all(x["finite"] for x in rows):
        r.update(status="fail", reason="non-finite device logits")
    elif r["max_abs_diff"] > c.args.logit_tolerance * max(1.0, r["max_abs_logit"]):
        r.update(status="fail", reason=f"largest difference {r['max_abs_diff']:.4g} over {c.args.logit_tolerance} x the largest logit")
    return r


def bench_decode(c, db):
    r = {"status": "pass", "prompt_tokens": c.args.pp, "gen_tokens": c.args.tg}
    for device in (c.args.device, "cpu"):
        rc, out, err, _ = c.run([db, "bench", "decode", "--model", c.args.model, "--device", device, "--prompt-tokens", str(c.args.pp),
                                 "--gen-tokens", str(c.args.tg), "--repeats", "3", "--json"], 240)
        if rc != 0:
            raise StepFailed(f"bench decode on {device} exited {rc}: {err.strip()[-300:]}")
        j = json.loads(out)
        r[device] = {k: j[k] for k in ("device", "threads", "prefill_tokens_per_s", "decode_tokens_per_s", "peak_rss_bytes") if k in j}
    for key in ("prefill_tokens_per_s", "decode_tokens_per_s"):
        r[f"{key}_ratio"] = round(r[c.args.device][key]["median"] / r["cpu"][key]["median"], 3)
    return r


def find_tool(name, patterns):
    found = shutil.which(name)
    for pattern in patterns:
        found = found or next(iter(sorted(glob.glob(pattern), reverse=True)), None)
    return found


def sanitizers(c, bin_dir):
    if c.args.emulated:
        return {"status": "skip", "reason": "no GPU in the rehearsal"}
    tool = find_tool("compute-sanitizer", ["/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda*/compute-sanitizer/compute-sanitizer",
                                           "/opt/nvidia/*/compute-sanitizer"])
    if not tool:
        raise StepFailed("compute-sanitizer not found")
    # Most delicate first (barriers inside data-dependent branches), so a short budget
    # still covers them; the rest as the budget allows.
    runs = [(t, "tree_acceptance") for t in SANITIZER_TOOLS] + [("memcheck", "device_transformer")]
    runs += [(t, k) for k in BLOCK_PROGRAM_TESTS if k != "tree_acceptance" for t in SANITIZER_TOOLS]
    r = {"status": "pass", "tool": tool, "runs": []}
    for sanitizer, kernel in runs:
        binary = find_binary(bin_dir, f"cuda_{kernel}_test")
        if not binary or c.remaining() < 30:
            r["runs"].append({"tool": sanitizer, "test": kernel, "result": "not run"})
            continue
        rc, out, err, s = c.run([tool, "--tool", sanitizer, "--error-exitcode", "99", "--print-limit", "20", binary],
                                c.args.sanitizer_timeout, env=dict(without_model(), DRAFTBENCH_GPU_TEST_QUICK="1"))
        text = out + err
        m = re.search(r"ERROR SUMMARY: (\d+) error", text) or re.search(r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) error", text)
        errors = int(m.group(1)) if m else None
        result = "timeout" if rc is None else ("clean" if rc == 0 and errors in (0, None) else "errors")
        if rc == SKIPPED: result = "skipped"
        r["runs"].append({"tool": sanitizer, "test": kernel, "result": result, "errors": errors, "seconds": round(s, 1),
                          "first_error": next((l.strip() for l in text.splitlines() if "=========" in l and ("Error" in l or "Race" in l
                                                or "Barrier" in l or "Uninitialized" in l)), None)})
    bad = [x for x in r["runs"] if x["result"] in ("errors", "skipped")]
    if bad:
        r.update(status="fail", reason="; ".join(f"{x['tool']} on {x['test']}: {x['result']}" for x in bad))
    elif any(x["result"] in ("timeout", "not run") for x in r["runs"]):
        r.update(status="timeout", reason="some runs did not finish: " +
                 ", ".join(f"{x['tool']}/{x['test']}" for x in r["runs"] if x["result"] in ("timeout", "not run")))
    return r


def kernel_bench(c, bin_dir):
    bench = find_binary(bin_dir, "cuda_kernel_bench")
    if not bench:
        raise StepFailed("cuda_kernel_bench not found")
    path = os.path.join(c.out_dir, "cuda_kernel_bench.json")
    rc, out, err, s = c.run([bench, "--suite=ci", f"--benchmark_out={path}", "--benchmark_out_format=json"], 180)
    if rc == SKIPPED:
        return {"status": "skip" if c.args.emulated else "fail", "reason": "no CUDA device"}
    if rc != 0:
        raise StepFailed(f"cuda_kernel_bench exited {rc}: {(out + err).strip()[-300:]}")
    with open(path) as f:
        results = json.load(f)
    rows = {b["name"]: {k: b[k] for k in ("real_time", "time_unit", "bytes_per_second", "read_roofline") if k in b}
            for b in results.get("benchmarks", []) if b.get("run_type", "iteration") == "iteration"}
    errors = [b["name"] for b in results.get("benchmarks", []) if b.get("error_occurred")]
    r = {"status": "pass", "json": os.path.basename(path), "benchmarks": rows}
    if errors:
        r.update(status="fail", reason=f"{len(errors)} benchmarks reported errors: {', '.join(errors[:5])}")
    return r


def profile(c, db, work):
    if c.args.emulated:
        return {"status": "skip", "reason": "no GPU in the rehearsal"}
    nsys = find_tool("nsys", ["/usr/local/cuda/bin/nsys", "/opt/nvidia/nsight-systems/*/bin/nsys", "/opt/nvidia/nsight-systems*/bin/nsys",
                              "/opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys"])
    if not nsys:
        return {"status": "unavailable", "reason": "nsys not found"}
    report = os.path.join(work, "decode")
    rc, out, err, _ = c.run([nsys, "profile", "--stats=true", "--force-overwrite=true", "-o", report, db, "bench", "decode", "--model",
                             c.args.model, "--device", c.args.device, "--prompt-tokens", "1", "--gen-tokens", "16", "--repeats", "1"], 180)
    stats = out + err
    if rc != 0 or "cuda_gpu_kern_sum" not in stats and "CUDA Kernel Statistics" not in stats:
        return {"status": "unavailable", "tool": nsys, "reason": f"nsys exited {rc} without kernel statistics: {stats.strip()[-300:]}"}
    with open(os.path.join(c.out_dir, "nsys_stats.txt"), "w") as f:
        f.write(stats)
    return {"status": "pass", "tool": nsys, "stats": "nsys_stats.txt"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="folder with draftbench and the CUDA test binaries (the bundle's bin/, or a build tree)")
    ap.add_argument("--out", required=True, help="folder for gpu_check.json and gpu_check.log")
    ap.add_argument("--emulated", action="store_true", help="rehearse through --device emulated on a short model (no GPU needed)")
    ap.add_argument("--model", help="a real GGUF file instead of the random-weight one make-model writes")
    ap.add_argument("--budget-s", type=float, default=None, help="the whole check's time limit (default 300 on a GPU, 240 emulated)")
    ap.add_argument("--sanitizer-timeout", type=float, default=60, help="per compute-sanitizer run")
    ap.add_argument("--logit-tolerance", type=float, default=0.05, help="largest device-vs-CPU logit difference, relative to the largest logit")
    a = ap.parse_args()
    a.device = "emulated" if a.emulated else "cuda"
    a.recipe = "gemma3-tiny" if a.emulated else "gemma3-270m-q4_k_m"
    a.budget_s = a.budget_s or (240 if a.emulated else 300)
    a.new_tokens = 16 if a.emulated else 64
    a.pp, a.tg = (32, 8) if a.emulated else (512, 128)
    a.draft_vocab = 1024 if a.emulated else 8192
    os.makedirs(a.out, exist_ok=True)
    c = Check(a, a.out)
    db = find_binary(a.bin, "draftbench")
    if not db:
        sys.exit(f"gpu_check: no draftbench binary under {a.bin}")
    with tempfile.TemporaryDirectory(prefix="gpu_check.") as work:
        c.prompts_file = os.path.join(work, "prompts.txt")
        with open(c.prompts_file, "w") as f:
            f.write("The capital of France is\nWrite a short poem about the sea.\n")
        c.logit_prompts = ["2,1000,1001,1002", "2,1500,42,777,901,1200", "2,3000,3001"]
        c.device_tokens = None
        c.step("facts", lambda: facts(c, db))
        if (c.step("model", lambda: model_step(c, db, work)) or {}).get("status") != "pass":
            c.args.model = None
        c.step("cuda_tests", lambda: cuda_tests(c, a.bin))
        if c.args.model:
            c.step("lossless", lambda: lossless(c, db, work))
            c.step("logits", lambda: logits(c, db, work))
            c.step("bench_decode", lambda: bench_decode(c, db))
        c.step("kernel_bench", lambda: kernel_bench(c, a.bin))
        c.step("sanitizers", lambda: sanitizers(c, a.bin))
        if c.args.model:
            c.step("profile", lambda: profile(c, db, work))
    c.summary["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    c.write_summary()
    s = c.summary
    c.say(f"gpu_check: {'OK' if s['ok'] else 'FAILED'}; {len(s['failures'])} failed, {len(s['incomplete'])} incomplete"
          + "".join(f"\n  failed: {x}" for x in s["failures"]) + "".join(f"\n  incomplete: {x}" for x in s["incomplete"]))
    sys.exit(0 if s["ok"] else 1)


if __name__ == "__main__":
    main()
