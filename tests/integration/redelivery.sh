#!/usr/bin/env bash
# redelivery.sh — re-delivered chain events are acknowledged again and
# applied once: feeding the same blocks twice over the socket leaves the
# digest and the log unchanged, and so does re-sending a revert.
source "$(dirname "$0")/lib.sh"
demo="$KD_SOURCE_DIR/tools/script/demo"
ingest="ipc://$T/ingest.ipc"
start_engine engine "$T/data" "$ingest" "ipc://$T/views.ipc"
ops=$(grep -c '^{' "$demo/stress_game.jsonl")

"$KDAPP" feed --connect "$ingest" "$demo/stress_game.jsonl" >"$T/first.out"
"$KDAPP" log --json --data "$T/data" >"$T/first.log"
"$KDAPP" feed --connect "$ingest" "$demo/stress_game.jsonl" >"$T/second.out"
"$KDAPP" log --json --data "$T/data" >"$T/second.log"

(($(count_of "$T/first.out" ": applied ") == ops)) || fail "first feed: not all applied"
(($(count_of "$T/second.out" ": duplicate, already applied") == ops)) || fail "second feed: not all duplicate"
[[ $(last_digest "$T/first.out") == "$(last_digest "$T/second.out")" ]] || fail "digest changed on re-delivery"
diff "$T/first.log" "$T/second.log" || fail "re-delivery wrote to the log"

# A revert delivered twice: rolled back once, then acknowledged as a duplicate.
"$KDAPP" feed --connect "$ingest" "$demo/revert.jsonl" >"$T/revert1.out"
"$KDAPP" feed --connect "$ingest" "$demo/revert.jsonl" >"$T/revert2.out"
file_has "$T/revert1.out" "revert .*: rolled back" || fail "the revert was not applied"
file_has "$T/revert2.out" "revert .*: duplicate" || fail "the re-sent revert was not a duplicate"
[[ $(last_digest "$T/revert1.out") == "$(last_digest "$T/revert2.out")" ]] || fail "digest changed"
(($("$KDAPP" log --json --data "$T/data" | wc -l) == ops + 1)) || fail "expected $((ops + 1)) log entries"
echo "PASS: re-delivery is idempotent"
