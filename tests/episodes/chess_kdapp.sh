#!/usr/bin/env bash
# chess_kdapp.sh — chess end to end through the `kdapp` CLI: perft against
# the chessprogramming wiki's published counts (the start position to depth
# 5, each suite position to the depth that takes a second or two), a block
# script (created, played, a move refused with the type's own code
# in_check, a block reverted, the log verified, the board shown), the
# simulator against its oracle, and a search player against a random one
# through the (embedded) MCP gateway with reorgs, then verify.
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
data="$T/data"

fail() { echo "FAIL: $*" >&2; exit 1; }

# perft FEN DEPTH:COUNT ... ("" is the standard position)
perft() {
  local fen=$1
  shift
  for pair in "$@"; do
    local depth=${pair%%:*} want=${pair##*:} out
    if [[ -z $fen ]]; then
      out=$("$KDAPP" perft chess --depth "$depth")
    else
      out=$("$KDAPP" perft chess --depth "$depth" --params "{\"fen\": \"$fen\"}")
    fi
    echo "$out"
    grep -qw "$want" <<<"$out" || fail "perft chess '$fen' depth $depth: want $want, got: $out"
  done
}

# --- perft: the chessprogramming wiki's positions 1-6
perft "" 1:20 2:400 3:8902 4:197281 5:4865609
perft "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1" 1:48 2:2039 3:97862 4:4085603
perft "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1" 1:14 2:191 3:2812 4:43238 5:674624 6:11030083
perft "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1" 1:6 2:264 3:9467 4:422333 5:15833292
perft "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8" 1:44 2:1486 3:62379 4:2103487
perft "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10" 1:46 2:2079 3:89890 4:3894594

# --- a block script: 1. e4 f5 2. Qh5+, a reply that leaves the king in
# check refused, g6 blocks, 3. Qxg6+ reverted
cat >"$T/chess.jsonl" <<'JSONL'
{"accept": {"hash": "b1", "txs": [{"new_episode": {"id": 1, "type": "chess", "participants": ["test:alice", "test:bob"]}}]}}
{"accept": {"hash": "b2", "txs": [{"command": {"episode": 1, "signer": "test:alice", "uci": "e2e4"}}, {"command": {"episode": 1, "signer": "test:bob", "uci": "f7f5"}}, {"command": {"episode": 1, "signer": "test:alice", "uci": "d1h5"}}]}}
{"accept": {"hash": "b3", "txs": [{"command": {"episode": 1, "signer": "test:bob", "uci": "a7a6"}}, {"command": {"episode": 1, "signer": "test:bob", "move": "g7g6"}}]}}
{"accept": {"hash": "b4", "txs": [{"command": {"episode": 1, "signer": "test:alice", "uci": "h5g6"}}]}}
{"revert": "b4"}
JSONL
"$KDAPP" feed --data "$data" "$T/chess.jsonl" >"$T/feed.out" || fail "feed: $(cat "$T/feed.out")"
show=$("$KDAPP" show --data "$data" --json 1)
grep -q '"fen": *"rnbqkbnr/ppppp2p/6p1/5p1Q/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 0 3"' <<<"$show" ||
  fail "show after the revert: the FEN after 2... g6: $show"
grep -q '"turn": *"w"' <<<"$show" || fail "show: white to move: $show"
grep -q '"san": *"g6"' <<<"$show" || fail "show: the last move in SAN: $show"
"$KDAPP" log --data "$data" | grep -q in_check || fail "the log stores the code in_check"
"$KDAPP" verify --data "$data" >/dev/null || fail "verify"
text=$(LC_ALL=C "$KDAPP" show --data "$data" 1)
grep -q '  a b c d e f g h' <<<"$text" || fail "show draws the board with file labels: $text"
grep -q '^8 r n b q k b n r 8' <<<"$text" || fail "show draws rank 8 in ASCII: $text"
text=$(LC_ALL=C.UTF-8 "$KDAPP" show --data "$data" 1)
grep -q '^1 ♖ ♘ ♗ \. ♔ ♗ ♘ ♖ 1' <<<"$text" || fail "show draws Unicode pieces under a UTF-8 locale: $text"

# --- the simulator with its oracle, chess only
"$KDAPP" sim --type chess --steps 300 --seed 1 >"$T/sim.out" || fail "sim: $(tail -5 "$T/sim.out")"
grep -q 'mismatches *0' "$T/sim.out" || fail "sim mismatches: $(cat "$T/sim.out")"

# --- a search player against a random one through the MCP gateway, with
# reorgs, then the log replays exactly
"$KDAPP" play --data "$T/play" --type chess --seat white=search --seat black=random --depth 2 --seed 2 \
  --reorg-every 7 --max-moves 160 --quiet >"$T/play.out" || fail "play: $(cat "$T/play.out")"
grep -Eq 'white|black|draw' "$T/play.out" || fail "play names the result: $(cat "$T/play.out")"
"$KDAPP" verify --data "$T/play" >/dev/null || fail "verify after play"
echo "chess end to end: ok"
