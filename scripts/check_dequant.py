#!/usr/bin/env python3
"""Check draftbench's dequantisation of every tensor against gguf-py's reference.

Runs `BIN inspect MODEL --dequantize-all DIR`, which writes DIR/<tensor name>.f32
(raw little-endian float32 in the file's element order, ne0 fastest), and compares
each file with `gguf.quants.dequantize` of the same tensor. Files are checked and
deleted while the binary is still writing, and the binary is paused while the backlog
is large, so disk use stays near the largest tensor plus --max-backlog-mb instead of
the ~1 GB of the whole model in f32.

Exit 0 with `dequant: N tensors checked, max abs diff X`; exit 1 naming the failing
tensors; exit 2 when the binary or model cannot be used at all.

Usage: check_dequant.py --draftbench BIN --model PATH [--workdir DIR]
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

try:
    import gguf
except ImportError:
    sys.exit("check_dequant: the `gguf` package is missing; install scripts/requirements-reference.txt")

# Compare in slices of about this many elements so that the 167M-element
# embedding never needs more than a few hundred MB of temporaries.
CHUNK_ELEMS = 1 << 23


@dataclass
class Tolerance:
    rtol: float
    # Absolute slack as a fraction of the tensor's largest |value|: a fused
    # multiply-add in `d*sc*q - dmin*m` may round differently from numpy's two
    # roundings, and after cancellation the error is relative to the terms, not
    # to the (small) result.
    atol_scale: float


@dataclass
class Outcome:
    max_abs_diff: float
    bad_elems: int
    first_bad: int  # flat index of the first out-of-tolerance element, -1 if none


@dataclass
class Report:
    checked: int = 0
    max_by_type: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)


def die(msg: str, code: int = 2) -> None:
    print(f"check_dequant: {msg}", file=sys.stderr)
    sys.exit(code)


def require_binary(path: str) -> str:
    resolved = shutil.which(path) if os.sep not in path else path
    if not resolved or not os.path.isfile(resolved) or not os.access(resolved, os.X_OK):
        die(f"draftbench binary not found or not executable: {path}")
    return resolved


def tensor_rows(tensor) -> np.ndarray:
    """The tensor's stored data as 2-D rows (quant blocks never cross a row)."""
    data = tensor.data
    return data.reshape(-1, data.shape[-1]) if data.ndim > 1 else data.reshape(1, -1)


def chunk_excess(tensor, ours_all, rows, r0, r1, elems_per_row, rtol):
    """Per-element |ours - ref| and that minus the relative slack, for rows r0..r1."""
    ref = gguf.quants.dequantize(rows[r0:r1], tensor.tensor_type).reshape(-1).astype(np.float32)
    ours = np.asarray(ours_all[r0 * elems_per_row:r1 * elems_per_row])
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(ours.astype(np.float64) - ref.astype(np.float64))
    # NaN on one side only is a failure; NaN on both sides (never in real weights) is not.
    both_nan = np.isnan(ours) & np.isnan(ref)
    diff[np.isnan(diff) & ~both_nan] = np.inf
    diff[both_nan] = 0.0
    ref_abs = np.abs(ref)
    absmax = float(np.max(ref_abs, where=~np.isnan(ref_abs), initial=0.0))
    return diff, diff - rtol * ref_abs, absmax


def compare_tensor(tensor, path: str, tol: Tolerance) -> Outcome:
    rows = tensor_rows(tensor)
    n_rows = rows.shape[0]
    elems_per_row = int(tensor.n_elements) // n_rows
    rows_per_chunk = max(1, CHUNK_ELEMS // elems_per_row)
    chunks = [(r0, min(n_rows, r0 + rows_per_chunk)) for r0 in range(0, n_rows, rows_per_chunk)]
    ours_all = np.memmap(path, dtype="<f4", mode="r")

    # One pass keeps only per-chunk maxima (memory stays bounded); the absolute
    # tolerance depends on the whole tensor's scale, known only at the end.
    max_diff, ref_absmax, chunk_max_excess = 0.0, 0.0, []
    for r0, r1 in chunks:
        diff, excess, absmax = chunk_excess(tensor, ours_all, rows, r0, r1, elems_per_row, tol.rtol)
        max_diff = max(max_diff, float(diff.max(initial=0.0)))
        ref_absmax = max(ref_absmax, absmax)
        chunk_max_excess.append(float(excess.max(initial=-np.inf)))
    atol = tol.atol_scale * ref_absmax

    # Only failing chunks are revisited, to count and locate the bad elements.
    bad, first_bad = 0, -1
    for (r0, r1), worst in zip(chunks, chunk_max_excess):
        if worst <= atol:
            continue
        _, excess, _ = chunk_excess(tensor, ours_all, rows, r0, r1, elems_per_row, tol.rtol)
        mask = excess > atol
        if first_bad < 0:
            first_bad = r0 * elems_per_row + int(np.argmax(mask))
        bad += int(mask.sum())
    del ours_all
    return Outcome(max_diff, bad, first_bad)


def record(tensor, out: Outcome, report: Report) -> None:
    tname = tensor.tensor_type.name
    report.checked += 1
    report.max_by_type[tname] = max(report.max_by_type.get(tname, 0.0), out.max_abs_diff)
    if out.bad_elems:
        report.failures.append(
            f"{tensor.name} ({tname}, shape {list(map(int, tensor.shape))}): {out.bad_elems} "
            f"elements out of tolerance, first at flat index {out.first_bad}, max abs diff {out.max_abs_diff:.3g}")


def file_size(outdir: str, name: str) -> Optional[int]:
    try:
        return os.path.getsize(os.path.join(outdir, name + ".f32"))
    except FileNotFoundError:
        return None


class Writer:
    """The binary's `inspect --dequantize-all` run. It writes far faster than numpy can
    check, so without back-pressure the whole model (~1 GB of f32) would sit on disk at
    once: it is paused (SIGSTOP) while finished, unchecked files exceed the backlog limit.
    Partly written files never count, so a pause cannot wait on itself."""

    def __init__(self, cmd: list, log):
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        self.paused = False

    def running(self) -> bool:
        return self.proc.poll() is None

    def throttle(self, backlog_bytes: int, limit_bytes: int) -> None:
        if not self.running():
            return
        if backlog_bytes > limit_bytes and not self.paused:
            os.kill(self.proc.pid, signal.SIGSTOP)
            self.paused = True
        elif backlog_bytes <= limit_bytes and self.paused:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.paused = False

    def close(self) -> None:
        if self.running():
            if self.paused:
                os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.kill()
            self.proc.wait()


def run(args) -> int:
    binary = require_binary(args.draftbench)
    if not os.path.isfile(args.model):
        die(f"model not found: {args.model}")
    reader = gguf.GGUFReader(args.model)
    tensors = {t.name: t for t in reader.tensors}

    if args.workdir:
        return check_all(args, binary, tensors, args.workdir)
    # A context manager so that the temporary directory also goes when die() exits.
    with tempfile.TemporaryDirectory(prefix="draftbench-dequant-") as workdir:
        return check_all(args, binary, tensors, workdir)


def check_all(args, binary: str, tensors: dict, workdir: str) -> int:
    tol = Tolerance(args.rtol, args.atol_scale)
    expected_bytes = {name: int(t.n_elements) * 4 for name, t in tensors.items()}
    outdir = os.path.join(workdir, "tensors")
    # Stale files from an earlier run would be checked (and deleted) before the binary
    # rewrites them, so start from an empty directory.
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    log_path = os.path.join(workdir, "inspect.log")
    report = Report()
    pending = set(tensors)
    # A file whose content mismatched while the binary was still running may have
    # been read mid-write (e.g. the writer preallocated it): judge it only at exit.
    recheck = set()
    limit = args.max_backlog_mb << 20

    with open(log_path, "wb") as log:
        cmd = [binary, "inspect", args.model, "--dequantize-all", outdir]
        writer = Writer(cmd, log)
        try:
            while True:
                running = writer.running()
                ready = [n for n in sorted(pending) if file_size(outdir, n) == expected_bytes[n]
                         and not (running and n in recheck)]
                backlog = sum(expected_bytes[n] for n in ready)
                writer.throttle(backlog, limit)
                for name in (ready if running else sorted(pending)):
                    path = os.path.join(outdir, name + ".f32")
                    size = file_size(outdir, name)
                    if size is None:
                        continue  # reported as missing below
                    if size != expected_bytes[name]:
                        report.checked += 1
                        report.failures.append(f"{name}: file has {size} bytes, expected {expected_bytes[name]}")
                    else:
                        out = compare_tensor(tensors[name], path, tol)
                        if out.bad_elems and running:
                            recheck.add(name)
                            continue
                        record(tensors[name], out, report)
                    pending.discard(name)
                    os.remove(path)
                    backlog -= size
                    writer.throttle(backlog, limit)
                if not running:
                    break
                time.sleep(0.1)
        finally:
            writer.close()
    proc = writer.proc

    if proc.returncode != 0:
        with open(log_path, "rb") as f:
            tail = f.read().decode(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        die(f"`{' '.join(cmd)}` exited with {proc.returncode}: {tail[0]}", 1)
    for name in sorted(pending):
        report.failures.append(f"{name}: no output file {name}.f32")
    extra = sorted(f for f in os.listdir(outdir) if f[:-4] not in tensors)
    if extra:
        print(f"check_dequant: note: {len(extra)} unexpected files, e.g. {extra[0]}", file=sys.stderr)

    for tname, diff in sorted(report.max_by_type.items()):
        print(f"  {tname:6s} max abs diff {diff:.3g}")
    if report.failures:
        for line in report.failures:
            print(f"FAIL {line}")
        print(f"dequant: {len(report.failures)} of {len(tensors)} tensors FAILED")
        return 1
    overall = max(report.max_by_type.values(), default=0.0)
    print(f"dequant: {report.checked} tensors checked, max abs diff {overall:.3g}")
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draftbench", required=True, help="path to the draftbench binary")
    ap.add_argument("--model", required=True, help="GGUF model file")
    ap.add_argument("--workdir", help="directory for the binary's output (default: a fresh temp dir, removed after)")
    ap.add_argument("--max-backlog-mb", type=int, default=128,
                    help="pause the binary while this much finished output awaits checking")
    ap.add_argument("--rtol", type=float, default=1e-6, help="relative tolerance per element")
    ap.add_argument("--atol-scale", type=float, default=1e-6,
                    help="absolute tolerance as a fraction of the tensor's max |value|")
    sys.exit(run(ap.parse_args()))


if __name__ == "__main__":
    main()
