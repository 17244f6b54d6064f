#!/usr/bin/env bash
# scripts/train_drafters.sh --drafters takes only drafters the script makes: another name is
# one line naming it and the accepted ones, and exit 2, before any work is done.
set -uo pipefail
cd "$(dirname "$0")/../.."
# A missing model: should the check not come first, the script stops at once all the same.
out=$(MODEL=/nonexistent/model.gguf scripts/train_drafters.sh --drafters eagle,hydra 2>&1)
rc=$?
echo "$out"
[[ $rc -eq 2 ]] || { echo "FAIL: exit $rc, expected 2"; exit 1; }
[[ $(wc -l <<<"$out") -eq 1 ]] || { echo "FAIL: more than one line"; exit 1; }
grep -q "'hydra' is not a drafter of this script (expected some of: redrafter,medusa,eagle,redrafter-ground-truth)" <<<"$out" ||
  { echo "FAIL: the line does not name the bad drafter and the accepted ones"; exit 1; }
echo "ok"
