#!/usr/bin/env bash
# checkers_kdapp.sh — checkers end to end through the `kdapp` CLI: perft
# against the published counts to depth 8 (timed), perft from a position
# given as params, a block script (created, played, a simple move refused
# with the type's own code capture_required, a block reverted, the log
# verified, the board shown), the simulator against its oracle, and a
# search player against a random one through the embedded MCP gateway with
# reorgs, the log verified afterwards.
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
data="$T/data"

fail() { echo "FAIL: $*" >&2; exit 1; }

# --- perft: English draughts' published counts from the start
for pair in 1:7 2:49 3:302 4:1469 5:7361 6:36768 7:179740 8:845931; do
  depth=${pair%%:*} want=${pair##*:}
  out=$("$KDAPP" perft checkers --depth "$depth")
  grep -qw "$want" <<<"$out" || fail "perft checkers depth $depth: want $want, got: $out"
done
echo "$out" # depth 8: nodes, time and nodes/s
# from a position given as params: a king on d4, a man on b6 (6 moves), black's h2 (1 move)
out=$("$KDAPP" perft checkers --depth 2 \
  --params '{"start": "......../......../.w....../......../...W..../......../.......b/........ w"}')
grep -qw 6 <<<"$out" || fail "perft from a start position: want 6, got: $out"

# --- a block script: b6a5 c3b4, then a simple move refused while a5 must take b4, a revert
cat >"$T/ck.jsonl" <<'JSONL'
{"accept": {"hash": "b1", "txs": [{"new_episode": {"id": 1, "type": "checkers", "participants": ["test:alice", "test:bob"]}}]}}
{"accept": {"hash": "b2", "txs": [{"command": {"episode": 1, "signer": "test:alice", "move": "b6a5"}}, {"command": {"episode": 1, "signer": "test:bob", "move": "c3b4"}}]}}
{"accept": {"hash": "b3", "txs": [{"command": {"episode": 1, "signer": "test:alice", "move": "d6e5"}}, {"command": {"episode": 1, "signer": "test:alice", "move": "a5c3"}}]}}
{"accept": {"hash": "b4", "txs": [{"command": {"episode": 1, "signer": "test:bob", "move": "d2b4"}}]}}
{"revert": "b4"}
JSONL
"$KDAPP" feed --data "$data" "$T/ck.jsonl" >"$T/feed.out" || fail "feed: $(cat "$T/feed.out")"
show=$("$KDAPP" show --data "$data" --json 1 | tr -d ' \n')
grep -q '"move_count":3,' <<<"$show" || fail "show after the revert: 3 moves: $show"
grep -q '"to_move":1,' <<<"$show" || fail "show: black (seat 1) to move: $show"
grep -q '"state_text":".w.w.w.w/w.w.w.w./...w.w.w/......../......../b.w.b.b./.b.b.b.b/b.b.b.b.b"' <<<"$show" \
  || fail "show: the state text: $show"
grep -q '"last_move":"a5c3"' <<<"$show" || fail "show: the last move: $show"
grep -q '"move_rules":{"must_capture":true,"forced_captures":\["b2d4","d2b4"\]}' <<<"$show" \
  || fail "show: black must recapture: $show"
"$KDAPP" log --data "$data" | grep -q capture_required || fail "the log stores the code capture_required"
"$KDAPP" verify --data "$data" >/dev/null || fail "verify"
text=$(LC_ALL=C "$KDAPP" show --data "$data" 1)
grep -q '   a b c d e f g h' <<<"$text" || fail "show draws the board with file labels: $text"
grep -q ' 3 b   w   b   b    3' <<<"$text" || fail "show draws rank 3 in ASCII with its labels: $text"
text=$(LC_ALL=C.UTF-8 "$KDAPP" show --data "$data" 1)
grep -q ' 3 ⛂   ⛀   ⛂   ⛂    3' <<<"$text" || fail "show draws draughts pieces under a UTF-8 locale: $text"

# --- the simulator with its oracle, checkers only
"$KDAPP" sim --type checkers --steps 400 --seed 1 >"$T/sim.out" || fail "sim: $(tail -5 "$T/sim.out")"
grep -q 'mismatches *0' "$T/sim.out" || fail "sim mismatches: $(cat "$T/sim.out")"
grep -q 'capture_required\|square_occupied\|no_piece' "$T/sim.out" || fail "sim: the rules refused: $(cat "$T/sim.out")"

# --- a search player against a random one through the MCP gateway, with reorgs
"$KDAPP" play --data "$T/play" --type checkers --seat white=search --seat black=random --seed 2 \
  --max-moves 200 --reorg-every 7 >"$T/play.out" || fail "play: $(tail -20 "$T/play.out")"
grep -Eq 'white \(search\) won|black \(random\) won|draw' "$T/play.out" || fail "play names the result: $(tail -5 "$T/play.out")"
grep -Eq 'reorgs: [1-9]' "$T/play.out" || fail "play reorganised: $(tail -5 "$T/play.out")"
"$KDAPP" verify --data "$T/play" >"$T/verify.out" || fail "verify after play: $(cat "$T/verify.out")"
echo "checkers end to end: ok"
