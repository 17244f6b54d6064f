#!/usr/bin/env python3
"""No folder includes a layer above it.

The layers, lowest first; a folder may include its own files and those of every folder
below it (what LAYERS lists for it, and what those may include, transitively):

  kernels/              hot loops over pointers and shapes; nothing of models
  engine/common/        errors, input checks and files, atomic writes, SHA-256  (DB_CHECK: kernels)
  engine/tokenizer/     text to ids and back                                    (common)
  engine/model/         GGUF, weights, the forward passes, the KV cache         (tokenizer: a model owns one)
  engine/decoding/      the decoding loop, verification, sampling, the Drafter interface, costs
  engine/drafters/      the drafters behind that interface, the registry, the axis table
  engine/train/         distillation data and the trainer                      (drafters)
  datasets/, reports/   prompt sets; report.json and its tables                 (common)
  experiments/          specs, sweeps, the point runner                         (drafters, datasets, reports)
  app/                  the draftbench command: the one folder over every other

tests/ and scripts/ sit outside the layers and may include anything. The CMake targets
follow the same order (draftbench_common, draftbench_engine, draftbench_train_data,
draftbench_datasets, draftbench_reports, draftbench_experiments, draftbench_cli), but
every target sees the whole source tree on its include path, so a wrong include would
compile while it names only header-only code: hence this check.

Scanned: every C++/CUDA source under the layer folders, its `#include "..."` lines
(quoted includes name paths from the repository root). A source in a folder no layer
claims is a finding too, so that a new folder is placed before it is used.

  scripts/check_layering.py [--root DIR]   exit 0 when every include goes down or sideways
                                           within its folder; 1 with one line per finding
  scripts/check_layering.py --self-test    the check on a made-up tree with one bad include
                                           of each kind: exit 0 when it finds exactly those
"""

import argparse
import os
import re
import sys
import tempfile

# Each folder and the folders directly below it.
LAYERS = {
    "kernels": [],
    "engine/common": ["kernels"],
    "engine/tokenizer": ["engine/common"],
    "engine/model": ["engine/tokenizer"],
    "engine/decoding": ["engine/model"],
    "engine/drafters": ["engine/decoding"],
    "engine/train": ["engine/drafters"],
    "datasets": ["engine/common"],
    "reports": ["engine/common"],
    "experiments": ["engine/drafters", "datasets", "reports"],
    "app": ["engine/train", "experiments"],
}
# Top-level folders whose sources are checked; sources elsewhere under them need a layer.
ROOTS = ("kernels", "engine", "datasets", "reports", "experiments", "app")
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layer_of(path):
    """The layer folder holding `path` (a path from the repository root), or None."""
    best = None
    for folder in LAYERS:
        if (path == folder or path.startswith(folder + "/")) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def allowed_below(layers):
    """Per folder, every folder it may include; raises on a cycle in the table itself."""
    below = {}

    def visit(folder, trail):
        if folder in trail:
            raise ValueError("the layer table has a cycle: " + " -> ".join(trail + [folder]))
        if folder not in below:
            reach = set()
            for lower in layers[folder]:
                reach.add(lower)
                reach |= visit(lower, trail + [folder])
            below[folder] = reach
        return below[folder]

    for folder in layers:
        visit(folder, [])
    return below


def sources(root):
    for top in ROOTS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def findings(root, layers=LAYERS):
    below = allowed_below(layers)
    out = []
    for path in sources(root):
        layer = layer_of(path)
        if layer is None:
            out.append(f"{path}: in no layer (add its folder to LAYERS in scripts/check_layering.py)")
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                if target.split("/")[0] not in ROOTS:
                    continue  # tests/support, a third-party header: not a layer's
                target_layer = layer_of(target)
                if target_layer == layer or target_layer in below[layer]:
                    continue
                allowed = ", ".join(sorted(below[layer])) or "nothing"
                out.append(f"{path}:{number}: includes {target}, from {target_layer or 'no layer'}, "
                           f"which is not below {layer} (it may include {allowed})")
    return out


def self_test():
    """The check on a made-up tree: good includes pass, each kind of bad one is found."""
    files = {
        "kernels/ops/norm.h": '#include "kernels/runtime/check.h"\n',
        "kernels/runtime/check.h": "",
        "engine/common/error.h": '#include "kernels/runtime/check.h"\n',
        "engine/model/model.h": '#include "engine/common/error.h"\n#include "engine/tokenizer/tokenizer.h"\n',
        "engine/tokenizer/tokenizer.h": '#include "engine/common/error.h"\n',
        "engine/decoding/decoder.h": '#include "engine/model/model.h"\n#include <vector>\n',
        "engine/drafters/medusa/medusa.h": '#include "engine/decoding/decoder.h"\n#include "kernels/ops/norm.h"\n',
        "reports/report.cpp": '#include "engine/common/error.h"\n#include "kernels/ops/norm.h"\n',
        "app/main.cpp": '#include "engine/drafters/medusa/medusa.h"\n#include "reports/report.cpp"\n',
        # Bad: a lower layer reaching up, a sibling, a layer two above, and no layer at all.
        "engine/common/bad_up.cpp": '#include "engine/model/model.h"\n',
        "engine/decoding/bad_cycle.h": '// the cycle this check exists for\n#include "engine/drafters/medusa/medusa.h"\n',
        "reports/bad_sibling.cpp": '#include "datasets/prompts.h"\n',
        "datasets/prompts.h": "",
        "kernels/bad_app.h": '#include "app/main.cpp"\n',
        "engine/orphan/thing.cpp": "",
    }
    expected = [
        "engine/common/bad_up.cpp:1: includes engine/model/model.h",
        "engine/decoding/bad_cycle.h:2: includes engine/drafters/medusa/medusa.h",
        "engine/orphan/thing.cpp: in no layer",
        "kernels/bad_app.h:1: includes app/main.cpp",
        "reports/bad_sibling.cpp:1: includes datasets/prompts.h",
    ]
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        got = sorted(findings(root))
    ok = len(got) == len(expected) and all(g.startswith(e) for g, e in zip(got, expected))
    try:
        allowed_below({"a": ["b"], "b": ["a"]})
        ok = False
        print("self-test: a cyclic layer table was accepted")
    except ValueError:
        pass
    if not ok:
        print("self-test: expected findings starting with\n  " + "\n  ".join(expected) + "\ngot\n  " + "\n  ".join(got))
        return 1
    print(f"self-test: the check found the {len(expected)} planted findings and nothing else")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    found = findings(os.path.abspath(args.root))
    for line in found:
        print(line)
    if found:
        print(f"check_layering: {len(found)} include(s) against the layer order (scripts/check_layering.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
