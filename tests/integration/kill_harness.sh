#!/usr/bin/env bash
# kill_harness.sh — durability under kills. A long generated block script
# (300 blocks, several stress-mode episodes, reverts up to 3 deep, rejected
# txs) is fed over NNG with `kdapp feed --connect` while the engine is
# killed again and again and restarted. The feed never gives up (no
# --timeout): it re-dials the restarted engine and re-sends the request that
# was in flight, which the engine applies exactly once (idempotent by block
# hash). Each round must end with the digest, the log and the episodes of
# one uninterrupted local run; the log being equal entry for entry shows
# that every acknowledged block is there and nothing was applied twice or
# half.
#
# Rounds repeat until at least KD_KILLS kills (default 50; 500 with
# KD_SOAK=1). KD_SEED fixes the script and the kill schedule (printed).
#
# The kill schedule comes from the seed alone (a 64-bit LCG below, the same
# on every machine), one kill point per engine life:
#
#   points  (KD_KILL_MODE=points; the default when the build has the
#           engine's crash points, KD_KILL_AT_POINTS=1 from CMake): the
#           engine dies by itself at the Nth time it reaches a write-path
#           point of engine/crashpoint.h (KDAPP_CRASH_AT=before_put:3,
#           after_put:41, before_commit, after_commit, after_apply,
#           before_ack), as a kill -9 there would leave it. The point is a
#           place in the engine's own execution, not a moment in time, so
#           the same seed replays the same kills on any machine at any
#           speed: each life ends after the same requests at the same
#           instant of the write path, and the log has the same length at
#           every kill. The printed "schedule" digest covers the points and
#           those log lengths; two runs with one seed print the same one.
#           (The one thing that can shift it: REQ re-sends a request left
#           unanswered for 2 s on a live connection, so an engine slower
#           than that sees an extra duplicate request, which moves the
#           before_put count.)
#   signals (KD_KILL_MODE=signals; the default otherwise, e.g. the release
#           build): kill -9 from outside, at an instant no one can replay:
#           the seed fixes the target of each kill (after N more log
#           entries in this life, then D ms), and the digest covers those
#           targets; where inside the engine the signal lands is the
#           scheduler's choice.
#
# The script signs every move with an explicit "counter", so what it means
# does not depend on how `kdapp feed --connect` chooses move counters: the
# harness judges the engine's exactly-once promise alone.
source "$(dirname "$0")/lib.sh"
ulimit -c 0
seed=${KD_SEED:-$((RANDOM * 32768 + RANDOM))}
target=${KD_KILLS:-50}
[[ ${KD_SOAK:-0} == 1 ]] && target=${KD_KILLS:-500}
blocks=${KD_BLOCKS:-300}
mode=${KD_KILL_MODE:-$([[ ${KD_KILL_AT_POINTS:-0} == 1 ]] && echo points || echo signals)}
[[ $mode == points || $mode == signals ]] || fail "KD_KILL_MODE='$mode': use points or signals"
echo "kill harness: seed $seed, $mode, at least $target kills, $blocks blocks a round"

# next_random N — sets R to a number in 0..N-1 from the seeded LCG (Knuth's
# MMIX constants; bash arithmetic is 64-bit and wraps).
lcg=$seed
next_random() {
  lcg=$((lcg * 6364136223846793005 + 1442695040888963407))
  R=$((((lcg >> 33) & 0x7fffffff) % $1))
}
points=(before_put after_put before_commit after_commit after_apply before_ack)
# Hits of each point per request: after_put is reached several times per
# block (undo, episodes, block, height, log, meta), the others about once.
point_range=(12 60 12 12 12 12)

awk -v seed="$seed" -v blocks="$blocks" -v episodes=6 -f "$(dirname "$0")/gen_script.awk" >"$T/script.jsonl"
"$KDAPP" feed --quiet --data "$T/ref" "$T/script.jsonl" >"$T/ref.out"
ref_digest=$(last_digest "$T/ref.out")
"$KDAPP" log --json --data "$T/ref" >"$T/ref.log"
"$KDAPP" list --json --data "$T/ref" >"$T/ref.list"
[[ -n $ref_digest ]] || fail "the reference run printed no digest"

ingest="ipc://$T/ingest.ipc"
views="ipc://$T/views.ipc"
# log_entries DIR — the number of log entries in a store (0 before any).
log_entries() { "$KDAPP" stats --data "$1" 2>/dev/null | sed -n 's/.*, \([0-9]*\) log entries,.*/\1/p' | grep . || echo 0; }
alive() { kill -0 "$1" 2>/dev/null; }

# diag — what a stalled feed and engine are doing, for the failure report.
diag() {
  echo "--- stall: feed $feed_pid, engine $ENGINE_PID" >&2
  ps -o pid,stat,etime,cmd -p "$feed_pid,$ENGINE_PID" >&2 || true
  if command -v gdb >/dev/null; then
    for p in "$feed_pid" "$ENGINE_PID"; do
      timeout 60 gdb -batch -p "$p" -ex 'thread apply all bt' 2>/dev/null | grep -E '^#[0-9]+ .* (in|at) [a-z_]' | grep -v ' in ?? ' >&2 || true
    done
  fi
}

# start_life [CRASH_AT] — starts the engine on $data (armed at CRASH_AT when
# given) and waits until it serves or has already died (a crash point may
# be reached before it prints "serving"); sets ENGINE_PID.
start_life() {
  if [[ -n ${1:-} ]]; then
    bg engine env KDAPP_CRASH_AT="$1" "$KDAPP" engine --data "$data" --ingest "$ingest" --publish "$views"
  else
    bg engine "$KDAPP" engine --data "$data" --ingest "$ingest" --publish "$views"
  fi
  ENGINE_PID=$BG_PID
  wait_for 20 bash -c "grep -q serving '$T/engine.err' || ! kill -0 $ENGINE_PID" || fail "the engine did not start"
}

# watch_progress — fails the round when the log has not grown for 60 s
# while the engine and the feed are both alive (checked every second).
watch_progress() {
  ((SECONDS - checked >= 1)) || return 0
  checked=$SECONDS
  local n
  n=$(log_entries "$data")
  if ((n != last_log)); then
    last_log=$n
    grown=$SECONDS
  elif ((SECONDS - grown >= 60)); then
    diag
    fail "round $round: no progress for 60 s at $n log entries with the engine and the feed alive"
  fi
}

kills=0
round=0
trace="$T/schedule.txt"
: >"$trace"
while ((kills < target)); do
  round=$((round + 1))
  data="$T/r$round"
  round_kills=0
  last_log=-1 grown=$SECONDS checked=0
  progressed=1
  feed_pid=
  while :; do
    crash_at=
    if [[ $mode == points ]]; then
      next_random ${#points[@]}
      p=$R
      next_random "${point_range[$p]}"
      crash_at="${points[$p]}:$((R + 1))"
      plan=$crash_at
    else
      next_random 8
      more=$R
      ((progressed || more > 0)) || more=1 # a life after one without progress waits for some
      next_random 50
      delay=$R
      plan="+$more entries +${delay}ms"
    fi
    start_life "$crash_at"
    [[ -n $feed_pid ]] || {
      bg feed "$KDAPP" feed --quiet --connect "$ingest" "$T/script.jsonl"
      feed_pid=$BG_PID
    }
    base=$(log_entries "$data")
    killed=0
    if [[ $mode == points ]]; then
      while alive "$ENGINE_PID" && alive "$feed_pid"; do
        watch_progress
        sleep 0.02
      done
      alive "$ENGINE_PID" || killed=1
    else
      while alive "$feed_pid" && (($(log_entries "$data") < base + more)); do
        watch_progress
        sleep 0.02
      done
      if alive "$feed_pid"; then
        sleep "$(printf '0.%03d' "$delay")"
        kill -9 "$ENGINE_PID" 2>/dev/null || true
        killed=1
      fi
    fi
    ((killed)) || break # the feed is done and this engine lives: the round ends
    wait "$ENGINE_PID" 2>/dev/null || true
    if [[ $mode == points ]]; then
      file_has "$T/engine.err" "crash point: aborting at ${crash_at%%:*} (hit ${crash_at##*:})" ||
        fail "round $round: the engine died, but not at its crash point $crash_at"
    fi
    kills=$((kills + 1))
    round_kills=$((round_kills + 1))
    after=$(log_entries "$data")
    progressed=$((after > base))
    # points: the log length at each kill is part of what the seed replays
    if [[ $mode == points ]]; then
      echo "round $round kill $round_kills: $plan, log $after" >>"$trace"
    else
      echo "round $round kill $round_kills: $plan" >>"$trace"
    fi
    alive "$feed_pid" || {
      # the feed finished just as its engine died: serve the round's end
      start_life
      break
    }
  done
  wait_exit 120 "$feed_pid"
  ((EXIT_CODE == 0)) || fail "round $round: the feed exited $EXIT_CODE"
  digest=$(last_digest "$T/feed.out")
  kill -TERM "$ENGINE_PID" 2>/dev/null || true
  wait_exit 20 "$ENGINE_PID"
  ((EXIT_CODE == 0)) || fail "round $round: the engine exited $EXIT_CODE on SIGTERM"
  [[ $digest == "$ref_digest" ]] || fail "round $round: digest $digest != uninterrupted $ref_digest"
  "$KDAPP" log --json --data "$data" >"$T/round.log"
  diff -q <(log_but_consents "$T/round.log") <(log_but_consents "$T/ref.log") >/dev/null || {
    diff <(log_but_consents "$T/round.log") <(log_but_consents "$T/ref.log") | head -20 >&2
    fail "round $round: the log differs from the uninterrupted run"
  }
  "$KDAPP" list --json --data "$data" | diff - "$T/ref.list" || fail "round $round: episodes differ"
  echo "round $round: $round_kills kills, digest ${digest:0:16} matches"
  rm -rf "$data"
done
[[ ${KD_VERBOSE:-0} == 1 ]] && cat "$trace"
schedule=$(sha256sum <"$trace" | cut -c1-16)
echo "PASS: $kills kills in $round rounds (seed $seed, $mode, schedule $schedule), every round equal to the uninterrupted run"
