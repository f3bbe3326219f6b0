#!/usr/bin/env bash
# bench_perft.sh — `kdapp bench --only perft` end to end: nodes/s of each
# registered type with the depth grown, a fixed depth, and the --peer
# protocol against small shell peers (the type, depth and params in the
# environment; the same count gives the ratio line, a different count, a
# failing peer, one with no result line or one past --peer-timeout fail
# the bench), --peer-target, and the usage errors.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
# the bench's sockets live in its scratch directory: KD_TEST_TMP is short
# enough for their paths (tests/CMakeLists.txt)
T=$(mktemp -d "${KD_TEST_TMP:-/tmp}/bench-perft.XXXXXX")
trap 'rm -rf "$T"' EXIT
unset KDAPP_TTT_STRESS KDAPP_TTT_MAX_SYMBOLS KDAPP_PERFT_TYPE KDAPP_PERFT_DEPTH KDAPP_PERFT_PARAMS

# Each registered type, its depth grown until a count takes about 0.2 s.
out=$("$KDAPP" bench --only perft --quick --repeats 1)
echo "$out"
# --quick marks every line as a smoke test
grep -v '^$' <<<"$out" | grep -qv '^\[quick: smoke test, not a measurement\] ' && fail "a quick line without the mark"
out=$(sed 's/^\[quick: smoke test, not a measurement\] //' <<<"$out")
for t in tictactoe fourinarow; do
  grep -Eq "^perft $t from the start position, depth [0-9]+: [0-9]+ nodes" <<<"$out" || fail "no perft line for $t"
done
# tic-tac-toe's tree ends at depth 9 (depth 10 counts 0): the growth keeps 9,
# or stops sooner where a count takes 0.2 s (a loaded machine, a sanitizer
# build); whichever depth, its published count.
[[ $out =~ perft\ tictactoe\ from\ the\ start\ position,\ depth\ ([0-9]+):\ ([0-9]+)\ nodes ]] || fail "tictactoe line"
counts=(1 9 72 504 3024 15120 54720 148176 200448 127872)
(( BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= 9 )) || fail "tictactoe depth ${BASH_REMATCH[1]}"
[[ ${BASH_REMATCH[2]} == "${counts[BASH_REMATCH[1]]}" ]] || fail "tictactoe depth ${BASH_REMATCH[1]}: ${BASH_REMATCH[2]} nodes"
grep -Eq '^  kdapp-c +[0-9]+ nodes/s, best of 1 run' <<<"$out" || fail "no nodes/s line"
grep -Eq '^0 targets missed, 0 too noisy to judge' <<<"$out" || fail "no summary"

# A peer that knows four-in-a-row's counts and checks what it is given.
cat >"$T/peer.sh" <<'SH'
#!/bin/sh
[ "$KDAPP_PERFT_TYPE" = fourinarow ] || { echo "type '$KDAPP_PERFT_TYPE'" >&2; exit 4; }
[ -z "${KDAPP_PERFT_PARAMS+x}" ] || { echo "params set without --params" >&2; exit 4; }
echo "peer warming up"
case $KDAPP_PERFT_DEPTH in
  4) echo "nodes 2401 seconds 0.5" ;;
  5) echo "nodes ${WRONG:-16807} seconds 0.5" ;;
  *) exit 5 ;;
esac
SH
chmod +x "$T/peer.sh"
out=$("$KDAPP" bench --only perft --type four-in-a-row --perft-depth 5 --repeats 2 --peer "$T/peer.sh")
echo "$out"
grep -q '^perft fourinarow from the start position, depth 5: 16807 nodes' <<<"$out" || fail "peer: no perft line"
grep -Eq '^  peer +33614 nodes/s, best of 2 runs \(0.5 s' <<<"$out" || fail "peer: its nodes/s"
grep -Eq '^  ratio ours/peer [0-9.]+ \(min [0-9.]+, max [0-9.]+ over 2 pairs, spread [0-9]+%\)$' <<<"$out" || fail "peer: no ratio line"

# A target: met against a slow peer, SHORT (and counted) against a fast one.
out=$("$KDAPP" bench --only perft --type fourinarow --perft-depth 4 --repeats 1 --peer "$T/peer.sh" --peer-target 1.5)
grep -Eq 'ratio ours/peer [0-9.]+ \(min [0-9.]+, max [0-9.]+ over 1 pairs, spread 0%\), target >= 1.50: met' <<<"$out" || fail "target met: $out"
out=$("$KDAPP" bench --only perft --type fourinarow --perft-depth 4 --repeats 1 \
  --peer 'echo nodes 2401 seconds 0.000000001' --peer-target 2)
grep -q 'target >= 2.00: SHORT' <<<"$out" || fail "target short: $out"
grep -q '^1 target missed,' <<<"$out" || fail "short target not counted: $out"

# The params reach the peer as compact JSON.
out=$("$KDAPP" bench --only perft --type tictactoe --params '{"cap": 3}' --perft-depth 5 --repeats 1 \
  --peer '[ "$KDAPP_PERFT_PARAMS" = "{\"cap\":3}" ] && echo nodes 18144 seconds 1')
grep -q '^perft tictactoe from {"cap":3}, depth 5: 18144 nodes' <<<"$out" || fail "params: $out"

# Failures: exit 1 with the reason on stderr.
expect_fail() {
  local want=$1; shift
  set +e; err=$("$KDAPP" bench --only perft --type fourinarow --repeats 2 "$@" 2>&1 >/dev/null); rc=$?; set -e
  [[ $rc == 1 ]] || fail "bench $* exited $rc"
  [[ $err == *"$want"* ]] || fail "bench $*: '$err' lacks '$want'"
}
expect_fail "perft fourinarow: MISMATCH at depth 5: kdapp-c counts 16807 nodes, the peer 16806" \
  --perft-depth 5 --peer "WRONG=16806 $T/peer.sh"
expect_fail "exited with status 5" --perft-depth 3 --peer "$T/peer.sh"
expect_fail "printed no line 'nodes N seconds S'" --perft-depth 3 --peer 'echo 27 nodes'
# a peer that hangs is stopped at --peer-timeout, with what it started
start=$SECONDS
expect_fail "did not finish within 1 s (--peer-timeout): stopped" --perft-depth 3 --peer-timeout 1 \
  --peer "sleep 61; echo nodes 343 seconds 1"
(( SECONDS - start < 30 )) || fail "the peer timeout took $((SECONDS - start)) s"
for cmdline in /proc/[0-9]*/cmdline; do
  [[ $(tr '\0' ' ' <"$cmdline" 2>/dev/null) != "sleep 61 " ]] || fail "the timed-out peer's child still runs"
done

expect_usage() {
  local want=$1; shift
  set +e; err=$("$KDAPP" bench "$@" 2>&1 >/dev/null); rc=$?; set -e
  [[ $rc == 2 ]] || fail "bench $* exited $rc"
  [[ $err == *"$want"* ]] || fail "bench $*: '$err' lacks '$want'"
}
expect_usage "need --type" --only perft --peer true
expect_usage "--peer-target needs --peer" --only perft --type fourinarow --peer-target 3
expect_usage "engine, mcp, latency, fanout, perft or duties" --only games
expect_usage "1 to 64" --only perft --perft-depth 65
# The chess.js peer (tools/bench/peers/chessjs_perft.mjs) speaks the protocol:
# the published counts from the start and from a FEN in the params, errors
# on bad input. Skipped when node or chess.js (npm ci in tests/client) is missing.
peer=${KD_SOURCE_DIR:-$(dirname "$0")/../..}/tools/bench/peers/chessjs_perft.mjs
client=${KD_SOURCE_DIR:-$(dirname "$0")/../..}/tests/client
if command -v node >/dev/null && [[ -f $client/node_modules/chess.js/package.json ]]; then
  out=$(KDAPP_PERFT_DEPTH=3 node "$peer")
  [[ $out =~ ^nodes\ 8902\ seconds\ [0-9.]+$ ]] || fail "chess.js start depth 3: $out"
  kiwipete='{"fen": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"}'
  out=$(KDAPP_PERFT_DEPTH=2 KDAPP_PERFT_PARAMS=$kiwipete node "$peer")
  [[ $out == "nodes 2039 seconds "* ]] || fail "chess.js kiwipete depth 2: $out"
  out=$(node "$peer" 0 '{}')
  [[ $out == "nodes 1 seconds "* ]] || fail "chess.js depth 0: $out"
  set +e; err=$(node "$peer" 1 '{"fen": "not a fen"}' 2>&1); rc=$?; set -e
  [[ $rc == 2 && $err == *"the FEN is not valid"* ]] || fail "chess.js bad FEN: $rc $err"
  # When this kdapp has a chess type: its counts against chess.js's through
  # the bench (from the start and from Kiwipete, shallow: the agreement,
  # not the speed; tools/scripts/bench_chess.sh measures that).
  if "$KDAPP" perft chess --depth 0 >/dev/null 2>&1; then
    out=$("$KDAPP" bench --only perft --type chess --perft-depth 3 --repeats 1 --peer "node '$peer'")
    grep -q '^perft chess from the start position, depth 3: 8902 nodes' <<<"$out" || fail "chess vs chess.js: $out"
    out=$("$KDAPP" bench --only perft --type chess --params "$kiwipete" --perft-depth 2 --repeats 1 --peer "node '$peer'")
    grep -q ', depth 2: 2039 nodes' <<<"$out" || fail "chess vs chess.js, Kiwipete: $out"
  else
    echo "no chess type in this kdapp: its comparison with chess.js skipped"
  fi
else
  echo "skipped the chess.js peer: node or tests/client/node_modules/chess.js is missing"
fi
echo "bench perft ok"
