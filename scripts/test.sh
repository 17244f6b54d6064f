#!/usr/bin/env bash
# The README's test command: set up (with the reference-check packages), build, and run the
# suite. ctest's summary is the last thing printed. Labels (tests/README.md):
#   scripts/test.sh               everything but the `exhaustive` label: what CI runs
#   scripts/test.sh --quick       the `quick` label only, the tests that need no real model:
#                                 the inner loop, at most 3 minutes after a build
#   scripts/test.sh --exhaustive  everything, the `exhaustive` label too (the full reference
#                                 prompt set and the like)
# Other arguments go to ctest as they are (-R REGEX, --rerun-failed, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
select=(-LE '^exhaustive$')
case "${1:-}" in
  --quick) select=(-L '^quick$'); shift ;;
  --exhaustive) select=(); shift ;;
esac
scripts/setup.sh --tests
ctest --preset release -j2 --timeout 1800 "${select[@]}" "$@"
