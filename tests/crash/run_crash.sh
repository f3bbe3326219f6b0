#!/usr/bin/env bash
# run_crash.sh — kills the engine daemon at each crash point of
# engine/crashpoint.h in turn and checks that it recovers exactly.
#
# For every case POINT:N: start `kdapp engine` with KDAPP_CRASH_AT=POINT:N,
# feed script.jsonl to it with `kdapp feed --connect` (which re-sends a
# request until it is answered), let the engine abort, then
#   (a) the crashed store verifies (`kdapp verify`) and equals the oracle
#       after exactly the acknowledged events — plus the one in flight when
#       the point lies after the commit — by log length and digest;
#   (b) every event the feed saw acknowledged before the crash is in the
#       log (`kdapp log --json`);
# restart the engine without the variable, let the feed finish (re-delivery
# of the event in flight: applied again or acknowledged as a duplicate), and
#   (c) the store verifies and its final digest equals an uninterrupted
#       local run (`kdapp feed --data ORACLE script.jsonl`), as do the
#       digest the feed saw last and the whole log.
# Every wait is bounded polling on a condition. Needs a KD_CRASHPOINTS=ON
# build (tests/crash is only registered then).
#
# Environment: KDAPP (binary), KD_SOURCE_DIR, KD_TEST_TMP; KD_CRASH_CASES
# overrides the case list ("before_commit:1 after_commit:3").
set -euo pipefail
# stdbuf works by LD_PRELOAD, which an AddressSanitizer build would refuse
# to start under (the sanitizer pass of tools/scripts/check.sh runs this test).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

: "${KDAPP:?KDAPP must name the kdapp binary}"
src=${KD_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
script=$src/tests/crash/script.jsonl
# the engine's sockets live in the point's directory: KD_TEST_TMP is short
# enough for their paths (tests/CMakeLists.txt)
root=$(mktemp -d "${KD_TEST_TMP:-/tmp}/crash.XXXXXX")
pids=()

cleanup() {
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do
    wait "$p" 2>/dev/null || true
  done
  [[ ${KD_KEEP_TMP:-0} == 1 ]] || rm -rf "$root"
}
trap cleanup EXIT

fail() {
  echo "FAIL [$case]: $*" >&2
  for f in "$dir"/*.err "$dir"/feed.out; do
    [[ -s $f ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
  done
  exit 1
}

# wait_for SECONDS COMMAND...: polls COMMAND every 50 ms until it succeeds.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}
alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! kill -0 "$1" 2>/dev/null; }
socket_up() { [[ -S $1 ]]; }

# `kdapp log --json` prints one compact object a line, keys in a fixed
# order ("kind", "block", ..., "digest"), so sed picks the fields.
# digests DIR: the digest of every log entry, one a line, oldest first.
digests() { "$KDAPP" log --data "$1" --json | sed -n 's/.*"digest":"\([0-9a-f]*\)".*/\1/p'; }
# events DIR: "KIND HASH16" of every log entry.
events() {
  "$KDAPP" log --data "$1" --json |
    sed -n 's/.*"kind":"\([a-z]*\)","block":"\([0-9a-f]\{16\}\)[0-9a-f]*".*/\1 \2/p'
}

# The oracle: the whole script through a local engine, no daemon.
oracle=$root/oracle
"$KDAPP" feed --data "$oracle" --quiet "$script" >"$root/oracle.out"
want_final=$(sed -n 's/^tip height [0-9]* digest \([0-9a-f]*\)$/\1/p' "$root/oracle.out")
mapfile -t oracle_digests < <(digests "$oracle")
events=${#oracle_digests[@]}
[[ -n $want_final && $events -gt 0 ]] || { echo "the oracle run produced nothing" >&2; exit 1; }
echo "oracle: $events log entries, final digest $want_final"

cases=${KD_CRASH_CASES:-"before_put:1 before_put:4 before_put:9 after_put:1 after_put:8 after_put:30
  before_commit:1 before_commit:5 before_commit:10 after_commit:2 after_commit:5 after_commit:9
  after_apply:1 after_apply:7 before_ack:3 before_ack:8 before_ack:11"}

for case in $cases; do
  point=${case%%:*}
  dir=$root/${case/:/-}
  data=$dir/data
  mkdir -p "$dir"
  ingest=ipc://$dir/in
  publish=ipc://$dir/pub

  # 1. The engine that will abort, and the feed.
  KDAPP_CRASH_AT=$case "$KDAPP" engine --data "$data" --ingest "$ingest" --publish "$publish" \
    2>"$dir/engine1.err" &
  epid=$!
  pids+=("$epid")
  wait_for 20 socket_up "$dir/in" || fail "the engine did not start listening"
  stdbuf -oL "$KDAPP" feed --connect "$ingest" "$script" >"$dir/feed.out" 2>"$dir/feed.err" &
  fpid=$!
  pids+=("$fpid")

  # 2. The crash.
  wait_for 30 dead "$epid" || fail "the engine did not abort (is $point reached $case times?)"
  rc=0
  wait "$epid" || rc=$?
  ((rc == 134)) || fail "the engine exited with $rc, not by abort (134)"
  grep -q "crash point: aborting at $point" "$dir/engine1.err" || fail "no crash-point message"
  alive "$fpid" || fail "the feed ended before the crash"
  # Acknowledged events: the feed prints one "line N:" per reply and only
  # then sends the next event, so this count is exact once the engine died.
  acked=$(grep -c '^line ' "$dir/feed.out" || true)

  # (a) The crashed store: consistent, and the oracle's state after the
  # acknowledged events (plus the one in flight when it was committed).
  "$KDAPP" verify --data "$data" >"$dir/verify1.out" 2>&1 || fail "the crashed store does not verify"
  mapfile -t got < <(digests "$data")
  n=${#got[@]}
  case $point in
    before_put | after_put | before_commit) want_n=$acked ;;
    *) want_n=$((acked + 1)) ;;
  esac
  ((n == want_n)) || fail "the crashed store has $n log entries; $acked events were acknowledged, want $want_n"
  if ((n > 0)); then
    [[ ${got[n - 1]} == "${oracle_digests[n - 1]}" ]] ||
      fail "crashed store digest ${got[n - 1]} != oracle ${oracle_digests[n - 1]} after $n events"
  fi

  # (b) Every acknowledged event is in the log: the feed's short hashes
  # against the log's blocks, in order.
  events "$data" >"$dir/log1.txt"
  sed -n 's/^line [0-9]*: \(accept\|revert\) \([0-9a-f]\{16\}\):.*/\1 \2/p' "$dir/feed.out" |
    head -n "$acked" >"$dir/acked.txt"
  head -n "$acked" "$dir/log1.txt" | cmp -s - "$dir/acked.txt" ||
    fail "the acknowledged events are not the head of the log"

  # 3. Restart without the crash point; the feed re-delivers and finishes.
  "$KDAPP" engine --data "$data" --ingest "$ingest" --publish "$publish" 2>"$dir/engine2.err" &
  epid=$!
  pids+=("$epid")
  wait_for 60 dead "$fpid" || fail "the feed did not finish after the restart"
  rc=0
  wait "$fpid" || rc=$?
  ((rc == 0)) || fail "the feed failed with $rc after the restart"
  kill -TERM "$epid"
  wait_for 20 dead "$epid" || fail "the restarted engine did not stop"
  rc=0
  wait "$epid" || rc=$?
  ((rc == 0)) || fail "the restarted engine exited with $rc"

  # (c) Same final state as the uninterrupted run.
  "$KDAPP" verify --data "$data" >"$dir/verify2.out" 2>&1 || fail "the recovered store does not verify"
  seen=$(sed -n 's/^tip height [0-9]* digest \([0-9a-f]*\)$/\1/p' "$dir/feed.out")
  [[ $seen == "$want_final" ]] || fail "the feed saw final digest $seen, the oracle $want_final"
  mapfile -t got < <(digests "$data")
  [[ "${got[*]}" == "${oracle_digests[*]}" ]] || fail "the recovered log's digests differ from the oracle's"
  echo "ok   $case: crashed after $acked acks with $n entries; recovered to $want_final"
  [[ ${KD_KEEP_TMP:-0} == 1 ]] || rm -rf "$dir"
done
echo "all crash cases recovered"
