#!/usr/bin/env python3
"""`draftbench inspect` prints a model file's strings escaped and cut (issue 62, defect 8):
a general.name holding ANSI escapes, CR/LF and NUL, or 2 MB, reaches the terminal as one
short line of \\xNN escapes, not raw. The file is make-model's gemma3-tiny rewritten by the
gguf package with that name; everything else is copied as it is."""
import argparse, os, subprocess, sys, tempfile

import gguf


def rewrite_with_name(src, dst, name):
    reader = gguf.GGUFReader(src)
    arch = bytes(reader.fields["general.architecture"].parts[-1]).decode()
    writer = gguf.GGUFWriter(dst, arch)
    for key, field in reader.fields.items():
        if key.startswith("GGUF.") or key in ("general.architecture", "general.alignment"):
            continue
        vtype = field.types[0]
        if key == "general.name":
            writer.add_key_value(key, name, gguf.GGUFValueType.STRING)
        elif vtype == gguf.GGUFValueType.ARRAY:
            sub = field.types[-1]
            values = [bytes(field.parts[i]).decode() if sub == gguf.GGUFValueType.STRING else field.parts[i].tolist()[0] for i in field.data]
            writer.add_key_value(key, values, vtype, sub_type=sub)
        elif vtype == gguf.GGUFValueType.STRING:
            writer.add_key_value(key, bytes(field.parts[-1]).decode(), vtype)
        else:
            writer.add_key_value(key, field.parts[-1].tolist()[0], vtype)
    for t in reader.tensors:
        writer.add_tensor(t.name, t.data, raw_dtype=t.tensor_type)  # quantised rows as bytes: the writer derives the shape
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--draftbench", required=True)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tiny = os.path.join(tmp, "tiny.gguf")
        subprocess.run([a.draftbench, "make-model", "--like", "gemma3-tiny", "--out", tiny], check=True, stdout=subprocess.DEVNULL)
        for label, name in [("controls", "evil\x1b[2J\x1b]0;title\x07\r\nname\x00end\x9b"), ("long", "x" * (2 << 20))]:
            hostile = os.path.join(tmp, f"{label}.gguf")
            rewrite_with_name(tiny, hostile, name)
            r = subprocess.run([a.draftbench, "inspect", hostile], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
            assert r.returncode == 0, (label, r.returncode, r.stderr[-2000:])
            out = r.stdout.decode("utf-8")
            assert not any(ord(c) < 32 and c != "\n" or 0x7F <= ord(c) < 0xA0 for c in out), (label, out[:500])
            name_line = next(line for line in out.splitlines() if line.startswith("name: "))
            assert len(name_line) < 300, (label, len(name_line))
            if label == "controls":
                assert "evil\\x1b[2J" in name_line and "\\x0d\\x0aname\\x00end" in name_line, name_line
            else:
                assert f"({2 << 20} bytes in all)" in name_line, name_line
    print("ok: inspect escapes control bytes and cuts a 2 MB name")


if __name__ == "__main__":
    sys.exit(main())
