#!/usr/bin/env bash
# listen_faults.sh — the node drops the connection (the listener reconnects
# with backoff and resumes from the engine's tip), drops it in the middle
# of a reorg (after answering the removed blocks, before the accepting
# blocks could be fetched: nothing of that batch is applied, the retry
# applies it whole), and sends garbage frames and a malformed reply (each
# logged with what was wrong, nothing applied, the listener keeps going).
source "$(dirname "$0")/../integration/lib.sh"
source "$(dirname "$0")/lib_listen.sh"
start_fixture fx
start_fresh listen --data "$T/data"
fx grow 3
converge f0

fx drop
fx grow 2
converge f1
# (closed while idle: "reconnecting"; while a call was in flight: "retrying in N ms")
grep -qE "reconnecting|retrying in" "$T/listen.err" || fail "the listener did not say it reconnects"
(($(count_of "$T/listen.out" "^connected: ") >= 2)) || fail "the listener did not reconnect"

fx drop-mid-reorg
fx reorg 3 4
converge f2
file_has "$T/listen.err" "getBlock: the connection dropped" || fail "the connection did not drop mid-reorg"
(($(count_of "$T/listen.out" "^revert ") == 3)) || fail "the reorg's 3 reverts should be applied exactly once"

fx garbage
fx bad-reply
fx grow 2
converge f3
for what in "the frame is not JSON" "neither a reply (id) nor a notification" "a reply to no pending request" \
  "removedChainBlockHashes is missing or not an array" "binary frame" "block.header.daaScore is not a non-negative integer"; do
  file_has "$T/listen.err" "$what" || fail "no log line naming: $what"
done
kill -0 "$LISTENER_PID" || fail "the listener stopped after bad frames"
stop_listener
verify_matches
echo "listen_faults: ok"
