# lib_listen.sh — helpers of the `kdapp listen` scenario tests (sourced
# after tests/integration/lib.sh): a fixture kaspad driven through a FIFO,
# the listener, the convergence check (the engine's digest equals that of
# the fixture's chain fed as a block script), and for the tests of `kdapp up
# --rpc`: the test keys' coins on the node, and HTTP gateways driven with
# curl and jq. Every wait is a bounded poll on a condition.
FIXTURE=${1:?the fixture binary is the first argument}
# the kaspad the fixture plays (fixture_wrpc.c --kaspad): the second argument, 2.0.1 by default
FX_KASPAD=${2:-2.0.1}
exec {FX_FD}<>"$(mkfifo "$T/ctl" && echo "$T/ctl")"

# start_fixture NAME [SEED [ARGS...]] — starts a fixture kaspad; sets FX_PID, RPC.
start_fixture() {
  local name=$1 seed=${2:-1}
  shift $(($# < 2 ? $# : 2))
  : >"$T/$name.out"
  : >"$T/$name.err"
  # not through bg: an asynchronous command's stdin must be redirected on it
  "$FIXTURE" --seed "$seed" --kaspad "$FX_KASPAD" "$@" <"$T/ctl" >>"$T/$name.out" 2>>"$T/$name.err" &
  FX_PID=$!
  KD_PIDS+=("$FX_PID")
  FX_NAME=$name
  wait_for 10 file_has "$T/$name.out" "^port " || fail "fixture $name did not start"
  RPC="ws://127.0.0.1:$(awk '/^port /{print $2}' "$T/$name.out")"
}

# fx CMD... — sends a command to the fixture and waits for its "ok".
fx() {
  local n
  n=$(count_of "$T/$FX_NAME.out" "^ok $*\$")
  echo "$*" >&"$FX_FD"
  wait_for 10 at_least $((n + 1)) "$T/$FX_NAME.out" "^ok $*\$" || fail "the fixture did not do: $*"
}

# start_listener NAME [args...] — `kdapp listen` on the fixture; sets LISTENER_PID.
start_listener() {
  local name=$1
  shift
  bg "$name" "$KDAPP" listen --rpc "$RPC" --poll-ms 50 --rpc-timeout-ms 3000 "$@"
  LISTENER_PID=$BG_PID
}

digest_is() { "$KDAPP" stats --data "$1" 2>/dev/null | head -1 | grep -q "digest ${2:0:16}…"; }
# height_of DATA — the store's height (0 before its first block).
height_of() {
  local h
  h=$("$KDAPP" stats --data "$1" 2>/dev/null || true)
  h=$(sed -nE '1s/.*: height ([0-9]+),.*/\1/p' <<<"$h")
  echo "${h:-0}"
}
# past_or_at DATA HEIGHT DIGEST — for wait_for: DATA has DIGEST, or grew past HEIGHT.
past_or_at() { digest_is "$1" "$3" || (($(height_of "$1") > $2)); }
# catch_up DATA DIGEST — waits until DATA reaches DIGEST for as long as it
# keeps advancing (a listener catching up on a long chain, slow under the
# sanitizers); fails once it makes no progress for 30 s.
catch_up() {
  local h
  until digest_is "$1" "$2"; do
    h=$(height_of "$1")
    wait_for 30 past_or_at "$1" "$h" "$2" || return 1
  done
}

# converge TAG [DATA] — the fixture's chain as a block script, fed into a
# new directory following the fixture's network (kaspa:testnet-10: the
# consents of its creations name it); waits until DATA (default $T/data)
# has the same digest.
converge() {
  local tag=$1 data=${2:-$T/data}
  fx "script $T/$tag.jsonl"
  "$KDAPP" feed --data "$T/fed_$tag" --chain kaspa:testnet-10 "$T/$tag.jsonl" >"$T/fed_$tag.out" ||
    fail "the block script $tag did not feed"
  WANT=$(last_digest "$T/fed_$tag.out")
  [[ -n $WANT ]] || fail "no digest from feeding $tag"
  wait_for 20 digest_is "$data" "$WANT" || fail "the listener's engine did not reach the chain $tag (digest $WANT)"
}

# stop_listener — SIGTERM, a clean exit, the connection closed with a
# close frame of status 1000 (not dropped: 1006).
stop_listener() {
  local n
  n=$(count_of "$T/$FX_NAME.out" "^client closed 1000$")
  kill -TERM "$LISTENER_PID"
  wait_exit 15 "$LISTENER_PID" || fail "the listener did not stop"
  ((EXIT_CODE == 0)) || fail "the listener exited $EXIT_CODE"
  wait_for 10 at_least $((n + 1)) "$T/$FX_NAME.out" "^client closed 1000$" ||
    fail "the listener did not close with status 1000: $(grep '^client ' "$T/$FX_NAME.out" | tail -1)"
}

# verify_matches [DATA] — `kdapp verify` passes and its digest is $WANT.
verify_matches() {
  local data=${1:-$T/data}
  "$KDAPP" verify --data "$data" >"$T/verify.out" 2>&1 || fail "kdapp verify failed: $(cat "$T/verify.out")"
  grep -q "canonical chain replay: .*($WANT)" "$T/verify.out" || fail "verify's digest is not $WANT: $(cat "$T/verify.out")"
}

# start_fresh NAME [args...] — start_listener on a new data directory, then
# waits for its anchor (the node's sink), so the chain it follows starts
# where the fixture's block script starts.
start_fresh() {
  local name=$1
  start_listener "$@"
  wait_for 20 file_has "$T/$name.out" "^start " || fail "the listener $name did not anchor at the sink"
}

# ---- `kdapp up --rpc` and its gateways (payer_node.sh, owners_node.sh; need jq)

# testkey NAME — the secret key of test:NAME as a key file holds it (the
# fixture funds alice, bob, carol, ..., house, funder: fixture_ledger.c)
testkey() { printf 'kdapp-test-key:%s' "$1" | sha256sum | cut -c1-64; }

# balance KEY [KEYS] — the key's confirmed sompi on the node (KEYS: the key
# directory holding it, $KEYS by default)
balance() {
  "$KDAPP" wallet balance --rpc "$RPC" --key "$1" --keys "${2:-${KEYS:?balance: no key directory}}" 2>&1 |
    sed -n 's/.* on testnet-10: \([0-9]*\) sompi.*/\1/p'
}

# quiet — for wait_for: no tx waits for a block and the fixture mines no
# more blocks by itself (--block-ms mines three more after the last tx)
quiet() {
  fx quiet
  [[ $(awk '/^quiet /{q=$2} END{print q}' "$T/$FX_NAME.out") == yes ]]
}
# settle — once the node is quiet, two more chain blocks: what was paid is
# in the confirmed balances, and the chain stays as it is until the next tx
settle() {
  wait_for 10 quiet || fail "the fixture's mempool did not empty"
  fx grow 2
}

# start_gateway NAME ARGS... — `kdapp mcp --http 127.0.0.1:0 ARGS...` (its
# output in $T/NAME.out and .err); waits until it serves; sets BASE, its
# address, and TOKEN[GRANT], each grant's bearer token.
declare -A TOKEN
start_gateway() {
  local name=$1 g t
  shift
  bg "$name" "$KDAPP" mcp --http 127.0.0.1:0 "$@"
  wait_for 20 file_has "$T/$name.err" "serving MCP on" || fail "the gateway $name did not start: $(cat "$T/$name.err")"
  BASE="http://127.0.0.1:$(sed -n 's/.*serving MCP on http:[^ ]*:\([0-9]*\)\/mcp.*/\1/p' "$T/$name.err")"
  while read -r g t; do TOKEN[$g]=$t; done < <(sed -n 's/^grant \([^ ]*\) token \([0-9a-f]*\)$/\1 \2/p' "$T/$name.out")
}

# session NAME [TOKEN] — opens an MCP session NAME on the gateway at $BASE
# (tokenless without TOKEN)
declare -A SID AUTH SURL
session() {
  AUTH[$1]=${2:+Authorization: Bearer $2}
  SURL[$1]=$BASE
  curl -s -D "$T/head" -o /dev/null -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    ${2:+-H "${AUTH[$1]}"} -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"'"$1"'","version":"1"}}}' \
    "$BASE/mcp" || fail "initialize failed"
  SID[$1]=$(sed -n 's/^Mcp-Session-Id: *\([0-9a-f]*\).*/\1/Ip' "$T/head")
  [[ -n ${SID[$1]} ]] || fail "initialize gave no session id"
  curl -s -o /dev/null -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H "Mcp-Session-Id: ${SID[$1]}" ${2:+-H "${AUTH[$1]}"} \
    -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$BASE/mcp"
}
# rpc NAME METHOD PARAMS_JSON — a request of session NAME; its result in
# $T/r.json (few processes a call: the games call often)
rpc() {
  local auth=()
  [[ -n ${AUTH[$1]} ]] && auth=(-H "${AUTH[$1]}")
  printf '{"jsonrpc":"2.0","id":2,"method":"%s","params":%s}' "$2" "$3" >"$T/req.json"
  curl -s -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2025-11-25' -H "Mcp-Session-Id: ${SID[$1]}" "${auth[@]}" \
    --data-binary @"$T/req.json" "${SURL[$1]}/mcp" | sed -n 's/^data: //p;/^{/p' | jq -n 'last(inputs) | .result' >"$T/r.json" ||
    fail "$2: no JSON answer"
}
# call NAME TOOL ARGS_JSON — the tool's result in $T/r.json
call() { rpc "$1" tools/call "{\"name\":\"$2\",\"arguments\":$3}"; }
is_error() { [[ $(jq -r '.isError // false' "$T/r.json") == true ]]; }
text() { jq -r '.content[0].text' "$T/r.json"; }
# refused WHAT PATTERN... — the last call is an error result whose text has every PATTERN
refused() {
  local what=$1
  shift
  is_error || fail "$what was not refused: $(head -c 400 "$T/r.json")"
  for p in "$@"; do text | grep -q -- "$p" || fail "$what: the refusal does not say '$p': $(text)"; done
}
