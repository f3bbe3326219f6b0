#!/usr/bin/env bash
# ratings_kdapp.sh — `kdapp ratings` on a real store fed by `kdapp feed`
# (reorgs included), checked against an outsider that recomputes every
# rating from `kdapp log --json` (ratings_check.py); and its bad input.
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
# bad input first: no data directory, an unknown type
if "$KDAPP" ratings --data "$T/none" 2>"$T/err"; then
  echo "FAIL: ratings of a missing data directory succeeded"; exit 1
fi
grep -q "no kdapp data in $T/none" "$T/err" || { cat "$T/err"; echo "FAIL: the missing directory is not named"; exit 1; }
"$KDAPP" feed --data "$T/data" - </dev/null >/dev/null
if "$KDAPP" ratings --data "$T/data" --type nosuchgame 2>"$T/err"; then
  echo "FAIL: an unknown type was accepted"; exit 1
fi
grep -q "unknown episode type 'nosuchgame'; known types: tictactoe" "$T/err" || { cat "$T/err"; exit 1; }
"$KDAPP" ratings --data "$T/data" | grep -q "no rated games yet" || { echo "FAIL: an empty store"; exit 1; }
python3 "$KD_SOURCE_DIR/tests/tools/ratings_check.py" "$KDAPP" "$T"
# --type keeps one type's ratings only
"$KDAPP" ratings --data "$T/data" --type fourinarow --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["ratings"] and all(r["type"] == "fourinarow" for r in j["ratings"]), j
'
"$KDAPP" ratings --data "$T/data"
