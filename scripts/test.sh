#!/usr/bin/env bash
# The README's test command: set up (with the reference-check packages), build, and run
# the whole suite. ctest's summary is the last thing printed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
ctest --preset release -j2 --timeout 1800
