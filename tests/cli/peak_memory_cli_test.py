#!/usr/bin/env python3
"""The peak memory draftbench reports is its own, not its parent's. Linux carries
ru_maxrss across fork and exec, so a draftbench started by a process holding 2 GiB (as
scripts/bench_vs_llamacpp.py holds llama.cpp's model) would report at least 2 GiB; the
default model's `bench decode` needs about 0.6 GiB."""
import argparse, json, subprocess

PARENT_BYTES = 2 << 30


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--draftbench", required=True)
    a = p.parse_args()
    held = bytearray(PARENT_BYTES)
    for i in range(0, PARENT_BYTES, 4096):  # make it resident, page by page
        held[i] = 1
    r = subprocess.run([a.draftbench, "bench", "decode", "--prompt-tokens", "8", "--gen-tokens", "2", "--repeats", "1",
                        "--threads", "1", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    peak = json.loads(r.stdout)["peak_rss_bytes"]
    print(f"bench decode under a parent holding {PARENT_BYTES >> 20} MiB: peak RSS {peak / 2**20:.0f} MiB")
    assert 0 < peak < PARENT_BYTES * 3 // 4, f"peak RSS {peak} bytes: the parent's size leaked into the child's figure"
    assert held[4096] == 1


if __name__ == "__main__":
    main()
