#!/usr/bin/env bash
# listen_restart.sh — restarts: the listener stopped (and killed) while the
# node goes on, reorg included, resumes from the engine's stored tip (no
# new anchor, the blocks it had reverted); with a separate `kdapp engine`
# (--engine URL), the engine killed and restarted under a running listener
# (the listener re-sends until acknowledged, nothing applied twice).
source "$(dirname "$0")/../integration/lib.sh"
source "$(dirname "$0")/lib_listen.sh"
start_fixture fx
start_fresh l1 --data "$T/data"
fx grow 4
converge s0
stop_listener
fx grow 2
fx reorg 3 3
start_listener l2 --data "$T/data"
converge s1
file_has "$T/l2.out" "^start " && fail "the restarted listener anchored anew instead of resuming"
(($(count_of "$T/l2.out" "^revert ") == 1)) || fail "the restarted listener should revert the one block it had of the old branch"
kill -9 "$LISTENER_PID"
wait "$LISTENER_PID" 2>/dev/null || true
fx grow 2
start_listener l3 --data "$T/data"
converge s2
stop_listener
verify_matches

# A separate engine daemon, killed and restarted under the listener.
start_engine engine "$T/data" "ipc://$T/ingest.ipc" "ipc://$T/views.ipc"
start_listener l4 --engine "ipc://$T/ingest.ipc"
fx grow 2
converge s3
kill -9 "$ENGINE_PID"
wait "$ENGINE_PID" 2>/dev/null || true
fx grow 3
fx reorg 2 2
start_engine engine "$T/data" "ipc://$T/ingest.ipc" "ipc://$T/views.ipc"
converge s4
stop_listener
kill -TERM "$ENGINE_PID"
wait_exit 15 "$ENGINE_PID" || fail "the engine did not stop"
verify_matches
echo "listen_restart: ok"
