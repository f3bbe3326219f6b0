#!/usr/bin/env bash
# dialer_epipe.sh — `kdapp feed --connect` reaches an engine that starts
# after the feed's first connection died in the SP handshake.
#
# The engine's listener takes the feed's connection into its backlog and
# dies before reading the feed's 8-byte SP header (backlog_listener plays
# that engine); strace holds the feed's first sendmsg (that header) for 2 s,
# so it fails with EPIPE. NNG 1.5.2 reports EPIPE as NNG_ECLOSED and its
# dialer then never dials again: before kd_nng_redialer the feed waited in
# nng_send for ever beside the live engine started next (the stall the kill
# harness hit under the sanitizer build). Now it must finish.
#
# Needs strace (tools/scripts/setup.sh installs it) and ptrace of a child; skipped
# (exit 77) where either is missing. Argument: the backlog_listener binary.
source "$(dirname "$0")/lib.sh"
listener=${1:?usage: dialer_epipe.sh BACKLOG_LISTENER}
if ! command -v strace >/dev/null || ! strace -f -o /dev/null true 2>/dev/null; then
  echo "SKIP: strace is missing or cannot trace here"
  exit 77
fi
# In a sanitizer build: LeakSanitizer cannot run under ptrace, so the traced
# feed does without it.
traced_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
sock="$T/ingest.ipc"
cat >"$T/script.jsonl" <<'JSON'
{"accept": {"hash": "b1", "txs": [{"new_episode": {"id": 7, "type": "tictactoe", "participants": ["test:a", "test:b"]}}]}}
JSON

bg listener "$listener" "$sock"
wait_for 20 file_has "$T/listener.out" listening || fail "the listener did not start"
bg feed env ASAN_OPTIONS="$traced_asan" strace -f -qq -o "$T/strace.log" -e trace=connect,sendmsg -e inject=sendmsg:delay_enter=2000000:when=1 \
  "$KDAPP" feed --connect "ipc://$sock" "$T/script.jsonl"
feed_pid=$BG_PID
wait_for 30 file_has "$T/listener.out" closed || fail "the feed never connected to the listener"
wait_for 30 file_has "$T/strace.log" "EPIPE" || fail "the feed's first SP header write did not fail with EPIPE"
start_engine engine "$T/data" "ipc://$sock" "ipc://$T/views.ipc"
wait_exit 30 "$feed_pid" || fail "the feed is stuck after its first connection failed in the handshake"
((EXIT_CODE == 0)) || fail "the feed exited $EXIT_CODE"
# The block is applied exactly once. The feed's own line may say either
# "applied" or "duplicate, already applied": strace delays the first
# sendmsg of every thread (its injection counts per tracee), so the SP
# header of the connection that carries the request can stall for 2 s too;
# the redialer may then replace that dialer just as the request went out,
# and REQ re-sends it on the next connection, which the engine acknowledges
# as a duplicate with the recorded outcome (idempotent by block hash).
grep -q ": applied \|: duplicate, already applied" "$T/feed.out" || fail "the feed did not report the block"
kill -TERM "$ENGINE_PID"
wait_exit 20 "$ENGINE_PID"
"$KDAPP" log --json --data "$T/data" >"$T/log.json"
(($(grep -c . "$T/log.json") == 1)) || fail "the log holds $(grep -c . "$T/log.json") entries, not the one block"
"$KDAPP" list --data "$T/data" | grep -q "^ *7 " || fail "episode 7 was not created"
echo "PASS: the feed re-dialed after a connection that failed in the SP handshake"
