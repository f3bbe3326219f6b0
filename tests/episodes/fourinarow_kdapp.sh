#!/usr/bin/env bash
# fourinarow_kdapp.sh — four-in-a-row end to end through the `kdapp` CLI:
# perft against the published counts, a block script (created, played, a
# drop refused with the type's own code column_full, a block reverted, the
# log verified, the board shown), the simulator against its oracle, and a
# search player against a random one through the (embedded) MCP gateway.
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
data="$T/data"

fail() { echo "FAIL: $*" >&2; exit 1; }

# --- perft: Connect Four's published counts
for pair in 1:7 2:49 3:343 4:2401 5:16807; do
  depth=${pair%%:*} want=${pair##*:}
  out=$("$KDAPP" perft fourinarow --depth "$depth")
  grep -qw "$want" <<<"$out" || fail "perft fourinarow depth $depth: want $want, got: $out"
done

# --- a block script: column 0 filled, a seventh drop refused, a revert
cat >"$T/fiar.jsonl" <<'JSONL'
{"accept": {"hash": "b1", "txs": [{"new_episode": {"id": 1, "type": "fourinarow", "participants": ["test:alice", "test:bob"]}}]}}
{"accept": {"hash": "b2", "txs": [{"command": {"episode": 1, "signer": "test:alice", "column": 0}}, {"command": {"episode": 1, "signer": "test:bob", "column": 0}}, {"command": {"episode": 1, "signer": "test:alice", "column": 0}}, {"command": {"episode": 1, "signer": "test:bob", "column": 0}}, {"command": {"episode": 1, "signer": "test:alice", "column": 0}}, {"command": {"episode": 1, "signer": "test:bob", "column": 0}}]}}
{"accept": {"hash": "b3", "txs": [{"command": {"episode": 1, "signer": "test:alice", "column": 0}}, {"command": {"episode": 1, "signer": "test:alice", "column": 3}}]}}
{"accept": {"hash": "b4", "txs": [{"command": {"episode": 1, "signer": "test:bob", "column": 4}}]}}
{"revert": "b4"}
JSONL
"$KDAPP" feed --data "$data" "$T/fiar.jsonl" >"$T/feed.out" || fail "feed: $(cat "$T/feed.out")"
show=$("$KDAPP" show --data "$data" --json 1 | tr -d ' \n')
grep -q '"move_count":7,' <<<"$show" || fail "show after the revert: 7 moves: $show"
grep -q '"to_move":1,' <<<"$show" || fail "show: yellow (seat 1) to move: $show"
grep -q '"board":\[\[2,0,0,0,0,0,0\],\[1,0,0,0,0,0,0\],\[2,0,0,0,0,0,0\],\[1,0,0,0,0,0,0\],\[2,0,0,0,0,0,0\],\[1,0,0,1,0,0,0\]\]' \
  <<<"$show" || fail "show: the board top to bottom: $show"
"$KDAPP" log --data "$data" | grep -q column_full || fail "the log stores the code column_full"
"$KDAPP" verify --data "$data" >/dev/null || fail "verify"
text=$("$KDAPP" show --data "$data" 1)
grep -q ' 0 1 2 3 4 5 6' <<<"$text" || fail "show draws the board with column labels: $text"

# --- the simulator with its oracle, four-in-a-row only
"$KDAPP" sim --type fourinarow --steps 300 --seed 1 >"$T/sim.out" || fail "sim: $(tail -5 "$T/sim.out")"
grep -q 'mismatches *0' "$T/sim.out" || fail "sim mismatches: $(cat "$T/sim.out")"

# --- a search player against a random one through the MCP gateway, the
# type named as people write it, the seats by their names; then a timed
# search (iterative deepening within 300 ms a move, no deeper than the
# bot's 7 plies) against a fixed-depth one
"$KDAPP" play --data "$T/play" --type four-in-a-row --seat red=search --seat yellow=random --seed 2 --quiet \
  >"$T/play.out" || fail "play: $(cat "$T/play.out")"
grep -Eq 'red|yellow|draw' "$T/play.out" || fail "play names the result: $(cat "$T/play.out")"
grep -Eq '^  red +search .*searched 4\.\.4 plies' "$T/play.out" || fail "play: red searched 4 plies: $(cat "$T/play.out")"
"$KDAPP" play --data "$T/play" --type Four_In_A_Row --seat yellow=search:depth=2 --seat red=search:ms=300 --seed 4 \
  --quiet >"$T/timed.out" || fail "timed play: $(cat "$T/timed.out")"
grep -Eq '^  red +search:ms=300 .*searched [1-7]\.\.[1-7] plies, at most [0-9]+ ms a move$' "$T/timed.out" ||
  fail "timed play: red's depths: $(cat "$T/timed.out")"
grep -Eq '^  yellow +search:depth=2 .*searched 2\.\.2 plies' "$T/timed.out" ||
  fail "timed play: yellow's depth: $(cat "$T/timed.out")"
echo "fourinarow end to end: ok"
