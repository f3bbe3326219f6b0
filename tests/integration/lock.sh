#!/usr/bin/env bash
# lock.sh — one daemon per data directory: a second `kdapp engine` (or
# `kdapp up`) on the same directory exits 2 and names the process holding
# it; once the first stops, the directory is free again.
source "$(dirname "$0")/lib.sh"
data="$T/data"
start_engine engine "$data" "ipc://$T/ingest.ipc" "ipc://$T/views.ipc"
first=$ENGINE_PID

rc=0
"$KDAPP" engine --data "$data" --ingest "ipc://$T/ingest2.ipc" --publish "ipc://$T/views2.ipc" 2>"$T/second.err" || rc=$?
((rc == 2)) || fail "a second engine exited $rc, expected 2"
grep -q "in use by process $first" "$T/second.err" || fail "the message does not name pid $first: $(cat "$T/second.err")"

rc=0
"$KDAPP" up --data "$data" 2>"$T/up.err" || rc=$?
((rc == 2)) || fail "kdapp up on a locked directory exited $rc, expected 2"
grep -q "in use by process $first" "$T/up.err" || fail "kdapp up does not name pid $first"

# Readers work beside the daemon.
"$KDAPP" log --data "$data" >/dev/null || fail "a read-only reader was locked out"

kill -TERM "$first"
wait_exit 20 "$first" || fail "the engine did not stop"
start_engine engine "$data" "ipc://$T/ingest.ipc" "ipc://$T/views.ipc"
echo "PASS: the data directory lock"
