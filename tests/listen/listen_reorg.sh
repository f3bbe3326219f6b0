#!/usr/bin/env bash
# listen_reorg.sh — reorgs of several blocks: the node's removed chain
# blocks become reverts, newest first as the node lists them, the new
# branch's blocks accepts carrying the re-included kdapp txs; a deeper
# replacement by a shorter branch too. The digest equals the final chain
# fed as a block script, and `kdapp verify` matches. The listener polls
# only every 10 minutes here: the virtualChainChanged notifications wake it.
source "$(dirname "$0")/../integration/lib.sh"
source "$(dirname "$0")/lib_listen.sh"
start_fixture fx
start_fresh listen --data "$T/data" --poll-ms 600000
fx grow 6
converge r0
# the newest 4 blocks, newest first: the order the reverts must come in
mapfile -t old < <(tail -n 4 "$T/r0.jsonl" | sed 's/.*"hash": "\([0-9a-f]*\)".*/\1/' | tac)
fx reorg 4 6
converge r1
mapfile -t reverted < <(sed -n 's/^revert //p' "$T/listen.out")
((${#reverted[@]} == 4)) || fail "expected 4 reverts, got ${#reverted[@]}"
for i in 0 1 2 3; do
  [[ ${reverted[$i]} == "${old[$i]}" ]] || fail "revert $i is ${reverted[$i]}, expected ${old[$i]} (newest first)"
done
fx reorg 5 2 # a shorter branch replaces a longer one
converge r2
(($(count_of "$T/listen.out" "^revert ") == 9)) || fail "expected 9 reverts in all"
fx grow 4
converge r3
stop_listener
verify_matches
echo "listen_reorg: ok"
