#!/usr/bin/env bash
# devnet_restart.sh — `kdapp engine` and `kdapp devnet` as separate
# processes: the devnet keeps re-sending a block while the engine is down
# (SIGKILLed) and delivers it once the engine is back; a devnet asked to
# stop while the engine is down still stops cleanly.
source "$(dirname "$0")/lib.sh"
data="$T/data"
start_engine engine "$data" "ipc://$T/ingest.ipc" "ipc://$T/views.ipc"
bg devnet "$KDAPP" devnet --data "$data" --engine "ipc://$T/ingest.ipc" --listen "ipc://$T/devnet.ipc" --block-ms 50
devnet_pid=$BG_PID
wait_for 20 file_has "$T/devnet.err" "a block every" || fail "devnet did not start"
sub() { "$KDAPP" submit --data "$data" --devnet "ipc://$T/devnet.ipc" --views "ipc://$T/views.ipc" --episode 3 "$@"; }
moves() { "$KDAPP" show --json --data "$data" 3 2>/dev/null | grep -q "\"move_count\": $1"; }

sub --new --participants test:alice,test:bob --wait >"$T/s0.out" || fail "creation not applied"

kill -9 "$ENGINE_PID"
wait "$ENGINE_PID" 2>/dev/null || true
sub --row 1 --col 1 --player X --signer test:alice >"$T/s1.out" || fail "submit failed while the engine is down"
# The devnet takes the tx into a block it cannot deliver yet: neither
# pending nor applied (height 1). A reorg is then refused as busy (and not
# left queued for later).
in_flight() { "$KDAPP" devnet-status --devnet "ipc://$T/devnet.ipc" | grep -q "^height 1 pending 0 "; }
wait_for 20 in_flight || fail "the devnet did not take the tx into a block"

wait_for 20 bash -c "! '$KDAPP' devnet-reorg --devnet 'ipc://$T/devnet.ipc' --depth 1 2>'$T/busy.err'" ||
  fail "a reorg should be refused while a block waits for the engine"
file_has "$T/busy.err" "refused (busy)" || fail "the refusal should say busy"
start_engine engine "$data" "ipc://$T/ingest.ipc" "ipc://$T/views.ipc"
wait_for 30 moves 1 || fail "the block was not delivered after the engine restart"
wait_for 20 file_has "$T/devnet.out" "^block .*: 1 tx, 1 applied" || fail "devnet did not report the block"

# Stopping while the engine is down: the undelivered block is abandoned.
kill -9 "$ENGINE_PID"
wait "$ENGINE_PID" 2>/dev/null || true
sub --row 0 --col 0 --player O --signer test:bob >"$T/s2.out" || fail "submit failed"
kill -TERM "$devnet_pid"
wait_exit 10 "$devnet_pid" || fail "the devnet did not stop while the engine was down"
((EXIT_CODE == 0)) || fail "devnet exited $EXIT_CODE"
file_has "$T/devnet.err" "stopped cleanly" || fail "devnet did not say it stopped cleanly"
echo "PASS: the devnet survives an engine restart"
