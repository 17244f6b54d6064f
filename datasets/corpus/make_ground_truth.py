#!/usr/bin/env python3
"""Write datasets/corpus/ground_truth.jsonl: human-written text shaped like chat replies.

The text is the docstrings of the standard library of the interpreter that runs this
script (on Debian: /usr/bin/python3 with libpython3.11-stdlib, licence PSF): its Python
modules, plus the built-in and extension modules compiled into the same interpreter.
Docstrings are written by people, ship with the operating system, and need no download,
so the drafter can be checked against text no language model produced. Each docstring
becomes one record: a templated question ("What does json.dumps do in Python?") and the
cleaned docstring as the response.

Deterministic for a given interpreter: modules, members and methods are visited in
sorted order, templates are picked by a hash of the object's name, and identical
docstrings are kept once. Docstrings differ between Python patch releases, so the
committed file is tied to the interpreter recorded in README.md.

Usage: /usr/bin/python3 datasets/corpus/make_ground_truth.py [--out PATH]
"""

import argparse
import contextlib
import hashlib
import importlib
import inspect
import io
import json
import pkgutil
import re
import sys
import sysconfig
import warnings
from collections import Counter
from pathlib import Path

sys.dont_write_bytecode = True
from corpus_files import write_jsonl  # noqa: E402  (before sys.path is narrowed to the standard library)

HERE = Path(__file__).resolve().parent
STDLIB = Path(sysconfig.get_path("stdlib")).resolve()
# Import only from the standard library: drop the script's folder and site/dist-packages.
sys.path[:] = [p for p in sys.path if p and Path(p).resolve().is_relative_to(STDLIB)
               and "-packages" not in p]

MIN_WORDS, MAX_WORDS = 40, 400
# A docstring whose non-blank lines are more than this share code (doctest prompts,
# signatures, symbol-heavy lines) reads like a code listing, not like an answer.
MAX_CODE_LINE_SHARE = 0.35

# Top-level names never imported, with the reason.
SKIPPED_TOP_LEVEL = {
    # Tests, IDE, GUI and demos: not library documentation, or need a display.
    "test", "idlelib", "tkinter", "turtle", "turtledemo", "lib2to3", "ensurepip", "pydoc_data",
    # Import has side effects: prints the Zen of Python, opens a browser, changes the terminal.
    "this", "antigravity", "readline", "rlcompleter",
    # Codec tables: thousands of near-identical one-line docstrings.
    "encodings",
    # Deprecated in 3.11 (PEP 594 and friends) and slated for removal; distutils in a venv
    # would also be setuptools' copy rather than the standard library's.
    "aifc", "asynchat", "asyncore", "audioop", "cgi", "cgitb", "chunk", "crypt", "distutils", "imghdr",
    "imp", "mailcap", "msilib", "nis", "nntplib", "ossaudiodev", "pipes", "smtpd", "sndhdr", "spwd",
    "sre_compile", "sre_constants", "sre_parse", "sunau", "telnetlib", "uu", "xdrlib",
}
SKIPPED_PARTS = {"test", "tests", "idle_test", "__main__"}

# Questions per kind of object; one is chosen per object by a hash of its dotted name, so
# adding or removing other records never changes an existing record's question.
QUESTIONS = {
    "module": [
        "Explain the purpose of the {module} module.",
        "What is Python's {module} module for?",
        "Give me an overview of the {module} module in the Python standard library.",
        "What does the {module} module provide?",
    ],
    "function": [
        "What does {dotted}() do in Python?",
        "How do I use {dotted}?",
        "Explain the function {dotted} from the Python standard library.",
        "What does the {name} function in the {module} module do?",
        "Can you describe what {dotted} does and how to call it?",
    ],
    "class": [
        "What is the {dotted} class for?",
        "Describe the {name} class from Python's {module} module.",
        "When would I use {dotted}?",
        "Explain what {dotted} represents in Python.",
    ],
    "method": [
        "What does the {name} method of {owner} do?",
        "How does {owner}.{name}() work?",
        "Explain {owner}.{name} in Python's {module} module.",
        "What is {owner}.{name} for?",
    ],
    "property": [
        "What is the {name} attribute of {owner}?",
        "What does {owner}.{name} give me?",
    ],
}

SIGNATURE_LINE = re.compile(r"^\s*[\w.]+\(.*\)\s*(->.*)?$")
# Lines that start structure (bullets, numbered items, "name -- text", "Note: ...", doctest,
# heading underlines, column-aligned tables) rather than continue a sentence; a paragraph
# holding one is left exactly as written.
STRUCTURED_LINE = re.compile(r"^([-*+•]\s|\d+[.)]\s|[\w.]+\s+--?\s|[\w ]{1,30}:(\s|$)|>>>|\.\.\.|[-=~^*#]{3,}[-=~^*#\s]*$|.*\S {3,}\S)")
# Not answer material: maintainers' notes ("XXX TO DO: ...") and copyright/licence notices.
INTERNAL_NOTE = re.compile(r"(^|\s)XXX[\s:]|Copyright|All Rights Reserved", re.IGNORECASE)
# People know these objects by the names they are re-exported under.
DISPLAY_PREFIXES = {"builtins.": "", "posix.": "os."}


def public(name):
    return not name.startswith("_")


def stdlib_module_names():
    """Sorted dotted names of importable public stdlib modules, packages walked recursively."""
    names = []

    def visit(name):
        if any(part in SKIPPED_PARTS or not public(part) for part in name.split(".")):
            return
        module = import_quietly(name)
        if module is None:
            return
        names.append(name)
        for info in pkgutil.iter_modules(getattr(module, "__path__", None) or []):
            visit(f"{name}.{info.name}")

    for top in sorted(sys.stdlib_module_names):
        if public(top) and top not in SKIPPED_TOP_LEVEL:
            visit(top)
    return sorted(names)


def import_quietly(name):
    """The module, or None if it fails to import or does not come from this interpreter's stdlib."""
    sink = io.StringIO()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            warnings.simplefilter("ignore")
            module = importlib.import_module(name)
    except BaseException:  # platform-specific modules raise ImportError, a few raise others
        return None
    source = getattr(module, "__file__", None)
    if source is None:  # compiled into the interpreter itself (builtins, sys, ...)
        return module if name in sys.builtin_module_names else None
    return module if Path(source).resolve().is_relative_to(STDLIB) else None


def documented_member(attr, member):
    """(kind, docstring) for a class attribute worth a record, else None.

    Public methods and properties, plus dunder methods that carry their own docstring
    (an __init__ often documents the constructor's arguments).
    """
    if not (public(attr) or (attr.startswith("__") and attr.endswith("__") and attr != "__doc__")):
        return None
    if isinstance(member, (classmethod, staticmethod)):
        member = member.__func__
    if inspect.isfunction(member) or inspect.ismethoddescriptor(member) or inspect.isbuiltin(member):
        return "method", member.__doc__
    if inspect.isdatadescriptor(member):  # property, or a C getset/member descriptor
        return "property", member.__doc__
    return None


def documented_objects(module_name, module):
    """(kind, dotted name, owner class dotted name or None, raw docstring) in sorted order."""
    yield "module", module_name, None, module.__doc__
    for name, obj in sorted(vars(module).items()):
        # Only objects defined here: re-exports are documented under their own module.
        if not public(name) or getattr(obj, "__module__", None) != module_name:
            continue
        dotted = f"{module_name}.{name}"
        if inspect.isfunction(obj) or inspect.isbuiltin(obj):
            yield "function", dotted, None, obj.__doc__
        elif inspect.isclass(obj):
            yield "class", dotted, None, vars(obj).get("__doc__")
            for attr, member in sorted(vars(obj).items()):
                found = documented_member(attr, member)
                if found:
                    yield found[0], f"{dotted}.{attr}", dotted, found[1]


def is_code_line(line):
    stripped = line.strip()
    if stripped.startswith((">>>", "...", "$ ")) or SIGNATURE_LINE.match(stripped):
        return True
    visible = stripped.replace(" ", "")
    letters = sum(ch.isalpha() for ch in visible)
    return letters < 0.55 * len(visible)


def clean(doc):
    """Cleaned docstring, or None when it is too short, too long, mostly code or a maintainer's note."""
    if not doc or not isinstance(doc, str):
        return None
    text = inspect.cleandoc(doc)
    lines = [line.rstrip() for line in text.splitlines()]
    # A leading call signature (common in C-derived docs) is not prose.
    while lines and SIGNATURE_LINE.match(lines[0]):
        lines.pop(0)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if not MIN_WORDS <= len(text.split()) <= MAX_WORDS or INTERNAL_NOTE.search(text):
        return None
    # Judge code share on the lines as written, before prose lines are joined.
    content = [line for line in text.splitlines() if line.strip()]
    if sum(is_code_line(line) for line in content) > MAX_CODE_LINE_SHARE * len(content):
        return None
    return unwrap_paragraphs(text)


def unwrap_paragraphs(text):
    """Join hard-wrapped prose lines so paragraphs read like a chat reply.

    Only paragraphs made entirely of unindented, unstructured lines are joined; lists,
    argument tables, indented code and doctest blocks keep their line breaks.
    """
    paragraphs = text.split("\n\n")
    for index, paragraph in enumerate(paragraphs):
        lines = paragraph.split("\n")
        prose = all(line and not line[0].isspace() and not STRUCTURED_LINE.match(line) for line in lines[1:])
        if len(lines) > 1 and prose and not lines[0][:1].isspace() and not lines[0].endswith("::"):
            paragraphs[index] = re.sub(r" {2,}", " ", " ".join(line.strip() for line in lines))
    return "\n\n".join(paragraphs)


def question(kind, dotted, owner, module_name):
    choices = QUESTIONS[kind]
    pick = int(hashlib.sha256(dotted.encode("utf-8")).hexdigest(), 16) % len(choices)
    shown, owner, module_shown = (display_name(name) for name in (dotted, owner, module_name + "."))
    return choices[pick].format(module=module_shown.rstrip(".") or module_name, dotted=shown,
                                name=dotted.rsplit(".", 1)[-1], owner=owner)


def display_name(dotted):
    """The everyday name: "builtins.str.split" -> "str.split", "posix.listdir" -> "os.listdir"."""
    for prefix, replacement in DISPLAY_PREFIXES.items():
        if dotted and dotted.startswith(prefix):
            return replacement + dotted[len(prefix):]
    return dotted


def build_records():
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    records, seen = [], set()
    for module_name in stdlib_module_names():
        module = sys.modules[module_name]
        for kind, dotted, owner, doc in documented_objects(module_name, module):
            text = clean(doc)
            if text is None:
                continue
            key = re.sub(r"\s+", " ", text)
            if key in seen:  # e.g. a docstring copied onto an override or a sibling module
                continue
            seen.add(key)
            records.append({
                "id": f"g{len(records) + 1:06d}",
                "source": f"{version} stdlib docstring: {dotted}",
                "prompt": question(kind, dotted, owner, module_name),
                "response": text,
                "_kind": kind,
            })
    return records


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "ground_truth.jsonl")
    args = parser.parse_args()
    records = build_records()
    written = write_jsonl(args.out, ({k: v for k, v in record.items() if not k.startswith("_")} for record in records))
    kinds = Counter(r["_kind"] for r in records)
    modules = len({r["source"].split(": ")[1].split(".")[0] for r in records})
    words = sum(len(r["response"].split()) for r in records)
    print(f"interpreter: {sys.executable} {sys.version.split()[0]}, stdlib {STDLIB}")
    print(f"records: {len(records)} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}) "
          f"from {modules} top-level modules")
    print(f"response words: {words:,} total, {words / len(records):.0f} mean")
    print(f"wrote {args.out} ({written})")


if __name__ == "__main__":
    main()
