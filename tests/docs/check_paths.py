#!/usr/bin/env python3
"""Documentation stays self-contained and its paths stay true.

Two checks over the repository's tracked files (`git ls-files`, or a walk of the tree that
skips build/, .venv/ and .git/ when git is unavailable):

1. Every repository path a Markdown file names resolves. Checked are the words of its text,
   code blocks included, whose first component is a top-level directory of the repository
   (resolved from the root), and, inside backticks, also words whose first component is a
   directory beside the Markdown file (resolved from there, as engine/README.md writes
   `model/kv_cache`). A path resolves when it exists as a file or directory, or as a module
   stem (`model/kv_cache` -> model/kv_cache.h or .cpp). Skipped: placeholders (`<name>`,
   `*`, `{a,b}`, `NNNNN`, `$VAR`, `...`), paths git ignores (build trees, downloaded models,
   user-supplied datasets) and `reports/NAME` run outputs, which the documentation describes
   rather than ships.
2. No file cites a design document that lives outside the repository: the design notes the
   code relies on are in engine/DESIGN.md and the READMEs.

Exit status 0 when both hold, 1 with one line per finding otherwise.
"""

import argparse
import os
import re
import subprocess
import sys

# Used when git is unavailable to say which paths are outputs rather than sources.
GENERATED = ("build/", "data/", "datasets/external/", "models/gemma-3-270m-q4_k_m.gguf")

# Out-of-tree design documents, built from parts so that this file does not cite itself.
_MD = r"\.md\b"
OUT_OF_TREE = re.compile(
    "|".join([
        r"\b(?:method|architecture|style)" + _MD,
        r"\b(?:gguf_gemma3|redrafter|medusa_eagle_specbench|draft_sizing|cuda_review)" + _MD,
        r"\breference/[\w.-]+" + _MD,
        r"shared/" + "design",
        r"\.\./" + "shared/",
    ]))

BACKTICK = re.compile(r"`([^`\n]+)`")
PLACEHOLDER = re.compile(r"[<>*{}$\[\]|]|\.\.\.|…|NNN|\s")
TEXT_SUFFIXES = (".cpp", ".h", ".cu", ".cuh", ".md", ".py", ".sh", ".txt", ".yaml", ".yml",
                 ".cmake", ".json", ".expect")
TEXT_NAMES = ("CMakeLists.txt", "run", ".gitignore")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
        files = [f for f in out.stdout.decode("utf-8", "replace").split("\0") if f]
        return [f for f in files if os.path.exists(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            rel = os.path.relpath(dirpath, root)
            dirnames[:] = [d for d in dirnames if not (rel == "." and d in ("build", ".venv", ".git"))]
            for name in filenames:
                files.append(os.path.normpath(os.path.join(rel, name)))
        return files


def resolves(base, candidate):
    path = os.path.normpath(os.path.join(base, candidate.rstrip("/")))
    if os.path.exists(path):
        return True
    directory, stem = os.path.split(path)
    if os.path.isdir(directory):
        return any(os.path.splitext(name)[0] == stem for name in os.listdir(directory))
    return False


def is_output(root, path, tracked_dirs):
    """A path the documentation may name without the repository holding it."""
    parts = path.split("/")
    if parts[0] == "reports" and len(parts) > 1 and f"reports/{parts[1]}" not in tracked_dirs:
        return True  # a run's --out directory
    try:
        ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=root,
                                 capture_output=True).returncode == 0
        return ignored
    except OSError:
        return path.startswith(GENERATED)


def check_doc_paths(root, md_file, top_dirs, tracked_dirs):
    problems = []
    doc_dir = os.path.dirname(os.path.join(root, md_file))
    with open(os.path.join(root, md_file), encoding="utf-8") as f:
        lines = f.read().splitlines()
    for number, line in enumerate(lines, 1):
        quoted = set()
        for span in BACKTICK.findall(line):
            quoted.update(span.split())
        for word in line.replace("`", " ").split():
            word = word.lstrip("(),;:'\"").rstrip("(),;:'\".")  # the sentence's punctuation, in any order
            if "/" not in word or "://" in word or PLACEHOLDER.search(word) or word.startswith("-"):
                continue
            parts = [p for p in word.split("/") if p not in ("", ".")]
            if not parts:
                continue
            if word.startswith("../"):
                up = [p for p in parts if p != ".."]
                if not up or up[0] not in top_dirs:
                    continue  # an example of a name, not a path of this repository
                base = doc_dir
                rel_to_root = os.path.relpath(os.path.normpath(os.path.join(doc_dir, word)), root)
            elif parts[0] in top_dirs:
                base = root
                rel_to_root = os.path.normpath(word)
            elif word in quoted and os.path.isdir(os.path.join(doc_dir, parts[0])):
                base = doc_dir
                rel_to_root = os.path.relpath(os.path.normpath(os.path.join(doc_dir, word)), root)
            else:
                continue  # not a repository path (a ratio, a unit, a name of the user's)
            if resolves(base, word) or is_output(root, rel_to_root, tracked_dirs):
                continue
            problems.append(f"{md_file}:{number}: names '{word}', which does not exist")
    return problems


def check_citations(root, files):
    problems = []
    me = os.path.relpath(os.path.abspath(__file__), root)
    for rel in files:
        if rel == me or not (rel.endswith(TEXT_SUFFIXES) or os.path.basename(rel) in TEXT_NAMES):
            continue
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            m = OUT_OF_TREE.search(line)
            if m:
                problems.append(f"{rel}:{number}: cites '{m.group(0)}', a document outside the repository "
                                f"(write what is needed into engine/DESIGN.md or a README and point there)")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    files = tracked_files(root)
    top_dirs = {f.split("/", 1)[0] for f in files if "/" in f}
    tracked_dirs = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
    problems = []
    for rel in files:
        if rel.endswith(".md"):
            problems += check_doc_paths(root, rel, top_dirs, tracked_dirs)
    problems += check_citations(root, files)
    for p in problems:
        print(p)
    n_md = sum(1 for f in files if f.endswith(".md"))
    print(f"{len(problems)} problem(s) in {n_md} Markdown files and {len(files)} files checked for citations",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
