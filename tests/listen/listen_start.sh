#!/usr/bin/env bash
# listen_start.sh — where following starts, and when it cannot: --from a
# block of the node's chain; --from a hash the node does not know (a clear
# stop); an engine whose tip the node does not know (another chain, as
# after pruning or a reorg deeper than the node keeps: a clear stop saying
# a re-sync is needed and how); a node on another network; an engine
# whose store follows another chain; bad arguments.
source "$(dirname "$0")/../integration/lib.sh"
source "$(dirname "$0")/lib_listen.sh"
start_fixture fx
fx grow 5
fx script "$T/c0.jsonl"
from=$(sed -n '4s/.*"hash": "\([0-9a-f]*\)".*/\1/p' "$T/c0.jsonl")
start_listener from --data "$T/from" --from "$from"
wait_for 20 file_has "$T/from.out" "^start $from " || fail "--from did not anchor at $from"
wait_for 20 at_least 2 "$T/from.out" "^accept " || fail "did not follow from $from"
stop_listener

unknown=$(printf 'ab%.0s' {1..32})
start_listener unknown --data "$T/unknown" --from "$unknown"
wait_exit 20 "$LISTENER_PID" || fail "an unknown --from should stop the listener"
((EXIT_CODE == 1)) || fail "an unknown --from: exit $EXIT_CODE, expected 1"
file_has "$T/unknown.err" "does not know the start block $unknown" || fail "the stop should name the unknown block"

# The data directory follows the fixture of seed 1; a node of another
# chain (seed 2) does not know its tip. Anchored at the genesis, so it
# follows the whole chain the block script describes.
genesis=$(sed -n '2s/.*"hash": "\([0-9a-f]*\)".*/\1/p' "$T/c0.jsonl")
start_fresh own --data "$T/data" --from "$genesis"
converge c1
stop_listener
kill -9 "$FX_PID"
wait "$FX_PID" 2>/dev/null || true
start_fixture fx2 2
start_listener other --data "$T/data"
wait_exit 20 "$LISTENER_PID" || fail "an unknown engine tip should stop the listener"
((EXIT_CODE == 1)) || fail "an unknown engine tip: exit $EXIT_CODE, expected 1"
file_has "$T/other.err" "no longer knows block" || fail "the stop should say the node no longer knows the tip"
file_has "$T/other.err" "re-sync is needed" || fail "the stop should say a re-sync is needed"
file_has "$T/other.err" "new data directory" || fail "the stop should say how to re-sync"
verify_matches # nothing of the other chain was applied

start_listener net --data "$T/net" --network mainnet
wait_exit 20 "$LISTENER_PID" || fail "a node on another network should stop the listener"
((EXIT_CODE == 2)) || fail "another network: exit $EXIT_CODE, expected 2"
file_has "$T/net.err" "is on testnet-10, not mainnet" || fail "the stop should name both networks"

# A `kdapp engine` whose store follows another chain (its own local one):
# the listener's requests name kaspa:testnet-10, the engine refuses them
# (wrong_chain) and the listener stops with its sentence; nothing applied.
start_engine local "$T/local" "ipc://$T/local-ingest.ipc" "ipc://$T/local-views.ipc"
start_listener wrong --engine "ipc://$T/local-ingest.ipc"
wait_exit 20 "$LISTENER_PID" || fail "an engine of another chain should stop the listener"
((EXIT_CODE == 1)) || fail "an engine of another chain: exit $EXIT_CODE, expected 1"
file_has "$T/wrong.err" "follows chain local:[0-9a-f]*, not kaspa:testnet-10" || fail "the stop should name both chains"
kill -TERM "$ENGINE_PID"
wait_exit 15 "$ENGINE_PID" || fail "the engine did not stop"
"$KDAPP" stats --data "$T/local" | grep -q "height 0," || fail "the engine of another chain applied something"

"$KDAPP" listen --data "$T/x" --rpc "http://127.0.0.1:1" 2>"$T/url.err" && fail "an http:// URL should be refused"
file_has "$T/url.err" "not a ws:// or wss:// URL" || fail "the URL error should say what is wrong"
"$KDAPP" listen --data "$T/x" --network moon 2>"$T/netname.err" && fail "an unknown network should be refused"
file_has "$T/netname.err" "--network 'moon' is not valid" || fail "the network error should name the value"
"$KDAPP" listen --data "$T/x" --rpc "$RPC" --from nothex 2>"$T/from.err" && fail "a bad --from should be refused"
file_has "$T/from.err" "from 'nothex' is not valid" || fail "the --from error should name the value"
echo "listen_start: ok"
