#!/bin/bash
# run_play_tables.sh — two owners at one table with `kdapp play --open` and
# `kdapp play --join ID` ($KDAPP), issue 39: one engine and devnet (`kdapp
# up`) on one data directory, and two key directories, each owner's
# `kdapp play` with its own embedded gateway attached to it:
#
#   1. owner A opens hold'em (one hand), owner B joins with its own key;
#      both play their own seats to the end and print the same result and
#      digest, and neither key directory holds the other's key;
#   2. owner A opens tic-tac-toe as O (X open); B's --join with a taken or
#      unknown seat is refused, then B takes X with --seat X=random and
#      stops after one move (--max-moves 1); `kdapp play --episode ID` with
#      B's keys resumes B's seat alone and both finish with one digest;
#   3. a table opened with --join-timeout 1 closes once the chain passes
#      its deadline (the games above are blocks): its creator's kdapp play
#      says so and exits 1, a join says so and exits 2; a table cancelled
#      through MCP (kdapp_cancel_table) ends its creator's wait the same
#      way (the wait resumed with --episode after a Ctrl-C left the table
#      open), and a join of it, of a full table or of no table is refused;
#   4. option mistakes (--join with --type, --open with --join,
#      --join-timeout alone or over its limit) are refused with exit 2.
set -eu
: "${KDAPP:?KDAPP must name the kdapp binary}"
parent=${KD_TEST_TMP:-/tmp}
mkdir -p "$parent"
work=$(mktemp -d "$parent/tables-XXXXXX")
up=
cleanup() {
    [ -n "$up" ] && kill "$up" 2>/dev/null && wait "$up" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
unset KDAPP_TTT_STRESS KDAPP_TTT_MAX_SYMBOLS KDAPP_DATA KDAPP_KEYS KDAPP_SHOW_PROMPTS

. "$(dirname "$0")/lib_play.sh" # fail
a() { "$KDAPP" play --data "$work/data" --keys "$work/keys-a" --quiet "$@"; }
b() { "$KDAPP" play --data "$work/data" --keys "$work/keys-b" --quiet "$@"; }
# Waits (bounded: 30 s) until file $1 holds a line matching $2.
await() {
    local tries=0
    until grep -q "$2" "$1" 2>/dev/null; do
        tries=$((tries + 1))
        [ $tries -lt 300 ] || fail "no '$2' in $1 within 30 s"
        sleep 0.1
    done
}
# The table id of an --open's output $1.
table_of() { sed -n 's/^another owner joins with: kdapp play --join \([0-9]*\) --data .*$/\1/p' "$1"; }
# Runs "${@:3}", which must exit $1 with stderr naming $2.
refused() {
    local want=$1 text=$2 rc=0
    shift 2
    "$@" >"$work/refused.out" 2>"$work/refused.err" || rc=$?
    [ "$rc" = "$want" ] || fail "$* exited $rc, not $want"
    grep -q "$text" "$work/refused.err" || fail "$*: stderr does not say '$text'"
}

"$KDAPP" up --data "$work/data" >"$work/up.out" 2>"$work/up.err" &
up=$!
await "$work/up.err" "engine and devnet running"

# 3 (first half). A table that waits one DAA score: the games below pass it.
a --open --type tictactoe --join-timeout 1 >"$work/late.out" 2>"$work/late.err" &
late=$!
await "$work/late.out" "joins with"
late_id=$(table_of "$work/late.out")
[ -n "$late_id" ] || fail "late: no join command naming the data directory"

# 1. hold'em, one hand, between two owners
a --open --type holdem --params '{"hand_limit": 1}' --seed 1 >"$work/holdem-a.out" 2>"$work/holdem-a.err" &
pa=$!
await "$work/holdem-a.out" "joins with"
id=$(table_of "$work/holdem-a.out")
[ -n "$id" ] || fail "holdem: no table id"
b --join "$id" --seed 2 >"$work/holdem-b.out" 2>"$work/holdem-b.err" || fail "holdem: the join exited $?"
wait "$pa" || fail "holdem: the opener exited $?"
for f in holdem-a holdem-b; do
    grep -q "^episode $id: seat[01] (.*) won after\|^episode $id: draw after" "$work/$f.out" || fail "$f: no result"
done
[ "$(grep '^digest:' "$work/holdem-a.out")" = "$(grep '^digest:' "$work/holdem-b.out")" ] ||
    fail "holdem: the owners print different digests"
[ "$(grep -o 'seat[01] (.*) won\|draw' "$work/holdem-a.out" | cut -d' ' -f1)" = \
    "$(grep -o 'seat[01] (.*) won\|draw' "$work/holdem-b.out" | cut -d' ' -f1)" ] ||
    fail "holdem: the owners print different results"
grep -q "seat1 another owner's seat" "$work/holdem-a.out" || fail "holdem: A says it played B's seat"
grep -q "seat0 another owner's seat" "$work/holdem-b.out" || fail "holdem: B says it played A's seat"
for f in "$work"/keys-a/*; do
    for g in "$work"/keys-b/*; do
        cmp -s "$f" "$g" && fail "a key of A ($f) is in B's directory"
    done
done
refused 2 "is full: its game has started" b --join "$id"

# 2. tic-tac-toe: A takes O; B's seat mistakes, then X, stopped and resumed
a --open --type tictactoe --seat O=random --seed 3 >"$work/ttt-a.out" 2>"$work/ttt-a.err" &
pa=$!
await "$work/ttt-a.out" "joins with"
id=$(table_of "$work/ttt-a.out")
refused 2 "seat O of table $id is not open" b --join "$id" --seat O
refused 2 "has no seat Z" b --join "$id" --seat Z
b --join "$id" --seat X=random --seed 4 --max-moves 1 >"$work/ttt-b.out" 2>"$work/ttt-b.err" ||
    fail "ttt: the join exited $?"
grep -q "^resume: kdapp play --episode $id --data .* --keys .*keys-b$" "$work/ttt-b.out" ||
    fail "ttt: no resume line for B's seat"
b --episode "$id" --seed 5 >"$work/ttt-b2.out" 2>"$work/ttt-b2.err" || fail "ttt: the resume exited $?"
wait "$pa" || fail "ttt: the opener exited $?"
grep -q "X another owner's seat" "$work/ttt-a.out" || fail "ttt: A played X"
grep -q "O another owner's seat" "$work/ttt-b2.out" || fail "ttt: the resume played O"
[ "$(grep '^digest:' "$work/ttt-a.out")" = "$(grep '^digest:' "$work/ttt-b2.out")" ] ||
    fail "ttt: the owners print different digests"

# 3. the late table closed; a cancelled one; no table
rc=0
wait "$late" || rc=$?
[ "$rc" = 1 ] || fail "late: the opener exited $rc, not 1"
grep -q "table $late_id closed unfilled: its deadline, DAA score [0-9]*, passed" "$work/late.err" ||
    fail "late: the opener does not say the deadline passed"
refused 2 "table $late_id closed unfilled at DAA score" b --join "$late_id"
# Ctrl-C while the table waits leaves it open and prints the command that
# waits on (job control on: a background job of a shell without it ignores
# SIGINT); the resumed wait ends when the table is cancelled.
set -m
"$KDAPP" play --data "$work/data" --keys "$work/keys-a" --quiet --open --type tictactoe \
    >"$work/stopped.out" 2>"$work/stopped.err" &
pa=$!
set +m
await "$work/stopped.out" "joins with"
id=$(table_of "$work/stopped.out")
kill -INT "$pa"
rc=0
wait "$pa" || rc=$?
[ "$rc" = 130 ] || fail "stopped: the opener exited $rc after SIGINT, not 130"
grep -q "^resume: kdapp play --episode $id --data .* --keys .*keys-a$" "$work/stopped.out" ||
    fail "stopped: no resume line"
"$KDAPP" play --data "$work/data" --keys "$work/keys-a" --episode "$id" >"$work/cancel.out" 2>"$work/cancel.err" &
pa=$!
await "$work/cancel.out" "waits for players"
printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"kdapp_cancel_table\",\"arguments\":{\"episode_id\":$id}}}" |
    "$KDAPP" mcp --data "$work/data" --keys "$work/keys-a" --grant agent1 --quiet >"$work/cancel-mcp.out" 2>&1 ||
    fail "cancel: kdapp mcp exited $?"
grep -q '"applied":true' "$work/cancel-mcp.out" || fail "cancel: not applied"
rc=0
wait "$pa" || rc=$?
[ "$rc" = 1 ] || fail "cancel: the opener exited $rc, not 1"
grep -q "table $id was cancelled" "$work/cancel.err" || fail "cancel: the opener does not say so"
refused 2 "table $id was cancelled" b --join "$id"
refused 2 "there is no table 4242" b --join 4242

# 4. option mistakes
refused 2 "leave out --type" b --join 4242 --type chess
refused 2 "give one of them" b --join 4242 --open
refused 2 "give it with --open" b --join-timeout 5
refused 2 "1 to 8640000" b --open --join-timeout 8640001
refused 2 "give SEAT=PLAYER" b --seat X
echo "ok: two owners played hold'em and tic-tac-toe at open tables; every refusal named its cause"
