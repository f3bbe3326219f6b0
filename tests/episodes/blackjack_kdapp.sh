#!/usr/bin/env bash
# blackjack_kdapp.sh — blackjack end to end through the `kdapp` CLI, the
# house's commitment and reveals computed from its key as a gateway holding
# it would (`kdapp commit` and `kdapp duty`: kd_seat_commit for the store of
# --data, kd_seat_seed, secret_duty), every reveal's proof verified from
# the log by chance_check.py:
# a block script (created, bet, dealt, a hit, a stand and the dealer's
# play, a refused reveal with bad_proof), a reorg after the hit was
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
# the house pays one reveal in episode $1 (it must owe one)
house_pays_one() {
  local out
  out=$("$KDAPP" duty --data "$data" --signer test:house "$1") || fail "the house owes a card: $(view "$1")"
  block "$(cmd "$1" test:house "$out")"
}
# bets again until the deal leaves the player to act (a natural settles the
# round by itself: the house's key is fresh each run, so are the cards)
until_player_acts() {
  local tries=0
  while [ "$(await 1)" != player ]; do
    tries=$((tries + 1))
    [ $tries -le 5 ] || fail "five naturals in a row?: $(view 1)"
    block "$(cmd 1 test:alice "{\"action\": \"bet\", \"amount\": 10, \"entropy\": \"$E1\"}")"
    house_pays 1
  done
}
E1=1111111111111111111111111111111111111111111111111111111111111111
E2=2222222222222222222222222222222222222222222222222222222222222222
E3=3333333333333333333333333333333333333333333333333333333333333333

# --- creation: the commitment from the house's key, bound to this store
params=$("$KDAPP" commit --data "$data" --type blackjack --episode 1 --seat house --signer test:house --params '{"decks": 2, "rounds": 12, "timeout": 600, "house_key": "02ab"}')
grep -q '"house_key":"0[23][0-9a-f]\{64\}"' <<<"$params" || fail "commit: the house sets its own key: $params"
grep -q '"house_binding":"[0-9a-f]\{64\}"' <<<"$params" || fail "commit: $params"
# without the house's consent the creation is refused (no_consent): the house decides its own terms
block "[{\"new_episode\": {\"id\": 1, \"type\": \"blackjack\", \"participants\": [\"test:house\", \"test:alice\"], \"params\": $params, \"consent\": [\"test:alice\"]}}]"
"$KDAPP" log --data "$data" | grep -q no_consent || fail "a creation without the house's consent is refused"
block "[{\"new_episode\": {\"id\": 1, \"type\": \"blackjack\", \"participants\": [\"test:house\", \"test:alice\"], \"params\": $params}}]"
[ "$(view 1 | jq -r .to_move)" = 1 ] || fail "player1 bets first: $(view 1)"
"$KDAPP" duty --data "$data" --signer test:house 1 2>/dev/null && fail "the house owes nothing before a bet"

# --- a bet; the house deals
block "$(cmd 1 test:alice "{\"action\": \"bet\", \"amount\": 10, \"entropy\": \"$E1\"}")"
[ "$(view 1 | jq -r .to_move)" = 0 ] || fail "the house owes the cards"
# a proof that does not verify is refused with its code
bogus=$(printf '%0162d' 7)
block "$(cmd 1 test:house "{\"action\": \"reveal\", \"proof\": \"$bogus\"}")"
"$KDAPP" log --data "$data" | grep -q bad_proof || fail "the log stores the code bad_proof"
house_pays 1
[ "$(view 1 | jq .house.draws)" -ge 3 ] || fail "three cards dealt: $(view 1)"
until_player_acts
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
house_pays_one 1
revealed=$(state 1)
cards=$(view 1 | jq -c '.players[0].hands[0].cards')
echo "{\"revert\": \"b$n\"}" >"$T/r2.jsonl"
"$KDAPP" feed --data "$data" "$T/r2.jsonl" >/dev/null || fail "revert the reveal"
daa=$((daa - 10))
[ "$(await 1)" = card ] || fail "the reveal undone: the card is owed again: $(view 1)"
house_pays_one 1
[ "$(state 1)" = "$revealed" ] || fail "the reveal re-applied: the same card $cards"

# --- stand (when the hit did not end the hand; after a bust, in a new
# round) and the dealer's play, reverted and re-applied
if [ "$(await 1)" = idle ]; then
  until_player_acts
fi
if [ "$(await 1)" = player ]; then
  block "$(cmd 1 test:alice "{\"action\": \"stand\", \"entropy\": \"$E3\"}")"
fi
[ "$(await 1)" = dealer ] || fail "the dealer plays: $(view 1)"
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
# every reveal's proof, verified from the log alone
"$KDAPP" log --data "$data" --json >"$T/log.jsonl"
python3 "$KD_SOURCE_DIR/tests/episodes/chance_check.py" verify "$T/log.jsonl" >"$T/check.out" ||
  fail "independent check: $(cat "$T/check.out")"
draws=$(view 1 | jq .house.draws)
grep -q "^ok: $draws draws verified from the log" "$T/check.out" || fail "check: $draws draws: $(cat "$T/check.out")"
text=$("$KDAPP" show --data "$data" 1)
grep -q 'player1: ' <<<"$text" || fail "show draws the table: $text"
grep -q 'claimed' <<<"$text" || fail "show names the claimed hand: $text"

# --- issue 24, B4: another store with the same keys and the same episode
# (the log replayed into a new store): the house's commitment there is not
# its own for that store, so its key holder does not act on it
block "$(cmd 1 test:alice "{\"action\": \"bet\", \"amount\": 10, \"entropy\": \"$E2\"}")"
"$KDAPP" duty --data "$data" --signer test:house 1 >/dev/null || fail "the house owes a card in its own store"
"$KDAPP" replay --data "$data" --into "$T/other" >/dev/null || fail "replay into another store"
"$KDAPP" duty --data "$T/other" --signer test:house 1 2>"$T/duty.err" && fail "duty acted on another store's commitment"
grep -q 'not made by this key for this store' "$T/duty.err" || fail "duty names why: $(cat "$T/duty.err")"

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
