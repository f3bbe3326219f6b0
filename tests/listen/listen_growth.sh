#!/usr/bin/env bash
# listen_growth.sh — a growing chain: the listener starts at the fixture
# node's sink (an anchor with no txs), follows blocks in batches larger
# than one answer of getVirtualChainFromBlock, takes only the kdapp txs
# (pattern and prefix; a foreign prefix and an id off the pattern are
# dropped; some are in red blocks of a mergeset), and ignores duplicated
# notifications. After each step the
# engine's digest equals that of the same chain fed as a block script.
source "$(dirname "$0")/../integration/lib.sh"
source "$(dirname "$0")/lib_listen.sh"
start_fixture fx
start_listener listen --data "$T/data"
wait_for 20 file_has "$T/listen.out" "^start " || fail "the listener did not anchor at the sink"
converge g0
fx grow 3
converge g1
fx grow 13 # more than one answer's batch (8)
converge g2
grep -q "^accept .*: 1 kdapp tx, 1 applied" "$T/listen.out" || fail "no kdapp tx was applied"
awk '/^accept / && $3 != $6 {bad=1} END{exit bad}' "$T/listen.out" ||
  fail "a kdapp tx was rejected (the noise was not filtered?): $(grep '^accept ' "$T/listen.out")"
grep -q "^accept .*: 2 kdapp txs, 2 applied" "$T/listen.out" || fail "no block accepted a tx of a red block of its mergeset"
fx dup
fx dup
fx grow 1
converge g3
"$KDAPP" show --json --data "$T/data" 1 >"$T/show.out" || fail "episode 1 is missing"
grep -q '"move_count": 5' "$T/show.out" || fail "the game did not get its 5 moves: $(cat "$T/show.out")"
grep -q '"status": "x_won"' "$T/show.out" || fail "X should have won: $(cat "$T/show.out")"
"$KDAPP" stats --data "$T/data" >"$T/stats.out" || fail "kdapp stats failed"
grep -q "lag behind source     0.0 s" "$T/stats.out" || fail "caught up, the lag behind the node's sink should be 0: $(cat "$T/stats.out")"
"$KDAPP" stats --prometheus --data "$T/data" | grep -q "^kdapp_source_lag_seconds 0.000$" || fail "no source lag gauge in /metrics form"
stop_listener
verify_matches
echo "listen_growth: ok"
