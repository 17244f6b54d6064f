#!/usr/bin/env python3
"""scripts/check_report_pages.py passes a page set whose links resolve and fails, naming the
link, on a missing plot or page; the rendering step runs where Chromium is installed."""
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "check_report_pages.py"


def check(index):
    return subprocess.run([sys.executable, str(CHECK), str(index)], capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "a").mkdir()
        (tmp / "a" / "plot.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
        (tmp / "a" / "index.html").write_text(
            "<!doctype html><html><body><h1>Report a</h1><table><tr><td>1</td></tr></table><img src=\"plot.svg\"></body></html>")
        (tmp / "index.html").write_text('<!doctype html><html><body><h1>Findings</h1><a href="a/index.html">a</a>'
                                        '<a href="https://example.org/x">outside</a></body></html>')
        good = check(tmp / "index.html")
        assert good.returncode == 0 and "2 page(s)" in good.stdout, good.stdout + good.stderr
        (tmp / "a" / "plot.svg").unlink()
        broken = check(tmp / "index.html")
        assert broken.returncode == 1 and "'plot.svg' points at a missing file" in broken.stderr, broken.stdout + broken.stderr
        (tmp / "index.html").write_text('<!doctype html><html><body><a href="b/index.html">b</a></body></html>')
        bad = check(tmp / "index.html")
        assert bad.returncode == 1 and "no <h1>" in bad.stderr and "'b/index.html' points at a missing file" in bad.stderr, bad.stderr
    print("check_report_pages: resolving links pass; a missing plot, a missing page and a page without a heading fail")


if __name__ == "__main__":
    main()
