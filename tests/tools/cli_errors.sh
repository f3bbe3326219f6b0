#!/bin/bash
# cli_errors.sh — the mistakes of a first afternoon (issue 41), each
# answered with a sentence that ends with what to do, and the exit code the
# front page gives it (2: bad arguments, environment or input; 1: the
# operation failed), through the real `kdapp` ($KDAPP):
#
#   keys   a key directory named wrongly: the agent keys made there are
#          named on stderr; a granted key of the user's own must exist
#          (`--grant bob` → run `kdapp keygen bob` first), and none is made;
#          a missing key file is exit 2 for every command that names one
#   store  a second `kdapp up` on a data directory in use; `kdapp list` on
#          a directory with no data
#   keygen a key that exists: kept, its public key named
#   net    a port in use; no devnet for a data directory (named, not only
#          its hashed socket); a runtime directory so deep a socket's path
#          passes the 107 bytes a socket address holds
#   types  `--type chesss`: the registered types listed
#   quiet  `play --quiet` prints the result and nothing else
#   sim    `kdapp sim --dir` naming a missing directory
#
# Each case prints its command on failure with what it printed.
set -u
: "${KDAPP:?KDAPP must name the kdapp binary}"
parent=${KD_TEST_TMP:-/tmp}
mkdir -p "$parent"
work=$(mktemp -d "$parent/clierr-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
unset KDAPP_DATA KDAPP_KEYS KDAPP_TTT_STRESS KDAPP_TTT_MAX_SYMBOLS
failures=0

# expect CODE 'TEXT' CMD...: CMD exits CODE and its stderr holds TEXT (a
# fixed string).
expect() {
    local code=$1 text=$2
    shift 2
    local rc=0
    "$@" </dev/null >"$work/out" 2>"$work/err" || rc=$?
    if [ "$rc" != "$code" ] || ! grep -qF -- "$text" "$work/err"; then
        echo "FAIL: $* exited $rc (want $code), stderr lacks: $text" >&2
        sed 's/^/    /' "$work/err" >&2
        failures=$((failures + 1))
    fi
}

# --- keys
expect 0 "made new keys agent1, agent2 in $work/nokeysdir, which held no key" \
    "$KDAPP" play --data "$work/d1" --keys "$work/nokeysdir" --type tictactoe --max-moves 1 --quiet
# --quiet prints only the result: nothing on stderr (the gateway's notices
# too), stdout from the result line on
"$KDAPP" play --data "$work/d1" --keys "$work/nokeysdir" --type tictactoe --max-moves 2 --quiet \
    </dev/null >"$work/out" 2>"$work/err"
if [ -s "$work/err" ] || ! head -1 "$work/out" | grep -q '^episode [0-9]*: '; then
    echo "FAIL: play --quiet printed more than the result" >&2
    sed 's/^/    out: /' "$work/out" >&2
    sed 's/^/    err: /' "$work/err" >&2
    failures=$((failures + 1))
fi
expect 2 "there is no key bob in $work/other (no file bob.key): run \`kdapp keygen bob --keys $work/other\` first" \
    "$KDAPP" mcp --data "$work/d2" --keys "$work/other" --grant bob
[ ! -e "$work/other/agent1.key" ] || { echo "FAIL: --grant bob made agent keys" >&2; failures=$((failures + 1)); }

for cmd in "submit --episode 7 --new --participants nokey,test:b" "duty --signer nokey 7" \
    "commit --type dice --episode 3 --seat house --signer nokey" "mcp --house nokey"; do
    # shellcheck disable=SC2086 # the words of each command
    expect 2 "there is no key nokey in $work/k (no file nokey.key): run \`kdapp keygen nokey --keys $work/k\` first" \
        "$KDAPP" $cmd --data "$work/d3" --keys "$work/k"
done
printf '%s\n' '{"accept": {"hash": "z1", "txs": [{"new_episode": {"id": 9, "type": "tictactoe", "participants": ["nokey", "test:b"]}}]}}' \
    >"$work/nokey.jsonl"
expect 2 "there is no key nokey in $work/k" "$KDAPP" feed --data "$work/d4" --keys "$work/k" "$work/nokey.jsonl"

# --- store
"$KDAPP" up --quiet --data "$work/up" >"$work/up.out" 2>"$work/up.err" &
up=$!
"$KDAPP" devnet-status --data "$work/up" --timeout 10000 >/dev/null 2>&1 || echo "FAIL: kdapp up did not start" >&2
expect 2 "is in use by process $up: stop that process first (kill $up), or use another data directory (--data DIR)" \
    "$KDAPP" up --quiet --data "$work/up"
expect 2 "no kdapp data in $work/none" "$KDAPP" list --data "$work/none"
expect 2 "give the data directory that holds it (--data DIR, or KDAPP_DATA), or make one: \`kdapp up --data $work/none\`" \
    "$KDAPP" list --data "$work/none"

# --- keygen
"$KDAPP" keygen --keys "$work/k" carol >"$work/carol.out"
carol=$(awk '{print $2}' "$work/carol.out")
expect 2 "the key carol exists already in $work/k (public key $carol) and is kept: use it as it is, or give another NAME" \
    "$KDAPP" keygen --keys "$work/k" carol

# --- net
"$KDAPP" mcp --http 127.0.0.1:0 --data "$work/up" --keys "$work/k" </dev/null >"$work/gw.out" 2>"$work/gw.err" &
gw=$!
port=""
for _ in $(seq 300); do # bounded: 30 s for the gateway to say where it listens
    port=$(sed -n 's/.*serving MCP on http:\/\/127.0.0.1:\([0-9]*\)\/mcp.*/\1/p' "$work/gw.err")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "FAIL: the first gateway did not start" >&2; failures=$((failures + 1)); }
expect 2 "cannot serve HTTP on 127.0.0.1:$port: the address is in use (another kdapp mcp, or another server): stop that one, or give another port (--http 127.0.0.1:0" \
    "$KDAPP" mcp --http "127.0.0.1:$port" --data "$work/d5" --keys "$work/k"
kill "$gw" "$up" 2>/dev/null
wait "$gw" "$up" 2>/dev/null
expect 1 "no devnet runs for data directory $work/none (nothing answers at ipc://" \
    "$KDAPP" devnet-status --data "$work/none" --timeout 300
deep=$(mktemp -d /tmp/kd-deep.XXXXXX)
mkdir -p "$deep/$(printf '%0100d' 0)"
chmod 700 "$deep/$(printf '%0100d' 0)"
expect 1 "and a Unix socket's path holds at most 107: set XDG_RUNTIME_DIR to a shorter private directory" \
    env XDG_RUNTIME_DIR="$deep/$(printf '%0100d' 0)" "$KDAPP" devnet-status --data "$work/none" --timeout 300
rm -rf "$deep"

# --- types
expect 2 "--type 'chesss' is not a registered episode type: use one of tictactoe, fourinarow, checkers, chess," \
    "$KDAPP" play --type chesss --data "$work/d6" --keys "$work/k"
expect 2 "--type 'chesss' is not a registered episode type: use one of tictactoe," "$KDAPP" sim --type chesss --steps 1

# --- sim
expect 2 "kdapp sim: --dir $work/missing does not exist: make it first (mkdir -p $work/missing)" \
    "$KDAPP" sim --dir "$work/missing" --steps 10

[ "$failures" = 0 ] || exit 1
echo "cli errors: ok"
