#!/bin/bash
# view_position.sh — a view read from the store shows one position: the log
# entry that changed its episode last, the digest after that entry and the
# chain height after it, never the tip's digest beside an older entry
# (issue 41: "seq 47, with the digest of seq 443"). Episode 7 moves in the
# first two blocks, episode 8 in the next three; `kdapp show --json 7` must
# answer the digest and height that `kdapp log --json` gives its entry, and
# `final` once the blocks after it pass the finality depth.
set -eu
: "${KDAPP:?KDAPP must name the kdapp binary}"
parent=${KD_TEST_TMP:-/tmp}
mkdir -p "$parent"
work=$(mktemp -d "$parent/viewpos-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
unset KDAPP_TTT_STRESS KDAPP_TTT_MAX_SYMBOLS KDAPP_DATA KDAPP_KEYS

cat >"$work/script.jsonl" <<'JSONL'
{"accept": {"hash": "b1", "txs": [{"new_episode": {"id": 7, "type": "tictactoe", "participants": ["test:a", "test:b"]}}]}}
{"accept": {"hash": "b2", "txs": [{"move": {"episode": 7, "row": 0, "col": 0, "player": "X", "signer": "test:a"}}]}}
{"accept": {"hash": "b3", "txs": [{"new_episode": {"id": 8, "type": "tictactoe", "participants": ["test:a", "test:b"]}}]}}
{"accept": {"hash": "b4", "txs": [{"move": {"episode": 8, "row": 1, "col": 1, "player": "X", "signer": "test:a"}}]}}
{"accept": {"hash": "b5", "txs": [{"move": {"episode": 8, "row": 0, "col": 1, "player": "O", "signer": "test:b"}}]}}
JSONL
"$KDAPP" feed --data "$work/d" --keys "$work/k" --finality 3 "$work/script.jsonl" >/dev/null
"$KDAPP" show --json --data "$work/d" 7 >"$work/seven.json"
"$KDAPP" log --json --data "$work/d" >"$work/log.json"
python3 - "$work/seven.json" "$work/log.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
entries = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
at = [e for e in entries if e["seq"] == v["log_seq"]]
assert at, "no log entry %d" % v["log_seq"]
tip = entries[-1]
assert v["log_seq"] < tip["seq"], "episode 7 changed last at the tip: the test shows nothing"
assert v["digest"] == at[0]["digest"], "digest %s is not entry %d's %s (the tip's is %s)" % (
    v["digest"], v["log_seq"], at[0]["digest"], tip["digest"])
assert v["digest"] != tip["digest"]
assert v["height"] == at[0]["height"] == 2, "height %s, entry says %s" % (v["height"], at[0]["height"])
assert v["final"] is True, "block 2 is 3 blocks under the tip at 5, at the finality depth 3: final"
print("view position: ok (entry %d, height %d)" % (v["log_seq"], v["height"]))
PY
"$KDAPP" show --json --data "$work/d" 8 | python3 -c '
import json, sys
v = json.load(sys.stdin)
assert v["height"] == 5 and v["final"] is False, v'
