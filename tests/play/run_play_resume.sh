#!/bin/bash
# run_play_resume.sh — a game stopped and resumed with `kdapp play --episode
# ID` ($KDAPP), in fresh data directories under $KD_TEST_TMP:
#
#   1. hold'em left at --max-moves 6 prints the resume command; resuming it
#      (no --type: the episode's) plays on from where it stood, its seats'
#      duties paid by the resumed gateway, and the log verifies;
#   2. a chess game stopped by SIGINT (Ctrl-C) prints the summary line and
#      the resume command and exits 130; its gateway stopped with it; the
#      resume finishes the game;
#   3. resuming an episode that is not there, or with another --type, is
#      refused (exit 2) with a sentence naming what to do.
set -eu
: "${KDAPP:?KDAPP must name the kdapp binary}"
parent=${KD_TEST_TMP:-/tmp}
mkdir -p "$parent"
work=$(mktemp -d "$parent/resume-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
unset KDAPP_TTT_STRESS KDAPP_TTT_MAX_SYMBOLS KDAPP_DATA KDAPP_KEYS KDAPP_SHOW_PROMPTS

. "$(dirname "$0")/lib_play.sh" # fail
kd() { "$KDAPP" "$@" --data "$work/data" --keys "$work/keys"; }

# 1. hold'em stopped at --max-moves, then resumed
kd play --type holdem --seed 4 --max-moves 6 >"$work/one.out" 2>"$work/one.err" || fail "holdem exited $?"
id=$(sed -n 's/^resume: kdapp play --episode \([0-9]*\) --data .* --keys .*$/\1/p' "$work/one.out")
[ -n "$id" ] || fail "one: no resume line naming the data and key directories"
grep -q "^episode $id: stopped at --max-moves 6, game in progress" "$work/one.out" || fail "one: no summary line"
kd play --episode "$id" --seed 5 --max-moves 30 >"$work/one.resumed.out" 2>"$work/one.resumed.err" ||
    fail "resuming hold'em exited $?"
grep -q "^kdapp play: resuming episode $id (.*hold'em" "$work/one.resumed.out" || fail "one: not resumed"
grep -q "stopped at --max-moves 30, game in progress at\|won after\|draw after" "$work/one.resumed.out" ||
    fail "one: the resumed game did not go on"
kd verify >"$work/one.verify.out" 2>&1 || fail "one: verify failed"

# 2. SIGINT stops a chess game after its turn
# (job control on: a background job of a shell without it ignores SIGINT)
set -m
"$KDAPP" play --data "$work/data" --keys "$work/keys" --type chess --seed 3 --max-moves 400 \
    >"$work/two.out" 2>"$work/two.err" &
play=$!
set +m
tries=0 # bounded: 60 s for a move to be applied
until kd list 2>/dev/null | awk '$2 == "chess" && $4 > 1 { found = 1 } END { exit !found }'; do
    tries=$((tries + 1))
    [ $tries -lt 600 ] || { kill "$play"; fail "two: no chess move within 60 s"; }
    sleep 0.1
done
kill -INT "$play"
rc=0
wait "$play" || rc=$?
[ "$rc" = 130 ] || fail "two: kdapp play exited $rc after SIGINT, not 130"
grep -q 'stopping after this turn' "$work/two.err" || fail "two: no word that it stops"
id=$(sed -n 's/^resume: kdapp play --episode \([0-9]*\) .*$/\1/p' "$work/two.out")
[ -n "$id" ] || fail "two: no resume line"
grep -q "^episode $id: stopped at [0-9]* moves, game in progress" "$work/two.out" || fail "two: no summary"
# the resumed game plays on from where it stood: to its end, or (where
# SIGINT left it, a search may wander) 100 more moves
before=$(sed -n "s/^episode $id: stopped at \([0-9]*\) moves, game in progress.*/\1/p" "$work/two.out")
kd play --episode "$id" --max-moves 100 --seed 7 >"$work/two.resumed.out" 2>"$work/two.resumed.err" ||
    fail "resuming chess exited $?"
if ! grep -Eq "^episode $id: (white|black) \(search\) won after|^episode $id: draw after" "$work/two.resumed.out"; then
  after=$(sed -n "s/^episode $id: stopped at --max-moves 100, game in progress at \([0-9]*\) moves.*/\1/p" "$work/two.resumed.out")
  [[ -n $after && $after -ge $((before + 100)) ]] ||
    fail "two: the resumed game neither ended nor played 100 more moves from $before: $(tail -3 "$work/two.resumed.out")"
fi
kd verify >"$work/two.verify.out" 2>&1 || fail "two: verify failed"

# 3. refusals
rc=0
kd play --episode 12345 >"$work/three.out" 2>"$work/three.err" || rc=$?
[ "$rc" = 2 ] || fail "three: a missing episode exited $rc, not 2"
grep -q 'episode 12345 is not in .*kdapp list' "$work/three.err" || fail "three: no sentence for a missing episode"
rc=0
kd play --episode "$id" --type dice >"$work/three.out" 2>"$work/three.err" || rc=$?
[ "$rc" = 2 ] || fail "three: another --type exited $rc, not 2"
grep -q "is chess, not dice (leave out --type when resuming)" "$work/three.err" || fail "three: no sentence for --type"

echo "play resumed: ok"
