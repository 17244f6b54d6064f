#!/usr/bin/env python3
"""The README's table of the paper's findings is the one `draftbench report --findings` wrote
into reports/paper-cpu/FINDINGS.md, row for row, so the two cannot drift apart.

Usage: check_readme_findings.py --root CHECKOUT
Exits 1 naming the first row that differs, or when either table is missing.
"""
import argparse
import pathlib
import sys

HEADER = "| # | finding | on this machine |"


def findings_table(path):
    """The rows of the findings table in a Markdown file: its header, then every '|' line."""
    lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    if HEADER not in lines:
        sys.exit(f"check_readme_findings: {path}: no findings table (expected a line '{HEADER}')")
    start = lines.index(HEADER)
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    root = pathlib.Path(a.root)
    readme, findings = root / "README.md", root / "reports" / "paper-cpu" / "FINDINGS.md"
    ours, theirs = findings_table(readme), findings_table(findings)
    for i, (mine, written) in enumerate(zip(ours, theirs)):
        if mine != written:
            sys.exit(f"check_readme_findings: {readme}: table row {i + 1} is\n  {mine}\nbut {findings} has\n  {written}")
    if len(ours) != len(theirs):
        sys.exit(f"check_readme_findings: {readme}: {len(ours)} table rows, {findings} has {len(theirs)}")
    print(f"check_readme_findings: the README's {len(ours) - 2} findings are FINDINGS.md's")


if __name__ == "__main__":
    main()
