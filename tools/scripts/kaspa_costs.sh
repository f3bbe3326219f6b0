#!/usr/bin/env bash
# kaspa_costs.sh — what games cost on a Kaspa node at kaspad v2's fee floor,
# measured from the transactions themselves (tools/listen/README.md quotes
# it). Against the fixture kaspad (tests/listen/fixture_wrpc.c, playing
# v2.0.1: floor 100,000 sompi/kg, getFeeEstimate at the floor), `kdapp up
# --rpc` plays, through `kdapp play --mcp-cmd`, a tic-tac-toe game, hold'em
# hands (each a match of one hand: hand_limit 1, its creation included) and
# sea-battle games, the type's search bot on both seats, then once against
# a random player; the seats' keys
# have no coins, so the funding wallet pays every command. For each game it
# prints the commands sent, the payload bytes and the fees, summed from the
# node's own record of what it accepted (the fixture's `subs` dump: each
# fee is inputs − outputs of a transaction the node took), and checks that
# the writer's own report ("sent transaction ..., fee F sompi") agrees.
#
# usage: tools/scripts/kaspa_costs.sh [BUILD_DIR]   (default: build)
# Takes a few minutes; prints one line a game, then a summary.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
export KDAPP=$BUILD/bin/kdapp
set -- "$BUILD/bin/kd_fixture_wrpc" 2.0.1
source "$ROOT/tests/integration/lib.sh"
source "$ROOT/tests/listen/lib_listen.sh"
start_fixture fx 7 --no-game --block-ms 100
KEYS=$T/keys
bg up "$KDAPP" up --rpc "$RPC" --network testnet-10 --data "$T/data" --keys "$KEYS" --funding test:funder
wait_for 20 file_has "$T/up.err" "following kaspad" || fail "kdapp up --rpc did not follow the node: $(cat "$T/up.err")"

# accepted FILE N — the node's record of accepted transactions, into FILE, holds N or more.
accepted() {
  fx "subs $1"
  (($(wc -l <"$1") >= $2))
}

# game NAME TYPE ARGS... — plays one game; then prints its transactions' count, payload bytes and fees.
SEEN=0
game() {
  local name=$1 type=$2
  shift 2
  "$KDAPP" play --data "$T/data" --keys "$KEYS" --type "$type" "$@" --max-moves 2000 --quiet \
    --mcp-cmd "'$KDAPP' mcp --grant agent1,agent2 --data '$T/data' --keys '$KEYS'" >"$T/$name.out" 2>"$T/$name.err" ||
    fail "$name: $(tail -5 "$T/$name.out" "$T/$name.err")"
  grep -Eq "won|draw" "$T/$name.out" || fail "$name: no result: $(cat "$T/$name.out")"
  # every command accepted: the node's record holds them all
  local sent
  sent=$(count_of "$T/up.err" "sent transaction")
  wait_for 30 accepted "$T/subs_$name.jsonl" "$sent" || fail "$name: not every transaction was accepted"
  python3 - "$T/subs_$name.jsonl" "$T/up.err" "$SEEN" "$sent" "$name" <<'EOF'
import json, re, sys
subs, uperr, seen, sent, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
txs = [json.loads(l) for l in open(subs)][seen:sent]
fees = [sum(int(e['amount']) for e in d['entries']) - sum(int(o['value']) for o in d['transaction']['outputs'])
        for d in txs]
said = [int(m.group(1)) for m in re.finditer(r'sent transaction [0-9a-f]+, fee (\d+) sompi', open(uperr).read())]
assert said[seen:sent] == fees, (name, said[seen:sent], fees)
payload = [len(d['transaction']['payload']) // 2 for d in txs]
left = open(uperr).read().count('leftover')
print(f'{name}: {len(txs)} transactions, payload {sum(payload)} B (largest {max(payload)}), '
      f'fee {sum(fees)} sompi = {sum(fees) / 1e8:.6f} KAS (per transaction {min(fees)} to {max(fees)}, '
      f'mean {sum(fees) // len(fees)}){", leftovers paid: " + str(left) if left else ""}')
EOF
  SEEN=$sent
}
game tictactoe tictactoe --x search --o search --seed 1
for s in 1 2 3; do
  game "holdem-hand-$s" holdem --seat seat0=search --seat seat1=search --params '{"hand_limit": 1}' --seed "$s"
done
game holdem-hand-vs-random holdem --seat seat0=search --seat seat1=random --params '{"hand_limit": 1}' --seed 1
for s in 1 2 3; do
  game "seabattle-$s" seabattle --seat blue=search --seat red=search --seed "$s"
done
game seabattle-vs-random seabattle --seat blue=search --seat red=random --seed 1
kill -TERM "$BG_PID"
echo "kaspa_costs: at kaspad v2.0.1's floor of 100,000 sompi/kg"
