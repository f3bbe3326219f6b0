#!/usr/bin/env bash
# audit_check.sh — every draw of every chance game checked by an outsider:
# `kdapp sim` plays dice, roulette, slots and blackjack with reorgs at
# several seeds and keeps its stores; on each store chance_check.py (its own
# protobuf reader, SHA-256 stream and VRF, written from the docs) replays
# `kdapp log --json`, verifies every draw and compares the outcomes with
# `kdapp show --json`; then every `kdapp audit --json` report must show the
# same draws, outputs, words and outcomes, with the verdict "ok".
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
check="$KD_SOURCE_DIR/tests/episodes/chance_check.py"
# The sim's stores go where it puts them by default (tmpfs when there is
# one: each synced commit is cheap there), each removed once checked.
session=
trap 'rc=$?; [ -z "$session" ] || rm -rf "$session"; (exit $rc); kd_cleanup' EXIT
draws=0
for type in dice roulette slots blackjack; do
  for seed in 1 2; do
    "$KDAPP" sim --type $type --seed $seed --steps 250 --session-steps 250 --reorg-rate 0.15 --keep \
      >"$T/sim.out" || fail "kdapp sim --type $type --seed $seed: $(cat "$T/sim.out")"
    store=$(sed -n 's/^sim: session kept: //p' "$T/sim.out" | tail -1)
    [ -d "$store" ] || fail "the sim kept no store: $(cat "$T/sim.out")"
    session=$(dirname "$store")
    grep -Eq 'reorgs +[1-9]' "$T/sim.out" || fail "$type seed $seed: the sim made no reorg"
    "$KDAPP" log --data "$store" --json >"$T/log.jsonl"
    ids=$("$KDAPP" list --data "$store" | awk -v t=$type 'NR > 1 && $2 == t {print $1}')
    [ -n "$ids" ] || fail "$type seed $seed: no episode of the type"
    shows=() audits=()
    for id in $ids; do
      "$KDAPP" show --data "$store" --json "$id" >"$T/show.$id.json"
      shows+=("$T/show.$id.json")
      "$KDAPP" audit --data "$store" --json "$id" >"$T/audit.$id.json" || fail "kdapp audit $id: not ok"
      audits+=("$T/audit.$id.json")
    done
    python3 "$check" verify "$T/log.jsonl" "${shows[@]}" "${audits[@]}" >"$T/verify.out" ||
      fail "$type seed $seed: chance_check verify: $(tail -3 "$T/verify.out")"
    n=$(sed -n 's/^ok: .* \([0-9]*\) draws of [0-9]* audits the same$/\1/p' "$T/verify.out")
    echo "$type seed $seed: $(tail -1 "$T/verify.out")"
    draws=$((draws + n))
    rm -rf "$session" "$T"/show.* "$T"/audit.*
    session=
  done
done
((draws > 50)) || fail "only $draws draws were audited"
echo "ok: $draws draws audited"
