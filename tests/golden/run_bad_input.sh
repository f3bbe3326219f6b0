#!/bin/sh
# run_bad_input.sh — bad input to the real `kdapp` binary ($KDAPP) is
# reported with exit code 2 and a message that names what was wrong, and
# applies nothing:
#   - a malformed block-script line: "line N:" on stderr, no line of the
#     script applied (not even the valid ones before it);
#   - `kdapp show 99` on an episode that does not exist;
#   - KDAPP_TTT_MAX_SYMBOLS=abc: the variable is named;
#   - a chain that is none, another chain than the store's, a devnet on a
#     Kaspa store, a consent with no store to read the chain of;
#   - a house limit the gateway cannot use.
set -u

: "${KDAPP:?KDAPP must name the kdapp binary}"
parent=${KD_TEST_TMP:-/tmp}
mkdir -p "$parent"
work=$(mktemp -d "$parent/badinput-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
unset KDAPP_TTT_STRESS KDAPP_TTT_MAX_SYMBOLS KDAPP_DATA KDAPP_KEYS
fail=0

# expect_exit WANT NAME: compares $rc with WANT.
expect_exit() {
    if [ "$rc" -ne "$1" ]; then
        echo "FAIL $2: exit code $rc, want $1" >&2
        cat "$work/err" >&2
        fail=1
    fi
}

# expect_stderr TEXT NAME: stderr must contain TEXT.
expect_stderr() {
    if ! grep -qF -- "$1" "$work/err"; then
        echo "FAIL $2: stderr lacks '$1':" >&2
        cat "$work/err" >&2
        fail=1
    fi
}

data="$work/data"
keys="$work/keys"

# A store with one episode, so that "nothing applied" is observable.
cat >"$work/good.jsonl" <<'JSONL'
{"accept": {"hash": "a1", "txs": [{"new_episode": {"id": 1, "type": "tictactoe", "participants": ["test:alice", "test:bob"]}}]}}
JSONL
"$KDAPP" feed --quiet --data "$data" --keys "$keys" "$work/good.jsonl" >/dev/null 2>"$work/err"
rc=$?
expect_exit 0 "good script"
"$KDAPP" log --data "$data" >"$work/log.before" 2>"$work/err"

# Line 3 is malformed; lines 2 (a creation) must not be applied either.
cat >"$work/bad.jsonl" <<'JSONL'
# a comment on line 1
{"accept": {"hash": "a2", "txs": [{"new_episode": {"id": 2, "type": "tictactoe", "participants": ["test:alice", "test:bob"]}}]}}
{"accept": {"hash": "a3", "txs": [{"move": {"episode": 2, "row": 0}}
JSONL
"$KDAPP" feed --data "$data" --keys "$keys" "$work/bad.jsonl" >"$work/out" 2>"$work/err"
rc=$?
expect_exit 2 "malformed script line"
expect_stderr "line 3:" "malformed script line"
"$KDAPP" show --data "$data" 2 >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "episode 2 of the rejected script"
"$KDAPP" log --data "$data" >"$work/log.after" 2>"$work/err"
if ! cmp -s "$work/log.before" "$work/log.after"; then
    echo "FAIL malformed script line: the log changed" >&2
    diff -u "$work/log.before" "$work/log.after" >&2
    fail=1
fi

# A missing episode.
"$KDAPP" show --data "$data" 99 >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "show 99"
expect_stderr "99" "show 99"

# A malformed environment variable stops the program at start.
KDAPP_TTT_MAX_SYMBOLS=abc "$KDAPP" show --data "$data" 1 >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "KDAPP_TTT_MAX_SYMBOLS=abc"
expect_stderr "KDAPP_TTT_MAX_SYMBOLS" "KDAPP_TTT_MAX_SYMBOLS=abc"
KDAPP_TTT_MAX_SYMBOLS=abc "$KDAPP" feed --data "$data" --keys "$keys" "$work/good.jsonl" >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "KDAPP_TTT_MAX_SYMBOLS=abc feed"
expect_stderr "KDAPP_TTT_MAX_SYMBOLS" "KDAPP_TTT_MAX_SYMBOLS=abc feed"

# The gateway checks its command line and environment before it starts
# anything: no data directory appears for a command that cannot run.
"$KDAPP" mcp --data "$work/mcp-a" --keys "$keys" --http nonsense </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "mcp --http nonsense"
expect_stderr "ADDR:PORT" "mcp --http nonsense"
KDAPP_MCP_TOKEN= "$KDAPP" mcp --data "$work/mcp-b" --keys "$keys" --http 0.0.0.0:9 </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "mcp beyond loopback without a token"
expect_stderr "KDAPP_MCP_TOKEN" "mcp beyond loopback without a token"
KDAPP_MCP_CALLS_PER_S=abc "$KDAPP" mcp --data "$work/mcp-c" --keys "$keys" </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "KDAPP_MCP_CALLS_PER_S=abc"
expect_stderr "KDAPP_MCP_CALLS_PER_S" "KDAPP_MCP_CALLS_PER_S=abc"
KDAPP_MCP_TIMEOUT_S=0 "$KDAPP" mcp --data "$work/mcp-d" --keys "$keys" --http 127.0.0.1:0 </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "KDAPP_MCP_TIMEOUT_S=0"
expect_stderr "KDAPP_MCP_TIMEOUT_S='0' is not valid" "KDAPP_MCP_TIMEOUT_S=0"
"$KDAPP" mcp --data "$work/mcp-e" --keys "$keys" --grant '' </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "mcp --grant ''"
expect_stderr "--grant '' is not valid" "mcp --grant ''"
# A grant or a house the key directory cannot give: the gateway does not serve.
"$KDAPP" mcp --data "$work/mcp-f" --keys "$keys" --grant nosuch </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "mcp --grant nosuch"
expect_stderr "grant 'nosuch': there is no key nosuch in" "mcp --grant nosuch"
"$KDAPP" mcp --data "$work/mcp-f" --keys "$keys" --grant 'agent1,' </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "mcp --grant 'agent1,'"
expect_stderr "a key name is empty" "mcp --grant 'agent1,'"
"$KDAPP" mcp --data "$work/mcp-f" --keys "$keys" --house test:house </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "mcp --house test:house"
expect_stderr "public test key" "mcp --house test:house"
# A house limit the gateway cannot use: refused before anything starts.
"$KDAPP" mcp --data "$work/mcp-g" --keys "$keys" --house agent1 --house-limit chips=5 </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "mcp --house-limit chips=5"
expect_stderr "house limit 'chips=5': no type's house has a term of that name" "mcp --house-limit chips=5"
"$KDAPP" mcp --data "$work/mcp-g" --keys "$keys" --house-limit start_chips=5 </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "mcp --house-limit without --house"
expect_stderr "it needs a house (--house)" "mcp --house-limit without --house"
# The house's reveal depth: a DAA score from 0 to a day's (864000).
"$KDAPP" mcp --data "$work/mcp-g" --keys "$keys" --reveal-depth 864001 </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "mcp --reveal-depth 864001"
expect_stderr "--reveal-depth '864001' is not valid: use DAA score from 0 to 864000" "mcp --reveal-depth 864001"
for d in mcp-a mcp-b mcp-c mcp-d mcp-e mcp-g; do
  if [ -e "$work/$d" ]; then
    echo "FAIL: a refused mcp command created $d"
    fail=1
  fi
done

# A runtime directory others may use (the attack: another local user made
# it first, mode 0777, and swapped the sockets): every command that uses
# the default sockets refuses it, naming it and what to do, and exits 1.
mkdir -m 700 "$work/run" && mkdir "$work/run/kdapp" && chmod 777 "$work/run/kdapp"
for cmd in up engine devnet devnet-status watch mcp; do
  XDG_RUNTIME_DIR="$work/run" timeout 20 "$KDAPP" $cmd --data "$work/run-data" --keys "$keys" </dev/null >/dev/null 2>"$work/err"
  rc=$?
  expect_exit 1 "$cmd with a runtime directory open to others"
  expect_stderr "the runtime directory $work/run/kdapp is not private" "$cmd with a runtime directory open to others"
  expect_stderr "XDG_RUNTIME_DIR" "$cmd with a runtime directory open to others"
done

# `kdapp bench --dir` on a directory that is not there: a setup failure,
# said as such, exit 2 (not "5 targets missed").
"$KDAPP" bench --quick --only engine --dir "$work/no-such-dir" >"$work/out" 2>"$work/err"
rc=$?
expect_exit 2 "bench --dir missing"
expect_stderr "--dir $work/no-such-dir: No such file or directory" "bench --dir missing"
if grep -q "targets missed" "$work/out"; then
  echo "FAIL bench --dir missing: it ran and judged targets"
  fail=1
fi

# The chain a store follows: a name that is none (no store made), another
# chain than the store's, a devnet (kdapp up) on a store of a Kaspa network,
# a consent with no store to name the chain of.
"$KDAPP" feed --data "$work/chain-a" --keys "$keys" --chain kaspa:Main "$work/good.jsonl" >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "feed --chain kaspa:Main"
expect_stderr "chain 'kaspa:Main' is not a chain name" "feed --chain kaspa:Main"
if [ -e "$work/chain-a" ]; then
    echo "FAIL: a refused --chain created a store"
    fail=1
fi
"$KDAPP" feed --data "$data" --keys "$keys" --chain kaspa:mainnet "$work/good.jsonl" >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "feed --chain kaspa:mainnet into a local store"
expect_stderr "follows chain local:" "feed --chain kaspa:mainnet into a local store"
expect_stderr "not kaspa:mainnet" "feed --chain kaspa:mainnet into a local store"
: | "$KDAPP" feed --quiet --data "$work/chain-k" --chain kaspa:testnet-10 - >/dev/null 2>"$work/err"
rc=$?
expect_exit 0 "a store of kaspa:testnet-10"
timeout 20 "$KDAPP" up --quiet --data "$work/chain-k" </dev/null >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "kdapp up (a devnet) on a store of kaspa:testnet-10"
expect_stderr "follows chain kaspa:testnet-10, not a local chain" "kdapp up (a devnet) on a store of kaspa:testnet-10"
"$KDAPP" submit --data "$work/no-store" --keys "$keys" --episode 5 --new --type dice \
    --participants test:player,test:house --consent test:house >/dev/null 2>"$work/err"
rc=$?
expect_exit 2 "submit --consent without a store"
expect_stderr "holds no store to read it from" "submit --consent without a store"

# Sanity: the store is still readable and episode 1 is there.
"$KDAPP" show --data "$data" 1 >/dev/null 2>"$work/err"
rc=$?
expect_exit 0 "show 1 afterwards"

[ $fail -eq 0 ] && echo "bad input reported as expected"
exit $fail
