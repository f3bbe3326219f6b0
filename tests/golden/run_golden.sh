#!/bin/sh
# run_golden.sh SCRIPT EXPECTED_DIR — golden test of a block script through
# the real `kdapp` binary ($KDAPP). It feeds the script into a fresh data
# directory stage by stage and compares what `kdapp strategy`, `kdapp show
# --json` and the feed's final digest line print with the committed files in
# EXPECTED_DIR:
#
#   after_eviction.strategy.json  after the accept just before the revert
#   after_revert.strategy.json    after the revert (must also equal the
#                                 state two blocks earlier, digest included)
#   final.view.json, final.strategy.json, final.digest   after the script
#
# The stages are the script's prefixes up to its revert line. Exits non-zero
# with a diff on any mismatch. KD_GOLDEN_UPDATE=1 rewrites the expected
# files instead (then review them by hand before committing).
set -eu

script=$1
expected=$2
: "${KDAPP:?KDAPP must name the kdapp binary}"
parent=${KD_TEST_TMP:-/tmp}
mkdir -p "$parent"
work=$(mktemp -d "$parent/golden-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
unset KDAPP_TTT_STRESS KDAPP_TTT_MAX_SYMBOLS KDAPP_DATA KDAPP_KEYS
fail=0

# feed STAGE FILE: feeds FILE into a fresh directory for STAGE and leaves
# the feed's output in $work/STAGE.feed.
feed() {
    "$KDAPP" feed --data "$work/$1.data" --keys "$work/keys" "$2" >"$work/$1.feed" 2>"$work/$1.err" || {
        echo "kdapp feed failed for stage $1:" >&2
        cat "$work/$1.err" >&2
        exit 1
    }
}

# check NAME GOT: compares GOT with EXPECTED_DIR/NAME (or writes it).
check() {
    if [ "${KD_GOLDEN_UPDATE:-0}" = 1 ]; then
        cp "$2" "$expected/$1"
        echo "updated $expected/$1"
    elif ! diff -u "$expected/$1" "$2"; then
        echo "golden mismatch: $1" >&2
        fail=1
    fi
}

revert_line=$(grep -n '"revert"' "$script" | head -n 1 | cut -d: -f1)
[ -n "$revert_line" ] || { echo "$script has no revert line" >&2; exit 1; }
sed -n "1,$((revert_line - 2))p" "$script" >"$work/before.jsonl"   # up to the block before the reverted one
sed -n "1,$((revert_line - 1))p" "$script" >"$work/evicted.jsonl"  # up to the reverted block
sed -n "1,${revert_line}p" "$script" >"$work/reverted.jsonl"       # through the revert

feed before "$work/before.jsonl"
feed evicted "$work/evicted.jsonl"
feed reverted "$work/reverted.jsonl"
feed final "$script"

"$KDAPP" strategy --data "$work/before.data" 7 >"$work/before.strategy.json"
"$KDAPP" strategy --data "$work/evicted.data" 7 >"$work/evicted.strategy.json"
"$KDAPP" strategy --data "$work/reverted.data" 7 >"$work/reverted.strategy.json"
"$KDAPP" strategy --data "$work/final.data" 7 >"$work/final.strategy.json"
"$KDAPP" show --json --data "$work/final.data" 7 >"$work/final.view.json"
grep '^tip height' "$work/final.feed" >"$work/final.digest"
grep '^tip height' "$work/before.feed" >"$work/before.digest"
grep '^tip height' "$work/reverted.feed" >"$work/reverted.digest"

# The revert restores the state and the digest of the block before.
if ! diff -u "$work/before.strategy.json" "$work/reverted.strategy.json"; then
    echo "the revert did not restore the board of the block before" >&2
    fail=1
fi
if ! diff -u "$work/before.digest" "$work/reverted.digest"; then
    echo "the revert did not restore the digest of the block before" >&2
    fail=1
fi

check after_eviction.strategy.json "$work/evicted.strategy.json"
check after_revert.strategy.json "$work/reverted.strategy.json"
check final.strategy.json "$work/final.strategy.json"
check final.view.json "$work/final.view.json"
check final.digest "$work/final.digest"
exit $fail
