#!/usr/bin/env bash
# run_nim_kdapp.sh NIM_KDAPP — Nim end to end through a `kdapp` that
# registers it (nim_kdapp.c): perft, a block script with the generic forms
# (created, played, a move refused with Nim's own code, a block reverted,
# the log verified), the simulator against its oracle, and two random
# players through the MCP gateway.
#
# The command lines below follow issue 12's wording; each is in one place
# so that a change of syntax is a change of one line.
set -euo pipefail
export KDAPP=$1
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
unset KDAPP_NIM_HEAPS
data="$T/data"

fail() { echo "FAIL: $*" >&2; exit 1; }

# --- perft: the counts of move sequences from [3,4,5], computed by
# tests/nim (nt_tuple_count): 12, 113, 810, 4338.
for pair in 1:12 2:113 3:810 4:4338; do
  depth=${pair%%:*} want=${pair##*:}
  out=$("$KDAPP" perft nim --depth "$depth")
  grep -qw "$want" <<<"$out" || fail "perft nim depth $depth: want $want, got: $out"
done
out=$("$KDAPP" perft nim --params '{"heaps": [1, 2]}' --depth 4)
grep -qw 0 <<<"$out" || fail "perft [1,2] depth 4: want 0 (games end), got: $out"
# `kdapp bench --only perft` through the table: from [1,2] every game ends
# by depth 3 (3, 5, 3 sequences), so the grown depth stops there; and a
# peer that agrees.
out=$("$KDAPP" bench --only perft --type nim --params '{"heaps": [1, 2]}' --repeats 1 \
  --peer '[ "$KDAPP_PERFT_TYPE:$KDAPP_PERFT_DEPTH" = nim:3 ] && echo nodes 3 seconds 1')
grep -q '^perft nim from {"heaps":\[1,2\]}, depth 3: 3 nodes' <<<"$out" || fail "bench perft nim: $out"
grep -q '^  ratio ours/peer' <<<"$out" || fail "bench perft nim ratio: $out"

# --- a block script in the generic forms
cat >"$T/nim.jsonl" <<'JSONL'
{"accept": {"hash": "b1", "txs": [{"new_episode": {"id": 1, "type": "nim", "participants": ["test:alice", "test:bob"], "params": {"heaps": [3, 4, 5]}}}]}}
{"accept": {"hash": "b2", "txs": [{"command": {"episode": 1, "signer": "test:alice", "heap": 1, "take": 3}}, {"command": {"episode": 1, "signer": "test:bob", "heap": 3, "take": 9}}]}}
{"accept": {"hash": "b3", "txs": [{"command": {"episode": 1, "signer": "test:bob", "heap": 2, "take": 4}}]}}
{"revert": "b3"}
JSONL
"$KDAPP" feed --data "$data" "$T/nim.jsonl" >"$T/feed.out" || fail "feed: $(cat "$T/feed.out")"
show=$("$KDAPP" show --data "$data" --json 1 | tr -d ' \n')
grep -q '"heaps":\[0,4,5\]' <<<"$show" || fail "show after the revert: $show"
grep -q '"to_move":1,' <<<"$show" || fail "show: second (seat 1) to move: $show"
"$KDAPP" log --data "$data" | grep -q take_too_many || fail "the log stores Nim's code take_too_many"
"$KDAPP" verify --data "$data" >/dev/null || fail "verify"

# --- the simulator with its oracle, Nim only
"$KDAPP" sim --type nim --seed 7 --steps 2000 >"$T/sim.out" || fail "sim --type nim: $(tail -5 "$T/sim.out")"

# --- two random players through the (embedded) MCP gateway
"$KDAPP" play --data "$T/play" --type nim --seat first=random --seat second=random --seed 3 --quiet \
  >"$T/play.out" || fail "play: $(cat "$T/play.out")"
grep -Eq 'first|second' "$T/play.out" || fail "play names the winner: $(cat "$T/play.out")"
echo "nim end to end: ok"
