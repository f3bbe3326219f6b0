#!/usr/bin/env bash
# compact.sh — `kdapp compact` on a store grown by real games: refused (exit
# 2, saying by whom) while the daemon runs or a gateway is attached; then
# the file shrinks, every record is the same (log, list, tip, `kdapp
# verify`), and the daemon resumes on it and commits new games.
source "$(dirname "$0")/lib.sh"
data="$T/data"
bg up "$KDAPP" up --data "$data" --block-ms 20 --quiet
up=$BG_PID
wait_for 20 file_has "$T/up.err" "devnet" || fail "kdapp up did not start"
for s in 1 2 3; do
  "$KDAPP" play --data "$data" --type chess --seed "$s" --max-moves 60 --quiet >/dev/null || fail "game $s"
done

# A gateway attached to the daemon reads the store itself, and goes on
# holding it open after the daemon stops, until its stdin ends.
mkfifo "$T/gw.in"
exec 3<>"$T/gw.in"
# Its own command redirects its stdin (bash gives a background job
# /dev/null otherwise) and drops fd 3, so this shell is the fifo's only writer.
bg gw bash -c 'exec "$0" mcp --stdio --data "$1" <"$2" 3>&-' "$KDAPP" "$data" "$T/gw.in"
gw=$BG_PID
wait_for 20 file_has "$T/gw.err" "attached to the engine" || fail "the gateway did not attach"

rc=0
"$KDAPP" compact --data "$data" >"$T/busy.out" 2>"$T/busy.err" || rc=$?
((rc == 2)) || fail "compact beside the daemon exited $rc, expected 2"
grep -q "in use by process $up" "$T/busy.err" || fail "the refusal does not name pid $up: $(cat "$T/busy.err")"
kill -TERM "$up"
wait_exit 20 "$up" || fail "kdapp up did not stop"

rc=0
"$KDAPP" compact --data "$data" >"$T/read.out" 2>"$T/read.err" || rc=$?
((rc == 2)) || fail "compact beside an attached gateway exited $rc, expected 2"
grep -q "open for reading" "$T/read.err" || fail "the refusal does not say a reader has it: $(cat "$T/read.err")"
exec 3>&-
wait_exit 20 "$gw" || fail "the gateway did not stop at the end of its input"

"$KDAPP" log --data "$data" >"$T/log.before"
"$KDAPP" list --data "$data" >"$T/list.before"
"$KDAPP" stats --data "$data" | head -n 1 >"$T/tip.before"
size_before=$(stat -c %s "$data/data.mdb")
"$KDAPP" compact --data "$data" >"$T/compact.out" 2>"$T/compact.err" || fail "compact: $(cat "$T/compact.err")"
grep -q "compacted" "$T/compact.out" || fail "compact printed no summary"
size_after=$(stat -c %s "$data/data.mdb")
((size_after < size_before)) || fail "data.mdb did not shrink: $size_before -> $size_after bytes"
[[ ! -e $data/data.mdb.compacting ]] || fail "the copy is left beside data.mdb"
"$KDAPP" log --data "$data" | cmp -s - "$T/log.before" || fail "the log changed"
"$KDAPP" list --data "$data" | cmp -s - "$T/list.before" || fail "the episode list changed"
"$KDAPP" stats --data "$data" | head -n 1 | cmp -s - "$T/tip.before" || fail "the tip changed"
"$KDAPP" verify --data "$data" >"$T/verify.out" 2>&1 || fail "verify after compact: $(cat "$T/verify.out")"

bg up2 "$KDAPP" up --data "$data" --block-ms 20 --quiet
wait_for 20 file_has "$T/up2.err" "devnet" || fail "kdapp up did not start on the compacted store"
"$KDAPP" play --data "$data" --type chess --seed 4 --max-moves 40 --quiet >/dev/null || fail "a game after compact"
(($("$KDAPP" log --data "$data" | wc -l) > $(wc -l <"$T/log.before"))) || fail "no new log entry after compact"
echo "PASS: kdapp compact ($size_before -> $size_after bytes)"
