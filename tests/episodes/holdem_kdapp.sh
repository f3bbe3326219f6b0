#!/usr/bin/env bash
# holdem_kdapp.sh — hold'em end to end through the `kdapp` CLI: perft over
# the betting tree (the deck steps paid from the seats' keys as forced
# steps); a hand fed as blocks with every shuffle, lock, key and hand secret
# computed from the seat's key (`kdapp duty`), a wrong key refused, a reorg
# in the middle of the hand restoring and re-applying the exact bytes, the
# hand checked by an independent verifier written from episodes/holdem/README.md's
# protocol (holdem_check.py, from `kdapp log --json`); a key withheld and
# lost to the claim at the deadline; `kdapp verify`; the simulator with its
# oracle; and matches through the embedded MCP gateway (search against
# random), one of them with reorgs.
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
data="$T/data"
n=0

fail() { echo "FAIL: $*" >&2; exit 1; }
block() {
  n=$((n + 1))
  echo "{\"accept\": {\"hash\": \"b$n\", \"daa\": $((100 + n)), \"txs\": [$1]}}" >"$T/b$n.jsonl"
  "$KDAPP" feed --data "$data" "$T/b$n.jsonl" >"$T/feed.out" || fail "feed b$n: $(cat "$T/feed.out")"
}
cmd() { echo "{\"command\": {\"episode\": $1, \"episode_type\": \"holdem\", \"signer\": \"test:$2\", \"command\": $3}}"; }
duty() { "$KDAPP" duty --data "$data" --signer "test:$2" "$1"; }
show() { "$KDAPP" show --data "$data" --json "$1" | tr -d ' \n'; }
state_of() { grep -o '"state":"[0-9a-f]*"' <<<"$1"; }

# --- perft: the betting tree from the start (fold, call, min raise, pot, all in)
out=$("$KDAPP" perft holdem --depth 1)
grep -qw 5 <<<"$out" || fail "perft holdem depth 1: want 5, got: $out"
out=$("$KDAPP" perft holdem --depth 2)
grep -qw 24 <<<"$out" || fail "perft holdem depth 2: want 24, got: $out"

# --- a hand fed as blocks; ann (seat 0) and bob (seat 1)
params=$("$KDAPP" commit --data "$data" --type holdem --episode 1 --seat seat0 --signer test:ann --params '{"timeout": 100, "stack": 200}')
params=$("$KDAPP" commit --data "$data" --type holdem --episode 1 --seat seat1 --signer test:bob --params "$params")
grep -q '"binding_0":"[0-9a-f]\{64\}"' <<<"$params" || fail "commit: $params"
block "{\"new_episode\": {\"id\": 1, \"type\": \"holdem\", \"participants\": [\"test:ann\", \"test:bob\"], \"consent\": [\"test:ann\", \"test:bob\"], \"params\": $params}}"
"$KDAPP" duty --data "$data" --signer test:bob 1 2>"$T/none.err" && fail "bob owes nothing before ann's shuffle"
grep -q "owes nothing" "$T/none.err" || fail "duty says why: $(cat "$T/none.err")"
block "$(cmd 1 ann "$(duty 1 ann)")"  # shuffle
block "$(cmd 1 bob "$(duty 1 bob)")"  # shuffle
block "$(cmd 1 ann "$(duty 1 ann)")"  # lock
block "$(cmd 1 bob "$(duty 1 bob)")"  # lock
keys=$(duty 1 bob)
grep -q '"positions":\[0,1\]' <<<"$keys" || fail "bob opens ann's hole cards: $keys"
forged=$(sed 's/"keys":\["\(.\)/"keys":["f/' <<<"$keys")
[[ $forged != "$keys" ]] || forged=$(sed 's/"keys":\["f/"keys":["e/' <<<"$keys")
block "$(cmd 1 bob "$forged")"
"$KDAPP" log --data "$data" | grep -q wrong_key || fail "a forged key is refused as wrong_key"
block "$(cmd 1 bob "$keys")"
block "$(cmd 1 ann "$(duty 1 ann)")"
block "$(cmd 1 ann '{"raise": 30}')"
before=$(show 1)
grep -q '"to_act":"seat1"' <<<"$before" || fail "bob to act: $before"
# --- a reorg in the middle of the hand: bob's call and the flop's keys
call_txs=$(cmd 1 bob '{"call": true}')
block "$call_txs"
flop_txs="$(cmd 1 ann "$(duty 1 ann)"), $(cmd 1 bob "$(duty 1 bob)")"
block "$flop_txs"
after=$(show 1)
grep -q '"board":\["..","..",".."\]' <<<"$after" || fail "the flop is open: $after"
printf '{"revert": "b%d"}\n{"revert": "b%d"}\n' "$n" "$((n - 1))" >"$T/r1.jsonl"
"$KDAPP" feed --data "$data" "$T/r1.jsonl" >"$T/feed.out" || fail "revert: $(cat "$T/feed.out")"
[[ $(state_of "$(show 1)") == $(state_of "$before") ]] || fail "the revert restores the state bytes"
echo "{\"accept\": {\"hash\": \"c1\", \"daa\": $((100 + n - 1)), \"txs\": [$call_txs]}}" >"$T/re.jsonl"
echo "{\"accept\": {\"hash\": \"c2\", \"daa\": $((100 + n)), \"txs\": [$flop_txs]}}" >>"$T/re.jsonl"
"$KDAPP" feed --data "$data" "$T/re.jsonl" >"$T/feed.out" || fail "re-include: $(cat "$T/feed.out")"
[[ $(state_of "$(show 1)") == $(state_of "$after") ]] || fail "re-applied exactly"
# --- bob bets, ann folds; both publish their hand secrets; the check passes
block "$(cmd 1 bob '{"raise": 40}')"
block "$(cmd 1 ann '{"fold": true}')"
block "$(cmd 1 ann "$(duty 1 ann)"), $(cmd 1 bob "$(duty 1 bob)")"
settled=$(show 1)
grep -q '"hand":2' <<<"$settled" && grep -q '"last_result":"fold"' <<<"$settled" || fail "hand 1 settled: $settled"
grep -q '"last_won":\[-30,30\]' <<<"$settled" || fail "bob won ann's 30: $settled"
# --- the hand checked by an independent verifier, from the log alone
"$KDAPP" log --data "$data" --json >"$T/log.json"
python3 "$KD_SOURCE_DIR/tests/episodes/holdem_check.py" "$T/log.json" 1 1 >"$T/check.out" ||
  fail "holdem_check: $(cat "$T/check.out")"
grep -q "hand 1: every step checks" "$T/check.out" || fail "holdem_check: $(cat "$T/check.out")"
# and it catches a log whose second shuffle lost a card (one hex digit of seat 1's deck changed;
# the steps after it, recomputed from that deck, differ too)
python3 - "$T/log.json" >"$T/bad.json" <<'PY'
import json, sys
for n, line in enumerate(open(sys.argv[1])):
    e = json.loads(line)
    if e.get("seq") == 3:
        p = e["txs"][0]["payload"]
        e["txs"][0]["payload"] = p[:400] + ("0" if p[400] != "0" else "1") + p[401:]
    print(json.dumps(e))
PY
python3 "$KD_SOURCE_DIR/tests/episodes/holdem_check.py" "$T/bad.json" 1 1 >"$T/bad.out" && fail "a changed shuffle passes the check"
grep -q "seat1's shuffle FAILS" "$T/bad.out" && grep -q "a step FAILS" "$T/bad.out" ||
  fail "holdem_check finds the changed shuffle: $(cat "$T/bad.out")"
# --- a step withheld: in hand 2 ann shuffles, bob never does; ann claims at the deadline
block "$(cmd 1 ann "$(duty 1 ann)")"
block "$(cmd 1 ann '{"claim": true}')"
"$KDAPP" log --data "$data" | tail -1 | grep -q too_early || fail "a claim before the deadline is too_early"
n=$((n + 100))
block "$(cmd 1 ann '{"claim": true}')"
over=$(show 1)
grep -q '"stage":"over"' <<<"$over" && grep -q '"match_winner":"seat0"' <<<"$over" || fail "bob lost by silence: $over"
grep -q '"cheaters":\[false,true\]' <<<"$over" || fail "bob is named: $over"
"$KDAPP" verify --data "$data" >/dev/null || fail "verify"
text=$("$KDAPP" show --data "$data" 1)
grep -q 'match over: seat0' <<<"$text" || fail "show draws the table: $text"

# --- the simulator with its oracle, hold'em only
"$KDAPP" sim --type holdem --steps 400 --seed 1 >"$T/sim.out" || fail "sim: $(tail -5 "$T/sim.out")"
grep -q 'mismatches *0' "$T/sim.out" || fail "sim mismatches: $(cat "$T/sim.out")"

# --- matches through the MCP gateway: its duties thread shuffles, locks and
# opens for the seats whose keys it holds
"$KDAPP" play --data "$T/play" --type holdem --seat seat0=search --seat seat1=random --seed 2 --max-moves 300 \
  --quiet >"$T/play.out" || fail "play: $(cat "$T/play.out")"
grep -Eq 'won after|stopped at' "$T/play.out" || fail "play: $(cat "$T/play.out")"
"$KDAPP" verify --data "$T/play" >/dev/null || fail "verify the played match"
"$KDAPP" play --data "$T/reorg" --type holdem --seat seat0=search --seat seat1=random --seed 5 --max-moves 20 \
  --reorg-every 6 --reorg-depth 2 --quiet >"$T/reorg.out" || fail "play with reorgs: $(cat "$T/reorg.out")"
grep -q 'reorgs: [1-9]' "$T/reorg.out" || fail "reorgs: $(cat "$T/reorg.out")"
"$KDAPP" verify --data "$T/reorg" >/dev/null || fail "verify the reorged match"
echo "holdem end to end: ok"
