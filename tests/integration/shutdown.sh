#!/usr/bin/env bash
# shutdown.sh — SIGTERM and SIGINT stop every daemon cleanly (exit 0,
# "stopped cleanly"), and `kdapp watch` too; the engine even in the middle
# of a feed: it finishes the transaction in progress, and after a restart
# the feed completes with the digest of an uninterrupted run.
source "$(dirname "$0")/lib.sh"
ingest="ipc://$T/ingest.ipc"
views="ipc://$T/views.ipc"

# An idle engine, SIGTERM and SIGINT.
for sig in TERM INT; do
  start_engine engine "$T/idle" "$ingest" "$views"
  kill -"$sig" "$ENGINE_PID"
  wait_exit 20 "$ENGINE_PID" || fail "engine ignored SIG$sig"
  ((EXIT_CODE == 0)) || fail "engine exited $EXIT_CODE on SIG$sig"
  file_has "$T/engine.err" "stopped cleanly" || fail "engine did not report a clean stop on SIG$sig"
done

# SIGTERM in the middle of a feed.
awk -v seed=11 -v blocks=200 -v episodes=4 -f "$(dirname "$0")/gen_script.awk" >"$T/script.jsonl"
"$KDAPP" feed --quiet --data "$T/ref" "$T/script.jsonl" >"$T/ref.out"
start_engine engine "$T/data" "$ingest" "$views"
bg feed "$KDAPP" feed --connect "$ingest" "$T/script.jsonl"
feed_pid=$BG_PID
wait_for 30 at_least 20 "$T/feed.out" "^line" || fail "the feed did not start"
kill -TERM "$ENGINE_PID"
wait_exit 20 "$ENGINE_PID" || fail "engine ignored SIGTERM during a feed"
((EXIT_CODE == 0)) || fail "engine exited $EXIT_CODE on SIGTERM during a feed"
file_has "$T/engine.err" "stopped cleanly" || fail "no clean stop during a feed"
start_engine engine "$T/data" "$ingest" "$views"
wait_exit 60 "$feed_pid" || fail "the feed did not finish after the restart"
((EXIT_CODE == 0)) || fail "the feed exited $EXIT_CODE"
[[ $(last_digest "$T/feed.out") == "$(last_digest "$T/ref.out")" ]] || fail "digest differs after a clean restart"
kill -TERM "$ENGINE_PID"
wait_exit 20 "$ENGINE_PID" || fail "engine did not stop"

# kdapp up and kdapp devnet.
bg up "$KDAPP" up --data "$T/up"
up_pid=$BG_PID
wait_for 20 file_has "$T/up.err" "engine and devnet running" || fail "kdapp up did not start"
kill -INT "$up_pid"
wait_exit 20 "$up_pid" || fail "kdapp up ignored SIGINT"
((EXIT_CODE == 0)) || fail "kdapp up exited $EXIT_CODE"
file_has "$T/up.err" "stopped cleanly" || fail "kdapp up did not stop cleanly"

bg devnet "$KDAPP" devnet --data "$T/dn" --engine "$ingest" --listen "ipc://$T/devnet.ipc"
dn_pid=$BG_PID
wait_for 20 file_has "$T/devnet.err" "a block every" || fail "devnet did not start"
kill -TERM "$dn_pid"
wait_exit 20 "$dn_pid" || fail "devnet ignored SIGTERM"
((EXIT_CODE == 0)) || fail "devnet exited $EXIT_CODE"
file_has "$T/devnet.err" "stopped cleanly" || fail "devnet did not stop cleanly"
# kdapp watch, waiting in a receive with nothing to show: the signal ends
# the receive (no poll), with or without a publisher at the other end.
for sig in TERM INT; do
  bg watch "$KDAPP" watch --connect "ipc://$T/nobody.ipc"
  w_pid=$BG_PID
  wait_for 20 file_has "$T/watch.err" "waiting for it" || fail "watch did not start"
  kill -"$sig" "$w_pid"
  wait_exit 20 "$w_pid" || fail "watch ignored SIG$sig"
  ((EXIT_CODE == 0)) || fail "watch exited $EXIT_CODE on SIG$sig"
done
echo "PASS: clean shutdown"
