#!/bin/bash
# run_http_shares.sh — the shares of `kdapp mcp --http` ($KDAPP) per client,
# through curl, with the real threads (the ThreadSanitizer pass of
# tools/scripts/check.sh runs it too; mcp_http_share_test is the Criterion
# side). The tokenless clients are 127.0.0.1 and 127.0.0.2, two sessions
# and two streams each (KDAPP_MCP_SESSIONS_PER_CLIENT,
# KDAPP_MCP_STREAMS_PER_CLIENT):
#
#   1. sessions: a dozen initializes at once from 127.0.0.1; it holds two,
#      the others answer 404 (or were refused, 503, while every other one
#      was still being initialized), and 127.0.0.2 still gets in;
#   2. event streams: a dozen /api/events streams at once from 127.0.0.1;
#      two stay open, the others are closed; one from 127.0.0.2 opens and
#      receives the view of an episode started through MCP.
#
# Exits non-zero with the server's log on the first failure.
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
work=$T
fail() { # lib.sh's cleanup shows the gateway's log (gw.err)
    echo "FAIL: $*" >&2
    exit 1
}

KDAPP_MCP_SESSIONS=8 KDAPP_MCP_SESSIONS_PER_CLIENT=2 KDAPP_MCP_STREAMS_PER_CLIENT=2 \
    "$KDAPP" mcp --http 127.0.0.1:0 --data "$work/data" --keys "$work/keys" 2>"$work/gw.err" &
KD_PIDS+=($!)
served() { grep -q 'serving MCP on http:' "$work/gw.err"; }
wait_for 60 served || fail "timed out waiting for the gateway to start"
url=$(sed -n 's/.*serving MCP on \(http:[^ ]*\)\/mcp.*/\1/p' "$work/gw.err")
base="http://127.0.0.1:${url##*:}"

JSON=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"shares","version":"1"}}}'

# init FROM N: an initialize from address FROM; its session id in $work/sid.N.
init() {
    curl -s -o /dev/null -D "$work/head.$2" --interface "$1" "${JSON[@]}" -d "$INIT" "$base/mcp"
    sed -n 's/^Mcp-Session-Id: *\([0-9a-f]*\).*/\1/Ip' "$work/head.$2" >"$work/sid.$2"
}

# ping FROM SID: the status of a ping on the session.
ping_status() {
    curl -s -o /dev/null -w '%{http_code}' --interface "$1" "${JSON[@]}" -H "Mcp-Session-Id: $2" \
        -d '{"jsonrpc":"2.0","id":2,"method":"ping"}' "$base/mcp"
}

# 1. a dozen sessions at once from one client
for i in $(seq 1 12); do init 127.0.0.1 "$i" & done
wait_jobs() { for j in $(jobs -p); do [ "$j" = "${KD_PIDS[0]}" ] || wait "$j"; done; }
wait_jobs
live=0 gone=0
for i in $(seq 1 12); do
    sid=$(cat "$work/sid.$i")
    if [ -z "$sid" ]; then # refused while the client's other sessions were all being initialized: none idle
        grep -q '^HTTP/1.1 503' "$work/head.$i" || fail "initialize $i: $(head -n 1 "$work/head.$i")"
        continue
    fi
    case $(ping_status 127.0.0.1 "$sid") in
    200) live=$((live + 1)) ;;
    404) gone=$((gone + 1)) ;;
    *) fail "session $i answered neither 200 nor 404" ;;
    esac
done
[ $live -eq 2 ] && [ $gone -ge 8 ] || fail "127.0.0.1 holds $live sessions ($gone shed), want 2 (8 or more)"
init 127.0.0.2 other
[ "$(ping_status 127.0.0.2 "$(cat "$work/sid.other")")" = 200 ] || fail "127.0.0.2 did not get a session"

# 2. a dozen event streams at once from one client
stream() { # stream FROM N: /api/events into $work/ev.N, in the background
    curl -s -N --max-time 120 --interface "$1" -H 'Accept: text/event-stream' "$base/api/events" >"$work/ev.$2" &
    echo $! >"$work/ev.$2.pid"
}
for i in $(seq 1 12); do stream 127.0.0.1 "$i"; done
open_count() {
    local n=0
    for i in $(seq 1 12); do kill -0 "$(cat "$work/ev.$i.pid")" 2>/dev/null && n=$((n + 1)); done
    echo $n
}
all_opened() { [ "$(grep -l ': stream open' "$work"/ev.[0-9]* | wc -l)" -eq 12 ]; }
wait_for 60 all_opened || fail "timed out waiting for the dozen streams to open"
two_left() { [ "$(open_count)" -eq 2 ]; }
wait_for 60 two_left || fail "timed out waiting for 127.0.0.1's streams to come down to 2 (now $(open_count))"
stream 127.0.0.2 other
KD_PIDS+=("$(cat "$work/ev.other.pid")")
other_open() { grep -q ': stream open' "$work/ev.other"; }
wait_for 60 other_open || fail "timed out waiting for 127.0.0.2's stream to open"
sid=$(cat "$work/sid.other")
curl -s -o "$work/rpc" --interface 127.0.0.2 "${JSON[@]}" -H "Mcp-Session-Id: $sid" \
    -d '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"kdapp_start_episode","arguments":{"participants":["test:a","test:b"]}}}' \
    "$base/mcp"
grep -q '"episode_id"' "$work/rpc" || fail "kdapp_start_episode: $(cat "$work/rpc")"
got_view() { grep -q '^event: view' "$work/ev.other"; }
wait_for 60 got_view || fail "timed out waiting for the view event on 127.0.0.2's stream"
[ "$(open_count)" -eq 2 ] || fail "127.0.0.1 holds $(open_count) streams, want 2"
for i in $(seq 1 12); do kill "$(cat "$work/ev.$i.pid")" 2>/dev/null || true; done
echo "shares per client hold"
