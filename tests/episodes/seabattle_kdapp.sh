#!/usr/bin/env bash
# seabattle_kdapp.sh — sea battle end to end through the `kdapp` CLI: each
# seat's root committed from its key (`kdapp commit`, bound to the store of
# --data: another store, or another commitment, gets another fleet, issue
# 24 B4), shots fed as blocks
# and every answer and reveal computed with the seat's key (`kdapp duty`);
# a false opening refused with its code and the truth taken after it; a
# reorg in the middle of the battle restoring and re-applying exactly; a
# resignation, both boards revealed and judged; a missed answer lost to the
# claim at the deadline (DAA score); `kdapp verify`; the simulator with its
# oracle; and whole games through the (embedded) MCP gateway, whose duties
# thread answers and reveals for the seats by itself.
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
data="$T/data"
n=0

fail() { echo "FAIL: $*" >&2; exit 1; }
# feed one block (its txs JSON) at the next height
block() {
  n=$((n + 1))
  echo "{\"accept\": {\"hash\": \"b$n\", \"daa\": $((100 + n)), \"txs\": [$1]}}" >"$T/b$n.jsonl"
  "$KDAPP" feed --data "$data" "$T/b$n.jsonl" >"$T/feed.out" || fail "feed b$n: $(cat "$T/feed.out")"
}
cmd() { echo "{\"command\": {\"episode\": $1, \"episode_type\": \"seabattle\", \"signer\": \"test:$2\", \"command\": $3}}"; }
duty() { "$KDAPP" duty --data "$data" --signer "test:$2" "$1"; }
show() { "$KDAPP" show --data "$data" --json "$1" | tr -d ' \n'; }
# outsider DIR: chance_check.py (written from the docs, its own protobuf
# reader and hashes) replays DIR's `kdapp log --json`, checks every opening
# and board against its root, plays the rules and compares each episode's
# boards, stage, leader, reason and reveals with `kdapp show --json`.
outsider() {
  local dir=$1 shows=() id
  "$KDAPP" log --data "$dir" --json >"$T/outsider.log"
  for id in $("$KDAPP" list --data "$dir" | awk 'NR > 1 && $2 == "seabattle" {print $1}'); do
    "$KDAPP" show --data "$dir" --json "$id" >"$T/outsider.$id.json"
    shows+=("$T/outsider.$id.json")
  done
  python3 "$KD_SOURCE_DIR/tests/episodes/chance_check.py" verify "$T/outsider.log" "${shows[@]}" >"$T/outsider.out" ||
    fail "the outside check of $dir: $(tail -3 "$T/outsider.out")"
  grep -q "^ok: 0 draws verified from the log, ${#shows[@]} outcomes checked" "$T/outsider.out" ||
    fail "the outside check of $dir checked $(tail -1 "$T/outsider.out")"
}

# --- creation: each seat commits from its own key
params=$("$KDAPP" commit --data "$data" --type seabattle --episode 1 --seat blue --signer test:blue --params '{"timeout": 100}')
params=$("$KDAPP" commit --data "$data" --type seabattle --episode 1 --seat red --signer test:red --params "$params")
grep -q '"blue_root":"[0-9a-f]\{64\}"' <<<"$params" || fail "commit: $params"
grep -q '"red_root":"[0-9a-f]\{64\}","red_binding":"[0-9a-f]\{64\}"' <<<"$params" ||
  grep -q '"red_binding":"[0-9a-f]\{64\}","red_root":"[0-9a-f]\{64\}"' <<<"$params" || fail "commit: $params"
# B4: the same key, the same episode in another store (or committed again): another fleet
other=$("$KDAPP" commit --data "$T/other" --type seabattle --episode 1 --seat blue --signer test:blue)
root() { grep -o '"blue_root":"[0-9a-f]*"' <<<"$1"; }
[ "$(root "$other")" != "$(root "$params")" ] || fail "another store, another fleet: $other"
block "{\"new_episode\": {\"id\": 1, \"type\": \"seabattle\", \"participants\": [\"test:blue\", \"test:red\"], \"consent\": [\"test:blue\", \"test:red\"], \"params\": $params}}"
"$KDAPP" duty --data "$data" --signer test:red 1 2>"$T/none.err" && fail "red owes nothing before a shot"
grep -q "owes nothing" "$T/none.err" || fail "duty says why: $(cat "$T/none.err")"

# --- shots and answers; red's first answer is first forged
block "$(cmd 1 blue '{"shot": "c5"}')"
truth=$(duty 1 red)
grep -q '"answer"' <<<"$truth" || fail "red owes an answer: $truth"
if grep -q '"content":0' <<<"$truth"; then forged=${truth/\"content\":0/\"content\":1}; else
  forged=$(sed 's/"content":[1-5]/"content":0/' <<<"$truth"); fi
block "$(cmd 1 red "$forged")"
"$KDAPP" log --data "$data" | grep -q false_opening || fail "the forged opening is refused as false_opening"
block "$(cmd 1 red "$truth")"
for pair in "red e5" "blue a1" "red j10" "blue j1"; do
  set -- $pair
  other=$([[ $1 == blue ]] && echo red || echo blue)
  block "$(cmd 1 "$1" "{\"shot\": \"$2\"}")"
  block "$(cmd 1 "$other" "$(duty 1 "$other")")"
done
before=$(show 1)
grep -q '"move_count":10' <<<"$before" || fail "ten commands applied: $before"

# --- a reorg in the middle of the battle: the last shot and its answer
# reverted, then the same blocks' commands re-included in new blocks
shot_txs=$(cmd 1 red '{"shot": "f6"}')
block "$shot_txs"
answer_txs=$(cmd 1 blue "$(duty 1 blue)")
block "$answer_txs"
after=$(show 1)
echo '{"revert": "b'$n'"}' >"$T/r1.jsonl"
echo '{"revert": "b'$((n - 1))'"}' >>"$T/r1.jsonl"
"$KDAPP" feed --data "$data" "$T/r1.jsonl" >"$T/feed.out" || fail "revert: $(cat "$T/feed.out")"
reverted=$(show 1)
state_of() { grep -o '"state":"[0-9a-f]*"' <<<"$1"; }
[[ $(state_of "$reverted") == $(state_of "$before") ]] || fail "the revert restores the state bytes: $reverted vs $before"
grep -q '"last_event":"rollback"' <<<"$reverted" || fail "the view says a rollback: $reverted"
# the same commands in new blocks at the same DAA scores: the same bytes
echo "{\"accept\": {\"hash\": \"c1\", \"daa\": $((100 + n - 1)), \"txs\": [$shot_txs]}}" >"$T/re.jsonl"
echo "{\"accept\": {\"hash\": \"c2\", \"daa\": $((100 + n)), \"txs\": [$answer_txs]}}" >>"$T/re.jsonl"
"$KDAPP" feed --data "$data" "$T/re.jsonl" >"$T/feed.out" || fail "re-include: $(cat "$T/feed.out")"
again=$(show 1)
[[ $(state_of "$again") == $(state_of "$after") ]] || fail "re-applied exactly: $again vs $after"
grep -q '"move_count":12' <<<"$again" || fail "twelve commands after the re-inclusion: $again"

# --- red resigns; both reveal their whole boards (3.3 kB commands)
block "$(cmd 1 red '{"resign": true}')"
block "$(cmd 1 red "$(duty 1 red)")"
block "$(cmd 1 blue "$(duty 1 blue)")"
final=$(show 1)
grep -q '"stage":"over"' <<<"$final" || fail "over: $final"
grep -q '"phase":"won","winner":0' <<<"$final" || fail "blue (seat 0) won: $final"
grep -q '"leader":"blue"' <<<"$final" || fail "blue leads: $final"
grep -q '"revealed":{"blue":"legal","red":"legal"}' <<<"$final" || fail "both fleets legal: $final"

# --- a missed answer: episode 2 (timeout 100, the rules' floor; 99 is refused); red never answers
params=$("$KDAPP" commit --data "$data" --type seabattle --episode 2 --seat blue --signer test:blue --params '{"timeout": 99}')
params=$("$KDAPP" commit --data "$data" --type seabattle --episode 2 --seat red --signer test:red --params "$params")
echo "{\"accept\": {\"hash\": \"t99\", \"txs\": [{\"new_episode\": {\"id\": 2, \"type\": \"seabattle\", \"participants\": [\"test:blue\", \"test:red\"], \"consent\": [\"test:blue\", \"test:red\"], \"params\": $params}}]}}" >"$T/t99.jsonl"
"$KDAPP" feed --data "$data" "$T/t99.jsonl" >"$T/feed.out" 2>&1 && fail "a timeout of 99 is refused"
grep -q 'timeout must be an integer 100' "$T/feed.out" || fail "the refusal names the floor: $(cat "$T/feed.out")"
params=${params/\"timeout\":99/\"timeout\":100}
block "{\"new_episode\": {\"id\": 2, \"type\": \"seabattle\", \"participants\": [\"test:blue\", \"test:red\"], \"consent\": [\"test:blue\", \"test:red\"], \"params\": $params}}"
block "$(cmd 2 blue '{"shot": "a1"}')"
block "$(cmd 2 blue '{"claim": true}')"
"$KDAPP" log --data "$data" | grep -q too_early || fail "a claim before the deadline is too_early"
n=$((n + 100))
block "$(cmd 2 blue '{"claim": true}')"
lost=$(show 2)
grep -q '"leader":"blue"' <<<"$lost" && grep -q '"reason":"no_answer"' <<<"$lost" || fail "red lost by silence: $lost"

"$KDAPP" verify --data "$data" >/dev/null || fail "verify"
outsider "$data"
text=$("$KDAPP" show --data "$data" 1)
grep -q 'a b c d e f g h i j' <<<"$text" || fail "show draws the boards: $text"

# --- the simulator with its oracle, sea battle only
"$KDAPP" sim --type seabattle --steps 600 --seed 1 >"$T/sim.out" || fail "sim: $(tail -5 "$T/sim.out")"
grep -q 'mismatches *0' "$T/sim.out" || fail "sim mismatches: $(cat "$T/sim.out")"

# --- a whole game through the MCP gateway: the bot (hunt and target)
# against random shots; every answer and reveal comes from the gateway's
# duties thread, for the seats whose keys it holds
"$KDAPP" play --data "$T/play" --type sea-battle --seat blue=search --seat red=random --seed 2 --max-moves 400 \
  --quiet >"$T/play.out" || fail "play: $(cat "$T/play.out")"
grep -Eq 'blue \(search\) won' "$T/play.out" || fail "the bot wins: $(cat "$T/play.out")"
"$KDAPP" verify --data "$T/play" >/dev/null || fail "verify the played game"
outsider "$T/play"
# --- a reorg during a game through the gateway: a shot and its answer
# reverted and mined again by the devnet, the duty paid again where it was
# lost. (The re-mined shot lands at another DAA score, which the state
# keeps for its deadline: `kdapp play` knows the moves are back from the
# newer command, not from the old bytes.)
"$KDAPP" play --data "$T/reorg" --type seabattle --seat blue=search --seat red=random --seed 5 --max-moves 7 \
  --reorg-every 6 --reorg-depth 2 --quiet >"$T/reorg.out" || fail "play with reorgs: $(cat "$T/reorg.out")"
grep -q 'reorgs: 1' "$T/reorg.out" || fail "one reorg: $(cat "$T/reorg.out")"
"$KDAPP" verify --data "$T/reorg" >/dev/null || fail "verify the reorged game"
outsider "$T/reorg"
echo "seabattle end to end: ok"
