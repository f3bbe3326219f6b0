#!/usr/bin/env bash
# payer_node.sh — who pays on a Kaspa node (issue 37, rows R2 and R3, and
# the funding wallet's budgets), as an attacker tried it: `kdapp up --rpc
# --funding test:funder` on the fixture kaspad (fixture_wrpc.c) with an HTTP
# gateway attached to it (`kdapp mcp --http`, grants agent1 and agent2, the
# house), driven over HTTP with curl:
#   R2  a tokenless loopback session starts tic-tac-toe episodes between
#       made-up keys: each is refused, naming the funding wallet and the
#       missing grant; the funding wallet pays nothing;
#   R3  the same session names a granted seat's key (agent1, whose key holds
#       coins) as a participant, and asks in a dice game against the house:
#       refused; neither agent1, the house nor the funding wallet pays, and
#       the house owes no reveal;
#   budget  a granted session (agent2, a key without coins, so the funding
#       wallet pays) creates until the budget per grant stops it, with a
#       refusal naming the budget; the wallet paid no more than it;
#   self-pay  the refused session carries a refusal's payload in a Kaspa
#       transaction its own wallet (test:erin) builds and signs (`kdapp
#       wallet send --dry-run`) and sends it with kdapp_submit_transaction:
#       the episode is created, erin paid the fee, nobody else anything;
#   and what every wallet paid, and the refusals, in `kdapp stats` and
#   /metrics.
source "$(dirname "$0")/../integration/lib.sh"
source "$(dirname "$0")/lib_listen.sh"
command -v jq >/dev/null || fail "jq is needed"
start_fixture fx 5 --no-game --block-ms 100
KEYS=$T/keys
mkdir -m 700 "$KEYS" "$T/own"
# agent1 holds test:alice's coins and the house test:house's (the fixture
# funds the test keys); agent2 is a new key without coins.
(
  umask 077
  testkey alice >"$KEYS/agent1.key"
  testkey house >"$KEYS/house.key"
)
"$KDAPP" keygen --keys "$KEYS" agent2 >/dev/null || fail "keygen agent2"

# the fee of a creation-sized payload at the node's rate: the budget below
# is two and a half of them
FEE=$("$KDAPP" wallet send --rpc "$RPC" --keys "$T/own" --funding test:carol --dry-run \
  --payload-hex "$(printf "%0220d" 0)" | jq -r .fee)
[[ $FEE =~ ^[0-9]+$ ]] || fail "no fee from the dry run: $FEE"
BUDGET=$((FEE * 5 / 2))

bg up "$KDAPP" up --rpc "$RPC" --network testnet-10 --data "$T/data" --keys "$KEYS" --funding test:funder \
  --funding-budget "$BUDGET,none,none"
wait_for 20 file_has "$T/up.err" "following kaspad" || fail "kdapp up --rpc did not follow the node: $(cat "$T/up.err")"
start_gateway gw --grant agent1 --grant agent2 --house house --data "$T/data" --keys "$KEYS"
TOKEN1=${TOKEN[agent1]:-}
TOKEN2=${TOKEN[agent2]:-}
[[ -n $TOKEN1 && -n $TOKEN2 ]] || fail "no grant tokens: $(cat "$T/gw.out")"

session anon
session one "$TOKEN1"
session two "$TOKEN2"
F0=$(balance test:funder)
A0=$(balance agent1)
H0=$(balance house)
[[ -n $F0 && -n $A0 && -n $H0 ]] || fail "no balances: funder '$F0' agent1 '$A0' house '$H0'"

# ---- R2: tokenless creations between made-up keys
for i in 1 2 3 4 5; do
  call anon kdapp_start_episode "{\"type\":\"tictactoe\",\"participants\":[\"test:mallory$i\",\"test:trent$i\"]}"
  refused "R2 creation $i" "was not created" "no grant" "funding wallet test:funder (kaspatest:"
  [[ $(jq -r .structuredContent.error_code "$T/r.json") == denied ]] || fail "R2: error_code is not denied"
  [[ $(jq -r .structuredContent.payload_hex "$T/r.json") =~ ^[0-9a-f]+$ ]] || fail "R2: no payload_hex"
done
grep -q "was not sent: no wallet pays for this command: the session that asked holds no grant" "$T/up.err" ||
  fail "kdapp up does not say why it sent nothing: $(tail -3 "$T/up.err")"

# ---- R3: a granted seat's key as a participant; asks against the house
for i in 1 2 3; do
  call anon kdapp_start_episode "{\"type\":\"tictactoe\",\"participants\":[\"agent1\",\"test:mallory$i\"]}"
  # refused before any payment: agent1 never consented (issue 39: every named seat signs)
  refused "R3 creation naming agent1" "seat X must consent" "does not act for its key"
done
# a dice game of a stranger's key against the house, created by agent1's
# session (the funding wallet pays, for the grant agent1)
call one kdapp_start_episode '{"type":"dice","participants":["test:mallory1","house"]}'
is_error && fail "the dice game was not created: $(text)"
DICE=$(jq -r .structuredContent.episode_id "$T/r.json")
settle
F1=$(balance test:funder)
H1=$(balance house)
A1=$(balance agent1)
for i in 1 2 3 4; do
  call anon kdapp_execute_command "{\"episode_id\":$DICE,\"signer\":\"test:mallory1\",\"command\":{\"roll\":\"2d6\"}}"
  refused "R3 ask $i" "was not submitted" "no grant" "funding wallet test:funder"
done
call anon kdapp_get_episode_state "{\"episode_id\":$DICE}"
[[ $(jq -r '.structuredContent.rolls // .structuredContent.view.rolls // 0' "$T/r.json") == 0 ]] ||
  fail "R3: a roll was made: $(head -c 300 "$T/r.json")"
settle
[[ $(balance test:funder) == "$F1" ]] || fail "R3: the funding wallet paid for the stranger's asks"
[[ $(balance house) == "$H1" ]] || fail "R3: the house paid (a reveal) for the stranger's asks"
[[ $(balance agent1) == "$A1" && $A1 == "$A0" ]] || fail "R3: agent1's coins paid ($A0 -> $A1 -> $(balance agent1))"
[[ $H1 == "$H0" ]] || fail "R3: the house paid for the creation ($H0 -> $H1)"
FDICE=$((F0 - F1)) # the dice creation, for the grant agent1

# ---- the budget: agent2's creations stop at the budget per grant
made=0
for i in 1 2 3 4 5 6; do
  call two kdapp_start_episode "{\"type\":\"tictactoe\",\"participants\":[\"agent2\",\"test:trent$i\"]}"
  is_error && break
  made=$((made + 1))
done
((made >= 2 && made < 6)) || fail "budget: $made creations for a budget of $BUDGET sompi at a fee of about $FEE"
refused "the creation over the budget" "funding wallet test:funder" "budget of $BUDGET sompi for one grant" \
  "--funding-budget" "grant agent2"
settle
F2=$(balance test:funder)
SPENT2=$((F1 - F2))
((SPENT2 <= BUDGET && SPENT2 > 0)) || fail "budget: the funding wallet paid $SPENT2 for agent2 over $BUDGET"

# ---- self-pay: the stranger carries a refused payload in its own transaction
call anon kdapp_start_episode '{"type":"tictactoe","participants":["test:erin","test:mallory9"]}'
refused "the stranger's creation" "kdapp_submit_transaction"
HEX=$(jq -r .structuredContent.payload_hex "$T/r.json")
E0=$(balance test:erin "$T/own")
"$KDAPP" wallet send --rpc "$RPC" --keys "$T/own" --funding test:erin --payload-hex "$HEX" --dry-run >"$T/own.json" ||
  fail "the stranger's wallet did not build its transaction"
OWN_FEE=$(jq -r .fee "$T/own.json")
call anon kdapp_submit_transaction "$(jq -c '{transaction: (. | tojson)}' "$T/own.json")"
is_error && fail "the stranger's own transaction was refused: $(text)"
[[ $(jq -r .structuredContent.legal "$T/r.json") == true ]] || fail "self-pay: not applied: $(head -c 300 "$T/r.json")"
# a transaction the listener would never read is refused with the reason
call anon kdapp_submit_transaction '{"transaction":{"version":0}}'
refused "a malformed transaction" "not the node's JSON of a Kaspa transaction"
PAY=$(jq -r .transaction.payload "$T/own.json")
bad_tx() { jq -c --arg p "$1" '{transaction: (.transaction | .payload = $p | tojson)}' "$T/own.json"; }
call anon kdapp_submit_transaction "$(bad_tx "00000000${PAY:8}")"
refused "a foreign prefix" "does not start with this chain's kdapp header"
call anon kdapp_submit_transaction "$(bad_tx "${PAY:0:16}ff")"
refused "a payload that is no EpisodeMessage" "is not an EpisodeMessage"
off=0
for k in 1 2 3; do # another nonce: its id fits the pattern once in 1024
  call anon kdapp_submit_transaction "$(bad_tx "${PAY:0:8}$(printf '%08x' $((0x${PAY:8:8} ^ k)))${PAY:16}")"
  is_error || fail "a tampered transaction was taken"
  text | grep -q "does not fit the listener's pattern" && off=1
done
((off)) || fail "an id off the pattern is not named: $(text)"
settle
[[ $(balance test:erin "$T/own") == $((E0 - OWN_FEE)) ]] || fail "self-pay: erin did not pay exactly its fee"
[[ $(balance test:funder) == "$F2" ]] || fail "self-pay: the funding wallet paid"
[[ $(balance agent1) == "$A0" && $(balance house) == "$H0" ]] || fail "self-pay: agent1 or the house paid"

# ---- spend per payer: kdapp stats and /metrics
"$KDAPP" stats --data "$T/data" >"$T/stats.out" 2>&1 || fail "stats: $(cat "$T/stats.out")"
grep -q "wallet test:funder .* $((FDICE + SPENT2)) sompi in $((made + 1)) txs, the funding wallet" "$T/stats.out" ||
  fail "stats: the funding wallet's spending: $(cat "$T/stats.out")"
grep -q "funding for agent2 *$SPENT2 sompi in $made txs" "$T/stats.out" || fail "stats: per grant: $(cat "$T/stats.out")"
# no_grant: R3's three creations naming agent1 are refused for its missing consent before any payment
grep -q "payments refused .*no_grant=10 .*budget_grant=1" "$T/stats.out" || fail "stats: refusals: $(cat "$T/stats.out")"
grep -q "client-paid txs *1" "$T/stats.out" || fail "stats: client-paid: $(cat "$T/stats.out")"
curl -s "$BASE/metrics" >"$T/metrics.txt" || fail "/metrics"
grep -q "^kdapp_wallet_spent_sompi_total{wallet=\"test:funder\",address=\"kaspatest:[0-9a-z]*\",funding=\"true\"} $((FDICE + SPENT2))$" \
  "$T/metrics.txt" || fail "/metrics: the funding wallet: $(grep kdapp_wallet "$T/metrics.txt")"
grep -q '^kdapp_wallet_refusals_total{reason="no_grant"} 10$' "$T/metrics.txt" || fail "/metrics: the refusals"
grep -q '^kdapp_funding_grant_spent_sompi_total{grant="agent2"} '"$SPENT2"'$' "$T/metrics.txt" || fail "/metrics: per grant"
echo "payer_node: ok (fee $FEE, budget $BUDGET: $made creations)"
