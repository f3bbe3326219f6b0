#!/bin/bash
# run_board_page.sh — the board page of `kdapp mcp --http` ($KDAPP) through
# curl, on a fresh data directory under $KD_TEST_TMP:
#
#   1. the files: / and /episodes/{id} (HTML), the scripts, a renderer per
#      type; the security headers on each (a strict CSP, nosniff, no
#      referrer); no inline script or style in the HTML; 404s and 405;
#   2. the checks of /mcp: a foreign Host or Origin is refused (403);
#   3. the JSON: an episode of each type started through MCP (curl JSON-RPC)
#      is listed by /api/episodes and shown by /api/episodes/{id} (the view,
#      the text board, the type's renderer); a dice roll's proof at
#      /api/episodes/{id}/audit once the gateway's house revealed it;
#   4. the live stream: /api/events is open, a move through MCP arrives as
#      an "event: view" for its episode, and a reorg as its rollback; a
#      table opened through MCP as an "event: tables" (the lobby), and
#      /api/tables lists it, its creator's key among "your_keys" for the
#      grant's token only;
#   5. a bearer token (KDAPP_MCP_TOKEN) on a bind beyond loopback: the page's
#      files are served without it, the data and the events only with it.
#
# Exits non-zero with the server's log on the first failure.
set -euo pipefail
: "${KDAPP:?KDAPP must name the kdapp binary}"
parent=${KD_TEST_TMP:-/tmp}
mkdir -p "$parent"
work=$(mktemp -d "$parent/page-XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
unset KDAPP_MCP_TOKEN KDAPP_DATA KDAPP_KEYS KDAPP_TTT_STRESS KDAPP_TTT_MAX_SYMBOLS

fail() {
    echo "FAIL: $*" >&2
    for f in "$work"/*.err "$work"/*.out; do
        [ -f "$f" ] && { echo "--- $f" >&2; tail -n 40 "$f" >&2; }
    done
    exit 1
}

# start NAME ADDR: starts a gateway granted the agent keys; sets $base
# (http://127.0.0.1:PORT) and $grant_token, the token it printed for them.
start() {
    : >"$work/$1.err"
    : >"$work/$1.out"
    [ -f "$work/keys/house.key" ] || for k in agent1 agent2 house; do "$KDAPP" keygen --keys "$work/keys" $k >/dev/null; done
    "$KDAPP" mcp --http "$2:0" --grant agent1,agent2 --house house --data "$work/$1.data" --keys "$work/keys" \
        >"$work/$1.out" 2>"$work/$1.err" &
    pids+=($!)
    local url="" tries=0
    while [ -z "$url" ] && [ $tries -lt 300 ]; do # bounded: 30 s
        url=$(sed -n 's/.*serving MCP on \(http:[^ ]*\)\/mcp.*/\1/p' "$work/$1.err")
        [ -n "$url" ] || { sleep 0.1; tries=$((tries + 1)); }
    done
    [ -n "$url" ] || fail "$1: the HTTP gateway did not start"
    base="http://127.0.0.1:${url##*:}"
    grant_token=$(sed -n 's/^grant agent1,agent2 token \([0-9a-f]\{64\}\)$/\1/p' "$work/$1.out")
    [ -n "$grant_token" ] || fail "$1: the gateway printed no token for its grant"
}

# get PATH [curl args...]: the body to $work/body, the headers to
# $work/head; prints the status.
get() {
    local path=$1
    shift
    curl -s -o "$work/body" -D "$work/head" -w '%{http_code}' "$@" "$base$path"
}

header_has() { grep -qi "^$1: $2" "$work/head" || fail "$3: no '$1: $2' header"; }

# The headers every answer of the page carries.
page_headers() {
    header_has Content-Security-Policy "default-src 'none'; script-src 'self'; style-src 'self'" "$1"
    header_has X-Content-Type-Options nosniff "$1"
    header_has Referrer-Policy no-referrer "$1"
    header_has Cache-Control no-store "$1"
}

# event PATTERN WHAT: waits (10 s at most) for a line of the event stream
# matching PATTERN (a basic regular expression); fails saying WHAT did not come.
event() {
    local tries=0
    until grep -q "$1" "$work/events.out" 2>/dev/null; do
        [ $tries -lt 100 ] || fail "$2 (events: $(cat "$work/events.out" 2>/dev/null))"
        sleep 0.1
        tries=$((tries + 1))
    done
}

# mcp JSON: one JSON-RPC request on the session; the answer to $work/rpc.
rpc_id=1
mcp() {
    rpc_id=$((rpc_id + 1))
    curl -s -o "$work/rpc" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2025-11-25' -H "Mcp-Session-Id: $sid" "${auth[@]}" \
        -d "{\"jsonrpc\":\"2.0\",\"id\":$rpc_id,$1}" "$base/mcp" || fail "mcp request failed: $1"
}

mcp_init() {
    curl -s -o "$work/rpc" -D "$work/rpchead" -H 'Content-Type: application/json' "${auth[@]}" \
        -H 'Accept: application/json, text/event-stream' \
        -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"page-test","version":"1"}}}' \
        "$base/mcp"
    sid=$(sed -n 's/^Mcp-Session-Id: *\([0-9a-f]*\).*/\1/Ip' "$work/rpchead")
    [ -n "$sid" ] || fail "initialize gave no session id"
    curl -s -o /dev/null -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H "Mcp-Session-Id: $sid" "${auth[@]}" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$base/mcp"
}

# start_episode TYPE: prints the new episode's id.
start_episode() {
    mcp "\"method\":\"tools/call\",\"params\":{\"name\":\"kdapp_start_episode\",\"arguments\":{\"type\":\"$1\"}}"
    local id
    id=$(jq -r '.result.structuredContent.episode_id // empty' "$work/rpc")
    [ -n "$id" ] || fail "start $1: $(cat "$work/rpc")"
    echo "$id"
}

start plain 127.0.0.1
auth=(-H "Authorization: Bearer $grant_token") # the MCP session plays as the agents

# 1. the files and their headers
[ "$(get /)" = 200 ] || fail "/ did not answer 200"
page_headers "/"
header_has Content-Type "text/html" "/"
grep -q '<script src="/app.js"' "$work/body" || fail "/ does not load /app.js"
cp "$work/body" "$work/index.html"
[ "$(get /episodes/5)" = 200 ] || fail "/episodes/5 did not answer 200"
page_headers "/episodes/5"
grep -q '<script src="/board.js"' "$work/body" || fail "/episodes/5 does not load /board.js"
for f in "$work/index.html" "$work/body"; do
    grep -qi '<script>\|<script [^s]\|style=\|<style\| on[a-z]*=' "$f" && fail "inline script or style in $f"
done
for js in /render.js /app.js /list.js /board.js /widget.js /types/tictactoe.js /types/fourinarow.js /types/checkers.js /types/chess.js; do
    [ "$(get $js)" = 200 ] || fail "$js did not answer 200"
    header_has Content-Type "text/javascript" "$js"
    page_headers "$js"
done
[ "$(get /app.css)" = 200 ] && header_has Content-Type "text/css" /app.css
# The binary serves the repository's files byte for byte (mcp/web/embed.cmake).
if [ -n "${KD_SOURCE_DIR:-}" ]; then
    web="$KD_SOURCE_DIR/mcp/web"
    n=0
    while IFS= read -r f; do
        rel=${f#"$web"}
        [ "$rel" = /widget.html ] && continue # the widget's template: an MCP resource, not a page
        [ "$(get "$rel")" = 200 ] || fail "$rel is not served"
        cmp -s "$work/body" "$f" || fail "$rel differs from $f"
        n=$((n + 1))
    done < <(find "$web" -name '*.html' -o -name '*.css' -o -name '*.js' -o -name '*.svg')
    [ $n -ge 9 ] || fail "only $n files in $web"
fi
[ "$(get /nothing.js)" = 404 ] || fail "/nothing.js is not a 404"
[ "$(get /widget.html)" = 404 ] || fail "the widget's template is served as a page"
page_headers "/nothing.js"
[ "$(get /episodes/x1)" = 404 ] || fail "/episodes/x1 is not a 404"
[ "$(get /api/episodes/0)" = 404 ] || fail "/api/episodes/0 is not a 404"
[ "$(get / -X POST -d x)" = 405 ] || fail "POST / is not a 405"

# 2. Host and Origin, as on /mcp
[ "$(get / -H 'Host: evil.example')" = 403 ] || fail "a foreign Host was served"
[ "$(get /api/episodes -H 'Host: evil.example:80')" = 403 ] || fail "a foreign Host got the data"
[ "$(get /api/episodes -H 'Origin: http://evil.example')" = 403 ] || fail "a foreign Origin got the data"
[ "$(get /api/events -H 'Origin: http://evil.example' -H 'Accept: text/event-stream')" = 403 ] ||
    fail "a foreign Origin got the events"
[ "$(get /api/episodes -H "Origin: http://127.0.0.1:${base##*:}")" = 200 ] || fail "the page's own Origin was refused"
[ "$(get /api/events -H 'Accept: application/json')" = 406 ] || fail "/api/events without Accept: text/event-stream is not a 406"

# 3. an episode of each type, listed and shown
mcp_init
declare -A ids
for t in tictactoe fourinarow checkers chess; do
    ids[$t]=$(start_episode $t)
done
[ "$(get /api/episodes)" = 200 ] || fail "/api/episodes did not answer 200"
header_has Content-Type "application/json" /api/episodes
page_headers /api/episodes
cp "$work/body" "$work/list.json"
for t in tictactoe fourinarow checkers chess; do
    jq -e --argjson id "${ids[$t]}" --arg t $t \
        '.episodes[] | select(.episode_id == $id and .type == $t and .seats == 2 and .phase == "in_progress")' \
        "$work/list.json" >/dev/null || fail "/api/episodes does not list the $t episode ${ids[$t]}: $(cat "$work/list.json")"
    [ "$(get "/api/episodes/${ids[$t]}")" = 200 ] || fail "/api/episodes/${ids[$t]} did not answer 200"
    jq -e --arg t $t '.view.type == $t and .renderer == "/types/\($t).js" and (.text | length > 0) and
        (.view.digest | length == 64) and .view.to_move == 0' "$work/body" >/dev/null ||
        fail "/api/episodes/${ids[$t]} ($t): $(cat "$work/body")"
done
[ "$(get /api/episodes/4000000000)" = 404 ] || fail "an unknown episode is not a 404"
[ "$(get "/api/episodes/${ids[chess]}")" = 200 ] || fail "/api/episodes/${ids[chess]} did not answer 200"
jq -e '.audit == null' "$work/body" >/dev/null || fail "a board game names an audit: $(cat "$work/body")"
[ "$(get "/api/episodes/${ids[chess]}/audit")" = 404 ] || fail "a board game's audit is not a 404"

# 3b. a game that draws: its episode names its audit, which proves the roll
# the gateway's house revealed, from the log
dice=$(start_episode dice)
[ "$(get "/api/episodes/$dice")" = 200 ] || fail "/api/episodes/$dice did not answer 200"
jq -e --arg p "/api/episodes/$dice/audit" '.audit == $p' "$work/body" >/dev/null ||
    fail "the dice episode does not name its audit: $(cat "$work/body")"
mcp "\"method\":\"tools/call\",\"params\":{\"name\":\"kdapp_execute_command\",\"arguments\":{\"episode_id\":$dice,\"command\":{\"roll\":\"2d6\"}}}"
jq -e '.result.structuredContent.legal == true' "$work/rpc" >/dev/null || fail "the roll was refused: $(cat "$work/rpc")"
tries=0
until [ "$(get "/api/episodes/$dice/audit")" = 200 ] && jq -e '.audit.draws | length == 1' "$work/body" >/dev/null; do
    [ $tries -lt 150 ] || fail "no audited draw after the house's reveal: $(cat "$work/body")"
    sleep 0.1
    tries=$((tries + 1))
done
jq -e '.audit.verdict == "ok" and .audit.draws[0].verified and (.audit.draws[0].outcome.dice | length == 2) and
    (.text | test("verdict: ok"))' "$work/body" >/dev/null || fail "the dice audit: $(cat "$work/body")"

# 4. the live stream: a move through MCP arrives as an event
curl -s -N -H 'Accept: text/event-stream' -D "$work/events.head" "$base/api/events" >"$work/events.out" &
pids+=($!)
event ': stream open' "the event stream did not open"
grep -qi '^Content-Type: text/event-stream' "$work/events.head" || fail "the events are not text/event-stream"
id=${ids[fourinarow]}
mcp "\"method\":\"tools/call\",\"params\":{\"name\":\"kdapp_execute_command\",\"arguments\":{\"episode_id\":$id,\"command\":{\"column\":3}}}"
jq -e '.result.structuredContent.legal == true' "$work/rpc" >/dev/null || fail "the move was refused: $(cat "$work/rpc")"
event "^data: {\"episode_id\":$id,\"type\":\"fourinarow\".*\"move_count\":1" "no view event for the move"
grep -B1 "^data: {\"episode_id\":$id," "$work/events.out" | grep -q '^event: view$' || fail "the event is not named view"
# ... and carries what the page draws: the view itself and its text board
grep "^data: {\"episode_id\":$id,.*\"move_count\":1" "$work/events.out" | tail -n 1 | sed 's/^data: //' |
    jq -e '.view.last_column == 3 and .renderer == "/types/fourinarow.js" and (.text | length > 0)' >/dev/null ||
    fail "the event does not carry the view (events: $(cat "$work/events.out"))"
[ "$(get "/api/episodes/$id")" = 200 ] && jq -e '.view.move_count == 1 and .view.last_column == 3' "$work/body" \
    >/dev/null || fail "the episode does not show the move: $(cat "$work/body")"

# ... and a reorg that reverts the move shows as a rollback of that episode
# (the devnet re-includes the move, so a command view follows).
mcp '"method":"tools/call","params":{"name":"kdapp_simulate_reorg","arguments":{"depth":1}}'
jq -e '.result.isError != true' "$work/rpc" >/dev/null || fail "the reorg failed: $(cat "$work/rpc")"
event "^data: {\"episode_id\":$id,.*\"last_event\":\"rollback\"" "no rollback event after the reorg"

# ... and the lobby: an open table arrives as an "event: tables"
mcp '"method":"tools/call","params":{"name":"kdapp_start_episode","arguments":{"type":"tictactoe","participants":["agent1","open"]}}'
table=$(jq -r '.result.structuredContent.episode_id // empty' "$work/rpc")
[ -n "$table" ] || fail "the table was not opened: $(cat "$work/rpc")"
event "^data: {\"tables\":\[.*\"episode_id\":$table," "no tables event for the open table"
grep -B1 "^data: {\"tables\":\[.*\"episode_id\":$table," "$work/events.out" | grep -q '^event: tables$' ||
    fail "the lobby's event is not named tables"
[ "$(get /api/tables)" = 200 ] || fail "/api/tables did not answer 200"
page_headers /api/tables
jq -e --argjson id "$table" '(.daa_score | type == "number") and .your_keys == [] and
    (.tables[] | select(.episode_id == $id and .type == "tictactoe" and .seats[1].open and .seats[1].key == null and
    (.seats[0].key | length == 66) and .deadline_daa > 0 and (.params | type == "object")))' "$work/body" >/dev/null ||
    fail "/api/tables without a token: $(cat "$work/body")"
[ "$(get /api/tables "${auth[@]}")" = 200 ] || fail "/api/tables with the grant's token did not answer 200"
jq -e --argjson id "$table" '(.your_keys | length == 2) as $two | $two and
    (.tables[] | select(.episode_id == $id) | .seats[0].key) as $k | (.your_keys | index($k)) != null' "$work/body" \
    >/dev/null || fail "/api/tables with the grant's token does not name its keys: $(cat "$work/body")"

# 5. a bearer token beyond loopback
export KDAPP_MCP_TOKEN=page-test-token-1234
start token 0.0.0.0
unset KDAPP_MCP_TOKEN
[ "$(get /)" = 200 ] || fail "token: the page's files need no token"
[ "$(get /types/chess.js)" = 200 ] || fail "token: the renderers need no token"
[ "$(get /api/episodes)" = 401 ] || fail "token: /api/episodes without the token is not a 401"
header_has WWW-Authenticate "Bearer" "token: /api/episodes"
page_headers "token: /api/episodes"
[ "$(get /api/episodes -H 'Authorization: Bearer wrong')" = 401 ] || fail "token: a wrong token got the data"
[ "$(get /api/tables)" = 401 ] || fail "token: /api/tables without the token is not a 401"
[ "$(get /api/episodes -H 'Authorization: Bearer page-test-token-1234')" = 200 ] || fail "token: the token was refused"
[ "$(get /api/events -H 'Accept: text/event-stream')" = 401 ] || fail "token: the events without the token"
[ "$(curl -s -o /dev/null -w '%{http_code}' -m 2 -H 'Accept: text/event-stream' \
    -H 'Authorization: Bearer page-test-token-1234' "$base/api/events" || true)" = 200 ] ||
    fail "token: the events with the token"
[ "$(get /mcp -H 'Accept: text/event-stream')" = 401 ] || fail "token: /mcp without the token"

echo "board page: ok"
