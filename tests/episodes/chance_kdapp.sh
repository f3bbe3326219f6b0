#!/usr/bin/env bash
# chance_kdapp.sh — roulette and slots end to end through the `kdapp` CLI:
# a block script (the house's keys and proofs computed by chance_check.py,
# independently of engine/vrf.c) with bets and spins, a cheating reveal
# refused (bad_proof), a reorg after a reveal re-applied exactly, a reorg
# after an ask, a house that does not reveal losing to the claim past the
# DAA deadline; every draw verified from `kdapp log --json` alone and
# checked against the views; verify; `kdapp show` printing the slot
# machine's exact return to player; the simulator with its oracle; and a
# random player through the embedded MCP gateway, the house's reveals paid
# by the gateway.
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
data="$T/data"
check="$KD_SOURCE_DIR/tests/episodes/chance_check.py"

fail() { echo "FAIL: $*" >&2; exit 1; }

read -r RK RB < <(python3 "$check" house house roulette 1 1)
read -r SK SB < <(python3 "$check" house house slots 2 1)
read -r R3K R3B < <(python3 "$check" house house roulette 3 1)
E1=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
E2=ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100
P='"participants": ["test:player", "test:house"], "consent": ["test:player", "test:house"]'
house() { echo "\"house_key\": \"$1\", \"house_binding\": \"$2\""; }
BETS='"bets": [{"kind": "straight", "number": "00", "amount": 5}, {"kind": "red", "amount": 10}, {"kind": "split", "numbers": [17, 20], "amount": 2}, {"kind": "column", "number": 3, "amount": 3}]'
# ask TYPE COMMAND: the SHA-256 of the ask's bytes (what its draw's input ends with)
ask() { python3 "$check" ask "$1" "{$2}" | cut -d' ' -f1; }
AR1=$(ask roulette "$BETS, \"entropy\": \"$E1\"") AR2=$(ask roulette "\"bets\": [{\"kind\": \"even\", \"amount\": 7}], \"entropy\": \"$E2\"")
AS1=$(ask slots "\"spin\": 10, \"entropy\": \"$E2\"") AS2=$(ask slots "\"spin\": 3, \"entropy\": \"$E1\"")
# proof TYPE EPISODE DRAW ASK: the house's proof of that draw
proof() { python3 "$check" prove house "$1" "$2" 1 "$3" "$4" | cut -d' ' -f1; }
R1=$(proof roulette 1 1 "$AR1") R2=$(proof roulette 1 2 "$AR2") RX=$(proof roulette 1 2 "$AR1")
S1=$(proof slots 2 1 "$AS1") S2=$(proof slots 2 2 "$AS2") SX=$(proof slots 2 1 "$AS2")
cat >"$T/chance.jsonl" <<JSONL
{"accept": {"hash": "b1", "daa": 100, "txs": [{"new_episode": {"id": 1, "type": "roulette", $P, "params": {$(house "$RK" "$RB"), "reveal_timeout": 100, "start_chips": 100}}}, {"new_episode": {"id": 2, "type": "slots", $P, "params": {$(house "$SK" "$SB"), "reveal_timeout": 100, "start_credits": 100}}}, {"new_episode": {"id": 3, "type": "roulette", $P, "params": {$(house "$R3K" "$R3B"), "reveal_timeout": 100}}}]}}
{"accept": {"hash": "b2", "daa": 110, "txs": [{"command": {"episode": 1, "signer": "test:player", $BETS, "entropy": "$E1"}}, {"command": {"episode": 2, "signer": "test:player", "spin": 10, "entropy": "$E2"}}]}}
# cheating reveals refused (the proof of another draw, of another ask), then the right ones
{"accept": {"hash": "b3", "daa": 120, "txs": [{"command": {"episode": 1, "signer": "test:house", "reveal": "$RX"}}, {"command": {"episode": 1, "signer": "test:house", "reveal": "$R1"}}, {"command": {"episode": 2, "signer": "test:house", "reveal": "$SX"}}, {"command": {"episode": 2, "signer": "test:house", "reveal": "$S1"}}]}}
{"accept": {"hash": "b4", "daa": 130, "txs": [{"command": {"episode": 1, "signer": "test:player", "bets": [{"kind": "even", "amount": 7}], "entropy": "$E2"}}, {"command": {"episode": 2, "signer": "test:player", "spin": 3, "entropy": "$E1"}}]}}
# a reorg after the asks: re-included in another block
{"revert": "b4"}
{"accept": {"hash": "b4x", "daa": 131, "txs": [{"command": {"episode": 1, "signer": "test:player", "bets": [{"kind": "even", "amount": 7}], "entropy": "$E2"}}, {"command": {"episode": 2, "signer": "test:player", "spin": 3, "entropy": "$E1"}}]}}
{"accept": {"hash": "b5", "daa": 140, "txs": [{"command": {"episode": 1, "signer": "test:house", "reveal": "$R2"}}, {"command": {"episode": 2, "signer": "test:house", "reveal": "$S2"}}]}}
# a reorg after the reveals: the same reveals give the same draws
{"revert": "b5"}
{"accept": {"hash": "b5x", "daa": 141, "txs": [{"command": {"episode": 1, "signer": "test:house", "reveal": "$R2"}}, {"command": {"episode": 2, "signer": "test:house", "reveal": "$S2"}}]}}
# episode 3: the house never reveals; the claim before 200 + 100 is refused, after it pays the straight as won
{"accept": {"hash": "b6", "daa": 200, "txs": [{"command": {"episode": 3, "signer": "test:player", "bets": [{"kind": "straight", "number": 7, "amount": 10}], "entropy": "$E1"}}]}}
{"accept": {"hash": "b7", "daa": 299, "txs": [{"command": {"episode": 3, "signer": "test:player", "claim": true}}]}}
{"accept": {"hash": "b8", "daa": 300, "txs": [{"command": {"episode": 3, "signer": "test:player", "claim": true}}]}}
JSONL
"$KDAPP" feed --data "$data" "$T/chance.jsonl" >"$T/feed.out" || fail "feed: $(cat "$T/feed.out")"
log=$("$KDAPP" log --data "$data")
[ "$(grep -o bad_proof <<<"$log" | wc -l)" = 2 ] || fail "the log stores bad_proof for both cheats: $log"
grep -q too_early <<<"$log" || fail "the log stores too_early"
"$KDAPP" verify --data "$data" >/dev/null || fail "verify"
for id in 1 2 3; do "$KDAPP" show --data "$data" --json $id >"$T/show$id.json"; done
tr -d ' \n' <"$T/show3.json" | grep -q '"chips":1350,' || fail "episode 3: 990 + 10 x 36 after the claim: $(cat "$T/show3.json")"
tr -d ' \n' <"$T/show3.json" | grep -q '"winner":0' || fail "episode 3: won by the player"
tr -d ' \n' <"$T/show1.json" | grep -q '"rounds":2,' || fail "episode 1: two spins"

"$KDAPP" log --data "$data" --json >"$T/log.jsonl"
python3 "$check" verify "$T/log.jsonl" "$T/show1.json" "$T/show2.json" >"$T/check.out" ||
  fail "independent check: $(cat "$T/check.out")"
cat "$T/check.out"
grep -q '^ok: 4 draws verified from the log' "$T/check.out" || fail "check counts"
text=$("$KDAPP" show --data "$data" 2)
grep -q 'return to player: 1543/1600 = 96.4375%' <<<"$text" || fail "show prints the exact RTP: $text"

for type in roulette slots; do
  "$KDAPP" sim --type $type --steps 300 --seed 1 >"$T/sim.out" || fail "sim $type: $(tail -5 "$T/sim.out")"
  grep -q 'mismatches *0' "$T/sim.out" || fail "sim $type mismatches: $(cat "$T/sim.out")"
  "$KDAPP" play --data "$T/play-$type" --type $type --seed 2 \
    --params '{"max_rounds": 4}' >"$T/play.out" || fail "play $type: $(cat "$T/play.out")"
  grep -q 'house (its key.s holder, the gateway) pays what it owes' "$T/play.out" || fail "play $type: the house paid"
  grep -Eq 'spin [1-4] of 4, (finished|broke)' "$T/play.out" || fail "play $type ended: $(tail -20 "$T/play.out")"
done
echo "roulette and slots end to end: ok"
