#!/usr/bin/env bash
# Fails, listing the files, when a tracked C++ or CUDA source differs from what clang-format
# makes of it with the repository's .clang-format. `scripts/check_format.sh --fix` rewrites
# them in place. Needs clang-format 14 (Debian: clang-format-14; scripts/setup.sh --tests).
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
[[ ${1:-} == --fix ]] && fix=1
fmt=$(command -v clang-format-14 || command -v clang-format || true)
[[ -n $fmt ]] || { echo "check_format: clang-format not found (apt install clang-format-14)" >&2; exit 2; }
[[ $("$fmt" --version) == *" 14."* ]] || { echo "check_format: $fmt is not clang-format 14 ($("$fmt" --version))" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh')
if ((fix)); then
  "$fmt" -i --style=file "${files[@]}"
  exit 0
fi
# One clang-format process for every file (one per file spent 15 s starting up); each
# difference it reports starts with "FILE:LINE:COL: error:".
status=0
errors=$("$fmt" --style=file --dry-run --Werror "${files[@]}" 2>&1 >/dev/null) || status=$?
mapfile -t bad < <(grep -oP '^.+?(?=:[0-9]+:[0-9]+: error: )' <<<"$errors" | sort -u)
if ((status != 0 && ${#bad[@]} == 0)); then
  echo "check_format: $fmt failed: $errors" >&2
  exit 2
fi
if ((${#bad[@]})); then
  echo "check_format: ${#bad[@]} file(s) differ from .clang-format (fix: scripts/check_format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files match .clang-format"
