#!/bin/bash
# cli_errors.sh — the mistakes of a first afternoon (issue 41), each
# answered with a sentence that ends with what to do, and the exit code the
# front page gives it (2: bad arguments, environment or input; 1: the
# operation failed), through the real `kdapp` ($KDAPP):
#
#   keys   a key directory named wrongly: the agent keys made there are
#          named on stderr; a granted key of the user's own must exist
#          (`--grant bob` → run `kdapp keygen bob` first), and none is made
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
expect 2 "there is no key bob in $work/other (no file $work/other/bob.key): run \`kdapp keygen bob --keys $work/other\` first" \
    "$KDAPP" mcp --data "$work/d2" --keys "$work/other" --grant bob
[ ! -e "$work/other/agent1.key" ] || { echo "FAIL: --grant bob made agent keys" >&2; failures=$((failures + 1)); }

[ "$failures" = 0 ] || exit 1
echo "cli errors: ok"
