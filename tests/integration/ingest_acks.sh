#!/usr/bin/env bash
# ingest_acks.sh — a daemon acknowledges every chain event sent over NNG
# (`kdapp feed --connect`) with its verdict, and ends in exactly the state of
# a local `kdapp feed` of the same script: same digest, same log.
source "$(dirname "$0")/lib.sh"
demo="$KD_SOURCE_DIR/tools/script/demo"
cat "$demo/stress_game.jsonl" "$demo/revert.jsonl" "$demo/branch.jsonl" >"$T/game.jsonl"
ops=$(grep -c '^{' "$T/game.jsonl")

start_engine engine "$T/remote" "ipc://$T/ingest.ipc" "ipc://$T/views.ipc"
"$KDAPP" feed --connect "ipc://$T/ingest.ipc" "$T/game.jsonl" >"$T/remote.out"
"$KDAPP" feed --data "$T/local" "$T/game.jsonl" >"$T/local.out"

# One acknowledgement per event, each with its verdict.
(($(grep -c '^line [0-9]*: accept .*: applied' "$T/remote.out") == ops - 1)) || fail "not every accept was acknowledged"
grep -q '^line [0-9]*: revert .*: rolled back' "$T/remote.out" || fail "the revert was not acknowledged"
remote=$(last_digest "$T/remote.out")
local_=$(last_digest "$T/local.out")
[[ -n $remote && $remote == "$local_" ]] || fail "digest over NNG $remote != local $local_"
diff <(grep '^line' "$T/remote.out") <(grep '^line' "$T/local.out") || fail "the verdicts differ"

# The durable state agrees too (read-only beside the running daemon).
"$KDAPP" log --json --data "$T/remote" >"$T/remote.log"
"$KDAPP" log --json --data "$T/local" >"$T/local.log"
diff <(log_but_consents "$T/remote.log") <(log_but_consents "$T/local.log") || fail "the logs differ"
(($(wc -l <"$T/remote.log") == ops)) || fail "expected $ops log entries"

kill -TERM "$ENGINE_PID"
wait_exit 20 "$ENGINE_PID"
((EXIT_CODE == 0)) || fail "engine exited $EXIT_CODE"
echo "PASS: $ops events acknowledged, digest $remote"
