"""Writing a corpus file: JSON lines (UTF-8, unescaped, "\\n" endings, as the README's
checksums were taken), and the size-and-checksum note every generator prints."""

import hashlib
import json


def write_jsonl(path, rows):
    """Writes one JSON object per row to path; returns "N bytes, sha256 HEX" for the log."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return f"{path.stat().st_size:,} bytes, sha256 {hashlib.sha256(path.read_bytes()).hexdigest()}"
