#!/usr/bin/env bash
# blackjack_kdapp.sh — blackjack end to end through the `kdapp` CLI, the
# house's commit and reveals computed from its key as a gateway holding
# it would (`kdapp commit` and `kdapp duty`: kd_secret_seed, secret_commit,
# secret_duty):
# a block script (created, bet, dealt, a hit, a stand and the dealer's
# play, a refused reveal with wrong_link), a reorg after the hit was
# asked, after its card was revealed and after the dealer's play, each
# restored and re-applied exactly; a missed deadline claimed; the log
# verified and shown; the simulator with its oracle; `kdapp play` with
# the search (basic strategy), random and llm players, the house's
# reveals coming from the embedded gateway by themselves.
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
data="$T/data"
fail() { echo "FAIL: $*" >&2; exit 1; }

n=0
daa=100
# feed one block of the given txs (a JSON array); prints nothing
block() {
  n=$((n + 1)) daa=$((daa + 10))
  echo "{\"accept\": {\"hash\": \"b$n\", \"daa\": $daa, \"txs\": $1}}" >"$T/b$n.jsonl"
  "$KDAPP" feed --data "$data" "$T/b$n.jsonl" >"$T/feed.out" || fail "feed b$n: $(cat "$T/feed.out")"
}
state() { "$KDAPP" show --data "$data" --json "$1" | jq -r .state; }
view() { "$KDAPP" show --data "$data" --json "$1"; }
cmd() { # episode signer command-json
  echo "[{\"command\": {\"episode\": $1, \"episode_type\": \"blackjack\", \"signer\": \"$2\", \"command\": $3}}]"
}
# the house pays what it owes in episode $1, one reveal a block
house_pays() {
  local out
  while out=$("$KDAPP" duty --data "$data" --signer test:house "$1" 2>/dev/null); do
    block "$(cmd "$1" test:house "$out")"
  done
}
await() { view "$1" | jq -r ".players[0].await"; }
E1=1111111111111111111111111111111111111111111111111111111111111111
E2=2222222222222222222222222222222222222222222222222222222222222222
E3=3333333333333333333333333333333333333333333333333333333333333333

# --- creation: the commit from the house's key
params=$("$KDAPP" commit --type blackjack --episode 1 --seat house --signer test:house --params '{"decks": 2, "rounds": 3, "timeout": 600}')
grep -q '"house_commit":"[0-9a-f]\{64\}"' <<<"$params" || fail "commit: $params"
block "[{\"new_episode\": {\"id\": 1, \"type\": \"blackjack\", \"participants\": [\"test:house\", \"test:alice\"], \"params\": $params}}]"
[ "$(view 1 | jq -r .to_move)" = 1 ] || fail "player1 bets first: $(view 1)"
"$KDAPP" duty --data "$data" --signer test:house 1 2>/dev/null && fail "the house owes nothing before a bet"

# --- a bet; the house deals
block "$(cmd 1 test:alice "{\"action\": \"bet\", \"amount\": 10, \"entropy\": \"$E1\"}")"
[ "$(view 1 | jq -r .to_move)" = 0 ] || fail "the house owes the cards"
# a wrong link is refused with its code
block "$(cmd 1 test:house '{"action": "reveal", "seat": 1, "link": "00000000000000000000000000000000000000000000000000000000000000ff"}')"
"$KDAPP" log --data "$data" | grep -q wrong_link || fail "the log stores the code wrong_link"
house_pays 1
[ "$(await 1)" = player ] || fail "after the deal the player acts: $(view 1)"
[ "$(view 1 | jq '.players[0].hands[0].cards | length')" = 2 ] || fail "two cards dealt"

# --- a reorg after the hit was asked: the hit's block reverted and mined again
block "$(cmd 1 test:alice "{\"action\": \"hit\", \"entropy\": \"$E2\"}")"
hit_block=$n
asked=$(state 1)
echo "{\"revert\": \"b$hit_block\"}" >"$T/r1.jsonl"
"$KDAPP" feed --data "$data" "$T/r1.jsonl" >/dev/null || fail "revert the hit"
daa=$((daa - 10)) # mined again at the same DAA score
[ "$(await 1)" = player ] || fail "the hit undone: the player acts again"
block "$(cmd 1 test:alice "{\"action\": \"hit\", \"entropy\": \"$E2\"}")"
[ "$(state 1)" = "$asked" ] || fail "the hit re-applied: the same state"

# --- a reorg after the card was revealed: the same card again
house_pays 1
revealed=$(state 1)
cards=$(view 1 | jq -c '.players[0].hands[0].cards')
echo "{\"revert\": \"b$n\"}" >"$T/r2.jsonl"
"$KDAPP" feed --data "$data" "$T/r2.jsonl" >/dev/null || fail "revert the reveal"
daa=$((daa - 10))
[ "$(await 1)" = card ] || fail "the reveal undone: the card is owed again: $(view 1)"
house_pays 1
[ "$(state 1)" = "$revealed" ] || fail "the reveal re-applied: the same card $cards"

# --- stand (when the hit did not end the hand) and the dealer's play, reverted and re-applied
if [ "$(await 1)" = player ]; then
  block "$(cmd 1 test:alice "{\"action\": \"stand\", \"entropy\": \"$E3\"}")"
fi
first=$((n + 1))
house_pays 1
[ "$(await 1)" = idle ] || fail "the round is settled: $(view 1)"
settled=$(state 1)
for ((b = n; b >= first; b--)); do echo "{\"revert\": \"b$b\"}"; done >"$T/r3.jsonl"
"$KDAPP" feed --data "$data" "$T/r3.jsonl" >/dev/null || fail "revert the dealer's play"
daa=$((daa - 10 * (n - first + 1)))
[ "$(await 1)" != idle ] || fail "the dealer's play undone"
house_pays 1
[ "$(state 1)" = "$settled" ] || fail "the dealer's play re-applied: the same result"
echo "round 1: $(view 1 | jq -c '.players[0] | {hands: [.hands[] | {cards, total, outcome}], dealer: .dealer.cards, chips}')"

# --- a missed deadline: the house does not reveal, the player claims
block "$(cmd 1 test:alice "{\"action\": \"bet\", \"amount\": 20, \"entropy\": \"$E1\"}")"
chips=$(view 1 | jq .players[0].chips)
block "$(cmd 1 test:alice '{"action": "claim"}')"
"$KDAPP" log --data "$data" | grep -q too_early || fail "an early claim is refused with too_early"
daa=$((daa + 600))
block "$(cmd 1 test:alice '{"action": "claim"}')"
[ "$(view 1 | jq -r '.players[0].hands[0].outcome')" = claimed ] || fail "claimed: $(view 1)"
[ "$(view 1 | jq .players[0].chips)" = $((chips + 40)) ] || fail "the claim pays 1:1"

"$KDAPP" verify --data "$data" >/dev/null || fail "verify"
text=$("$KDAPP" show --data "$data" 1)
grep -q 'player1: ' <<<"$text" || fail "show draws the table: $text"
grep -q 'claimed' <<<"$text" || fail "show names the claimed hand: $text"

# --- the simulator with its oracle, blackjack only (the house pays from its sim key)
"$KDAPP" sim --type blackjack --steps 400 --seed 1 >"$T/sim.out" || fail "sim: $(tail -5 "$T/sim.out")"
grep -q 'mismatches *0' "$T/sim.out" || fail "sim mismatches: $(cat "$T/sim.out")"

# --- play through the embedded gateway: the house's reveals come by themselves
"$KDAPP" play --data "$T/play" --type blackjack --seat player1=search --seed 3 --quiet \
  --params '{"rounds": 4}' >"$T/play.out" || fail "play search: $(cat "$T/play.out")"
grep -Eq 'won|draw' "$T/play.out" || fail "play search: a result: $(cat "$T/play.out")"
"$KDAPP" play --data "$T/play" --type blackjack --seat player1=random --seed 4 --quiet \
  --params '{"rounds": 3}' >"$T/random.out" || fail "play random: $(cat "$T/random.out")"
grep -Eq 'won|draw' "$T/random.out" || fail "play random: a result: $(cat "$T/random.out")"
echo "blackjack end to end: ok"
