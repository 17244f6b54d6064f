#!/usr/bin/env python3
"""Checks report pages from an index.html: every local link and image resolves, and each page
renders in headless Chromium (when one is installed) with its heading and tables.

    scripts/check_report_pages.py reports/paper-cpu/index.html [--require-browser]

Starting at the given page, it follows every relative href and src (other pages, tables in
Markdown and LaTeX, plots) and fails, naming the page and the link, on any that points at a
missing file. Each HTML page reached is then loaded in headless Chromium (`chromium`,
`chromium-browser` or `google-chrome` on PATH): its rendered DOM must hold the page's <h1>
and as many <table> elements as the file. Without a browser that step is skipped with a
note, unless --require-browser makes it a failure. Exit 0 when everything holds, 1 otherwise.
"""
import argparse
import html.parser
import pathlib
import shutil
import subprocess
import sys
import urllib.parse


class Links(html.parser.HTMLParser):
    """The relative href/src targets of a page, its first <h1> text and its table count."""

    def __init__(self):
        super().__init__()
        self.targets, self.h1, self.tables, self._in_h1 = [], None, 0, False

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables += 1
        if tag == "h1" and self.h1 is None:
            self._in_h1, self.h1 = True, ""
        for name, value in attrs:
            if name in ("href", "src") and value:
                parsed = urllib.parse.urlparse(value)
                if not parsed.scheme and not parsed.netloc and parsed.path:
                    self.targets.append(urllib.parse.unquote(parsed.path))

    def handle_endtag(self, tag):
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data):
        if self._in_h1:
            self.h1 += data


def parse(page):
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def rendered_dom(binary, page):
    done = subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.resolve().as_uri()],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index", type=pathlib.Path)
    parser.add_argument("--require-browser", action="store_true")
    args = parser.parse_args()
    if not args.index.is_file():
        sys.exit(f"check_report_pages: {args.index}: no such page")
    failures, pages, queue = [], {}, [args.index.resolve()]  # pages: path -> its parse
    while queue:
        page = queue.pop()
        if page in pages:
            continue
        info = pages[page] = parse(page)
        if not info.h1:
            failures.append(f"{page}: no <h1>")
        for target in info.targets:
            path = (page.parent / target).resolve()
            if not path.exists():
                failures.append(f"{page}: link '{target}' points at a missing file")
            elif path.suffix == ".html":
                queue.append(path)
    binary = browser()
    if binary is None:
        note = "no headless browser (chromium) on PATH"
        if args.require_browser:
            failures.append(note)
        else:
            print(f"check_report_pages: {note}: rendering not checked", file=sys.stderr)
    else:
        for page, info in pages.items():
            try:
                dom = rendered_dom(binary, page)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                failures.append(f"{page}: Chromium could not render it ({e})")
                continue
            shown = Links()
            shown.feed(dom)
            if info.h1 and info.h1.strip() != (shown.h1 or "").strip():
                failures.append(f"{page}: the rendered page lacks its heading '{info.h1.strip()}'")
            if shown.tables != info.tables:
                failures.append(f"{page}: {info.tables} table(s) in the file, {shown.tables} rendered")
    for f in failures:
        print(f"check_report_pages: {f}", file=sys.stderr)
    rendering = "not rendered" if binary is None else f"rendered in {pathlib.Path(binary).name}"
    print(f"check_report_pages: {len(pages)} page(s) from {args.index}, links checked, {rendering}: "
          f"{'OK' if not failures else f'{len(failures)} problem(s)'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
