#!/usr/bin/env bash
# dice_kdapp.sh — dice answered by the house's VRF end to end through the
# `kdapp` CLI: a block script (the house's key and proofs computed here by
# chance_check.py, independently of engine/vrf.c) with a roll, a cheating
# reveal refused (bad_proof: the proof of another draw), reorgs after a
# reveal and after a roll re-applied exactly, a reorg that takes back a
# roll and its reveal after which the published proof does not answer the
# roll made again with the same entropy and another roll (issue 37, R1: the
# draw's input is the SHA-256 of the ask's bytes), a house that does not reveal losing to the
# player's claim once the DAA deadline has passed (and not before), a
# reveal_timeout under the rules' floor refused (B8); every draw verified
# from `kdapp log --json` alone and checked against the engine's view;
# verify; show; the simulator with its oracle; and a random player through
# the embedded MCP gateway, the house's reveals arriving by themselves (the
# gateway holds its key and pays its duties); and a real MCP client session
# over `kdapp mcp --stdio` (chance_mcp.py).
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
data="$T/data"
check="$KD_SOURCE_DIR/tests/episodes/chance_check.py"

fail() { echo "FAIL: $*" >&2; exit 1; }

read -r K1 B1 < <(python3 "$check" house house dice 1 1)
read -r K2 B2 < <(python3 "$check" house house dice 2 1)
E1=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
E2=ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100
E3=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
# ask ROLL ENTROPY: the SHA-256 of the roll's bytes (what its draw's input ends with)
ask() { python3 "$check" ask dice "{\"roll\": \"$1\", \"entropy\": \"$2\"}" | cut -d' ' -f1; }
A1=$(ask 3d6+2 "$E1") A2=$(ask 1d20+5 "$E2") A2X=$(ask 2d20+5 "$E2") A3=$(ask 2d100-3 "$E3")
# proof EPISODE DRAW ASK: the house's proof of that draw
proof() { python3 "$check" prove house dice "$1" 1 "$2" "$3" | cut -d' ' -f1; }
P11=$(proof 1 1 "$A1") P12=$(proof 1 2 "$A1") P22=$(proof 1 2 "$A2") P23=$(proof 1 3 "$A3") P32=$(proof 1 2 "$A2X")
P='"participants": ["test:player", "test:house"], "consent": ["test:player", "test:house"]'
# the store first: a hand-made consent signs its chain (kdapp stats names it)
: | "$KDAPP" feed --data "$data" - >/dev/null || fail "cannot create the store"
CHAIN=$("$KDAPP" stats --data "$data" | awk '$1 == "chain" {print $2}')
[[ $CHAIN == local:* ]] || fail "kdapp stats names no local chain: $("$KDAPP" stats --data "$data")"
house() { echo "\"house_key\": \"$1\", \"house_binding\": \"$2\""; }
cat >"$T/dice.jsonl" <<JSONL
{"accept": {"hash": "b1", "daa": 100, "txs": [{"new_episode": {"id": 1, "type": "dice", $P, "params": {$(house "$K1" "$B1"), "reveal_timeout": 100, "max_rolls": 4}}}, {"new_episode": {"id": 2, "type": "dice", $P, "params": {$(house "$K2" "$B2"), "reveal_timeout": 100}}}, {"payload_hex": "$(python3 "$check" dice-creation 3 1 "$CHAIN")"}, {"payload_hex": "$(python3 "$check" dice-creation 4 100 "$CHAIN")"}]}}
{"accept": {"hash": "b2", "daa": 110, "txs": [{"command": {"episode": 1, "signer": "test:player", "roll": "3d6+2", "entropy": "$E1"}}]}}
# a cheating house: the proof of draw 2 for draw 1 (bad_proof), then the right one
{"accept": {"hash": "b3", "daa": 120, "txs": [{"command": {"episode": 1, "signer": "test:house", "reveal": "$P12"}}, {"command": {"episode": 1, "signer": "test:house", "reveal": "$P11"}}]}}
{"accept": {"hash": "b4", "daa": 130, "txs": [{"command": {"episode": 1, "signer": "test:player", "roll": "1d20+5", "entropy": "$E2"}}]}}
{"accept": {"hash": "b5", "daa": 140, "txs": [{"command": {"episode": 1, "signer": "test:house", "reveal": "$P22"}}]}}
# a reorg after the reveal: the same reveal re-included gives the same draw
{"revert": "b5"}
{"accept": {"hash": "b5x", "daa": 141, "txs": [{"command": {"episode": 1, "signer": "test:house", "reveal": "$P22"}}]}}
# R1: a reorg takes back the roll and its published reveal; the player rolls
# draw 2 again with the same entropy and another roll: the published proof
# does not answer it (its input is the new roll's bytes)
{"revert": "b5x"}
{"revert": "b4"}
{"accept": {"hash": "b4y", "daa": 131, "txs": [{"command": {"episode": 1, "signer": "test:player", "roll": "2d20+5", "entropy": "$E2"}}]}}
{"accept": {"hash": "b5y", "daa": 142, "txs": [{"command": {"episode": 1, "signer": "test:house", "reveal": "$P22"}}, {"command": {"episode": 1, "signer": "test:house", "reveal": "$P32"}}]}}
{"accept": {"hash": "b6", "daa": 150, "txs": [{"command": {"episode": 1, "signer": "test:player", "roll": "2d100-3", "entropy": "$E3"}}]}}
# a reorg after the ask: the roll re-included, then revealed
{"revert": "b6"}
{"accept": {"hash": "b6x", "daa": 151, "txs": [{"command": {"episode": 1, "signer": "test:player", "roll": "2d100-3", "entropy": "$E3"}}]}}
{"accept": {"hash": "b7", "daa": 152, "txs": [{"command": {"episode": 1, "signer": "test:house", "reveal": "$P23"}}]}}
# episode 2: the house never reveals; a claim before the deadline (200 + 100) is refused, after it wins
{"accept": {"hash": "b8", "daa": 200, "txs": [{"command": {"episode": 2, "signer": "test:player", "roll": "1d6", "entropy": "$E1"}}]}}
{"accept": {"hash": "b9", "daa": 299, "txs": [{"command": {"episode": 2, "signer": "test:player", "claim": true}}]}}
{"accept": {"hash": "b10", "daa": 300, "txs": [{"command": {"episode": 2, "signer": "test:player", "claim": true}}]}}
JSONL
"$KDAPP" feed --data "$data" "$T/dice.jsonl" >"$T/feed.out" || fail "feed: $(cat "$T/feed.out")"
log=$("$KDAPP" log --data "$data")
[ "$(grep -c bad_proof <<<"$log")" = 2 ] || fail "the log stores bad_proof twice (a cheat, the R1 replay): $log"
grep -q too_early <<<"$log" || fail "the log stores the code too_early"
# B8: a hand-made creation with reveal_timeout 1 is refused by the rules
# (not only by the JSON), naming the floor; the same with 100 is taken
grep -q '\[2:bad_params\]' <<<"$log" || fail "B8: the log stores bad_params for it: $log"
grep -q 'reveal_timeout 1 is outside 100' "$T/feed.out" || fail "B8: the rules refuse reveal_timeout 1: $(cat "$T/feed.out")"
"$KDAPP" show --data "$data" --json 3 >/dev/null 2>&1 && fail "episode 3 (reveal_timeout 1) does not exist"
"$KDAPP" show --data "$data" --json 4 >/dev/null || fail "episode 4 (reveal_timeout 100) exists"
"$KDAPP" verify --data "$data" >/dev/null || fail "verify"
"$KDAPP" show --data "$data" --json 1 >"$T/show1.json"
"$KDAPP" show --data "$data" --json 2 >"$T/show2.json"
tr -d ' \n' <"$T/show1.json" | grep -q '"rolls":3,' || fail "episode 1: three rolls: $(cat "$T/show1.json")"
tr -d ' \n' <"$T/show2.json" | grep -q '"winner":0' || fail "episode 2: the player won by the claim: $(cat "$T/show2.json")"
tr -d ' \n' <"$T/show2.json" | grep -q '"status":"house_forfeit"' || fail "episode 2: house_forfeit"

# every draw from the log alone, by hashlib, against what the engine shows
"$KDAPP" log --data "$data" --json >"$T/log.jsonl"
python3 "$check" verify "$T/log.jsonl" "$T/show1.json" "$T/show2.json" >"$T/check.out" ||
  fail "independent check: $(cat "$T/check.out")"
cat "$T/check.out"
grep -q '^ok: 3 draws verified from the log, 4 outcomes checked' "$T/check.out" || fail "check counts"
text=$("$KDAPP" show --data "$data" 1)
grep -q '#2 2d20+5: \[' <<<"$text" || fail "show renders the rolls: $text"

# --- the simulator with its oracle, dice only
"$KDAPP" sim --type dice --steps 300 --seed 1 >"$T/sim.out" || fail "sim: $(tail -5 "$T/sim.out")"
grep -q 'mismatches *0' "$T/sim.out" || fail "sim mismatches: $(cat "$T/sim.out")"

# --- a random player through the MCP gateway; the house (the gateway's key) reveals by itself
"$KDAPP" play --data "$T/play" --type dice --seed 2 \
  --params '{"max_rolls": 5}' >"$T/play.out" || fail "play: $(cat "$T/play.out")"
grep -q 'dice: 5 of 5 rolls, finished' "$T/play.out" || fail "play: five rolls revealed: $(cat "$T/play.out")"
grep -q 'house (its key.s holder, the gateway) pays what it owes' "$T/play.out" || fail "play: the house paid"
# --- a real MCP client session with `kdapp mcp --stdio`: start (the gateway
# commits as the house), a roll without entropy (filled), the reveal by itself
python3 "$KD_SOURCE_DIR/tests/episodes/chance_mcp.py" "$KDAPP" "$T/mcp" "$T/mcpkeys" >"$T/mcp.out" 2>&1 ||
  fail "mcp: $(cat "$T/mcp.out")"
cat "$T/mcp.out"
grep -q '^ok$' "$T/mcp.out" || fail "mcp session"
echo "dice end to end: ok"
