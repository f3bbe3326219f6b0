#!/usr/bin/env bash
# listen_hostile.sh — a hostile or broken node: each of these fails the
# request it answered at once, with a sentence, and leaves the store
# intact (the listener's calls wait up to 60 s here, so "at once" is the
# 20 s convergence bound, not the timeout):
#   - a reply replaced by a 200,000-deep nested JSON array (a malformed frame);
#   - a reply cut off mid-frame by the node closing the connection;
#   - a virtualChainChanged notification naming blocks the node does not have;
#   - a reorg deeper than the engine's finality depth (5 here): refused before
#     any of it is applied, the listener stops saying so, the digest unchanged.
source "$(dirname "$0")/../integration/lib.sh"
source "$(dirname "$0")/lib_listen.sh"
start_fixture fx
bg listen "$KDAPP" listen --rpc "$RPC" --poll-ms 50 --rpc-timeout-ms 60000 --finality 5 --data "$T/data"
LISTENER_PID=$BG_PID
wait_for 20 file_has "$T/listen.out" "^start " || fail "the listener did not anchor"
fx grow 3
converge h0

fx nest-reply
fx grow 2
converge h1
file_has "$T/listen.err" "the node sent a malformed frame while the request waited" ||
  fail "no sentence for the nested frame: $(tail -5 "$T/listen.err")"

fx close-mid-frame
fx grow 2
converge h2
file_has "$T/listen.err" "the connection dropped" || fail "no sentence for the frame cut off: $(tail -5 "$T/listen.err")"

fx note-unknown
fx grow 1
converge h3
kill -0 "$LISTENER_PID" || fail "the listener stopped after a notification of unknown blocks"

fx grow 8
converge h4
BEFORE=$WANT
fx reorg 7 8
wait_exit 20 "$LISTENER_PID" || fail "the listener did not stop at a reorg past finality"
((EXIT_CODE != 0)) || fail "the listener exited 0 at a reorg past finality"
file_has "$T/listen.err" "reports a reorg of 7 chain blocks .*deeper than the finality depth of 5 blocks" ||
  fail "no sentence for the deep reorg: $(tail -3 "$T/listen.err")"
digest_is "$T/data" "$BEFORE" || fail "the store changed: a part of the deep reorg was applied"
WANT=$BEFORE
verify_matches
echo "listen_hostile: ok"
