#!/usr/bin/env python3
"""Every test of the configured suite carries one of the labels that select it (quick, model
or slow; tests/README.md), so that `scripts/test.sh --quick` and the default run between them
leave no test out, and `quick` never holds a test that needs the real model.

Usage: check_labels.py --build BUILD_DIR
Exits 1, naming each test, if a test has none of the labels, or quick together with model.
"""
import argparse
import json
import subprocess
import sys

SELECTING = {"quick", "model", "slow"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    a = ap.parse_args()
    listing = subprocess.run(["ctest", "--test-dir", a.build, "--show-only=json-v1"], capture_output=True, text=True)
    if listing.returncode != 0:
        sys.exit(f"check_labels: ctest --show-only failed: {listing.stderr.strip()}")
    tests = json.loads(listing.stdout).get("tests", [])
    bad = []
    for test in tests:
        labels = set()
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels.update(prop["value"])
        if not labels & SELECTING:
            bad.append(f"{test['name']}: no label of {sorted(SELECTING)} (labels: {sorted(labels)})")
        elif {"quick", "model"} <= labels:
            bad.append(f"{test['name']}: labelled both quick and model")
    for line in bad:
        print(line)
    print(f"check_labels: {len(tests)} tests, {len(bad)} unlabelled or mislabelled")
    if not tests or bad:
        sys.exit(1)


if __name__ == "__main__":
    main()
