#!/usr/bin/env bash
# perft_cli.sh — `kdapp perft` end to end: the classic counts, --divide, the
# engine default from the environment, --params, and its usage errors.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$KDAPP" perft tictactoe --depth 4)
echo "$out"
[[ $out =~ ^perft\ tictactoe\ depth\ 4:\ 3024\ nodes\ in\ [0-9.]+\ s\ \([0-9]+\ nodes/s\)$ ]] || fail "depth 4: $out"

out=$("$KDAPP" perft tictactoe --depth 9)
[[ $out == "perft tictactoe depth 9: 127872 nodes in "* ]] || fail "depth 9: $out"
out=$("$KDAPP" perft tictactoe --depth 0)
[[ $out == "perft tictactoe depth 0: 1 nodes in "* ]] || fail "depth 0: $out"

# --divide: one line per first move, summing to the total.
out=$("$KDAPP" perft tictactoe --depth 2 --divide)
lines=$(grep -c ': 8$' <<<"$out") || true
[[ $lines == 9 ]] || fail "divide lines: $out"
grep -q '^perft tictactoe depth 2: 72 nodes' <<<"$out" || fail "divide total: $out"

# The engine default comes from the environment; params override it.
classic=$(KDAPP_TTT_MAX_SYMBOLS=9 "$KDAPP" perft tictactoe --depth 10)
[[ $classic == "perft tictactoe depth 10: 0 nodes"* ]] || fail "classic depth 10: $classic"
stress=$(KDAPP_TTT_STRESS=1 "$KDAPP" perft tictactoe --depth 10)
[[ $stress =~ depth\ 10:\ ([0-9]+)\ nodes ]] || fail "stress: $stress"
(( BASH_REMATCH[1] > 0 )) || fail "stress mode goes on past nine moves: $stress"
p3=$("$KDAPP" perft tictactoe --params '{"cap": 3}' --depth 5)
# 9*8*7 fill the window of three; then 6 free cells a move, no line can form yet
[[ $p3 == "perft tictactoe depth 5: 18144 nodes"* ]] || fail "params cap 3: $p3"

# From a fed position (generic block-script forms), by the view's "state".
T=$(mktemp -d "$KD_TEST_TMP/perft.XXXXXX")
trap 'rm -rf "$T"' EXIT
cat >"$T/game.jsonl" <<'JSONL'
{"accept": {"hash": "p1", "txs": [{"new_episode": {"id": 4, "type": "tictactoe", "participants": ["test:alice", "test:bob"]}}]}}
{"accept": {"hash": "p2", "txs": [{"command": {"episode": 4, "signer": "test:alice", "command": {"row": 1, "col": 1, "player": "X"}}}, {"command": {"episode": 4, "signer": "test:bob", "row": 0, "col": 0}}]}}
JSONL
"$KDAPP" feed --data "$T/data" --quiet "$T/game.jsonl" >/dev/null
state=$("$KDAPP" show --data "$T/data" --json 4 | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
out=$("$KDAPP" perft tictactoe --state "$state" --depth 7)
# X at the centre, O in a corner: 7 cells left, and the counts of that position
[[ $out =~ ^perft\ tictactoe\ depth\ 7:\ ([0-9]+)\ nodes ]] || fail "--state: $out"
out1=$("$KDAPP" perft tictactoe --state "$state" --depth 1)
[[ $out1 == "perft tictactoe depth 1: 7 nodes"* ]] || fail "--state depth 1: $out1"
out2=$("$KDAPP" perft tictactoe --state "$state" --depth 2)
[[ $out2 == "perft tictactoe depth 2: 42 nodes"* ]] || fail "--state depth 2: $out2"

# Usage errors name what is wrong.
expect_usage() {
  local want=$1; shift
  set +e; err=$("$KDAPP" perft "$@" 2>&1 >/dev/null); rc=$?; set -e
  [[ $rc == 2 ]] || fail "perft $* exited $rc"
  [[ $err == *"$want"* ]] || fail "perft $*: '$err' lacks '$want'"
}
expect_usage "TYPE 'go' is not a registered episode type: use one of tictactoe" go --depth 1
expect_usage "--depth 'x' is not valid" tictactoe --depth x
expect_usage "usage: kdapp perft" tictactoe
expect_usage "--params is not JSON" tictactoe --params '{' --depth 1
expect_usage "--state is not valid" tictactoe --state zz --depth 1
expect_usage "does not decode" tictactoe --state 00 --depth 1
expect_usage "not 3" tictactoe --seats 3 --depth 1
echo "perft CLI ok"
