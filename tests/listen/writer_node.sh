#!/usr/bin/env bash
# writer_node.sh — agents' commands sent to a Kaspa node as transactions
# (tools/kaspa/kaspa_writer.h), on the fixture kaspad with its UTXO set and
# mempool (fixture_ledger.h):
#   - `kdapp up --rpc` (engine + listener + writer behind the devnet's
#     control socket): a game played with `kdapp submit --wait`, moves
#     chained on unconfirmed change, a reorg in the middle; a board game, a
#     chance game with the house's duties and sea battle played by agents
#     through `kdapp mcp` attached to it, with reorgs; the engine's
#     digest equals that of the fixture's chain fed as a block script,
#     `kdapp verify` matches, and a second listener (another store) on the
#     same chain reaches the same digest; a reorg request is refused;
#   - `kdapp wallet balance|utxos|send`: the coins, a dry run that submits
#     nothing, and the faults: a node on another network, a node without
#     --utxoindex (in its words), no key to pay, a wallet without coins,
#     insufficient funds, a payload over the limit, a rate under kaspad v2's
#     floor, a tx the node rejects (its words passed on whole, by `wallet
#     send` and through `kdapp up --rpc` to `kdapp submit`), an immature
#     coinbase output left out, a leftover no change output can hold
#     (paid by the funding wallet when it can, else paid as fee and
#     reported), and a node dropping the connection mid-submit (the tx is
#     found held, nothing is paid twice).
source "$(dirname "$0")/../integration/lib.sh"
source "$(dirname "$0")/lib_listen.sh"
start_fixture fx 3 --no-game --block-ms 100
KEYS=$T/keys
W=("$KDAPP" wallet)

# ---- agents play on the node through `kdapp up --rpc`
bg up "$KDAPP" up --rpc "$RPC" --network testnet-10 --data "$T/data" --keys "$KEYS" --funding test:funder \
  --payers test:scrap
UP_PID=$BG_PID
wait_for 20 file_has "$T/up.err" "following kaspad" || fail "kdapp up --rpc did not follow the node: $(cat "$T/up.err")"
sub() { "$KDAPP" submit --data "$T/data" --keys "$KEYS" --episode 5 "$@"; }
sub --new --participants test:alice,test:bob --type tictactoe --wait --timeout 20000 >"$T/s0.out" 2>&1 ||
  fail "the creation was not applied: $(cat "$T/s0.out")"
sub --row 0 --col 0 --player X --signer test:alice --counter 0 --wait --timeout 20000 >"$T/s1.out" 2>&1 ||
  fail "move 1 was not applied: $(cat "$T/s1.out")"
# two moves at once: the second spends the first's unconfirmed change
sub --row 1 --col 1 --player O --signer test:bob --counter 1 >"$T/s2.out" 2>&1 || fail "move 2: $(cat "$T/s2.out")"
sub --row 0 --col 1 --player X --signer test:alice --counter 2 >"$T/s3.out" 2>&1 || fail "move 3: $(cat "$T/s3.out")"
TX3=$(awk '/^tx /{print $2}' "$T/s3.out")
wait_for 20 file_has "$T/up.err" "accept .*applied" || fail "no accept"
fx reorg 3 4
sub --row 2 --col 2 --player O --signer test:bob --counter 3 --wait --timeout 20000 >"$T/s4.out" 2>&1 ||
  fail "move 4 (after the reorg) was not applied: $(cat "$T/s4.out")"
sub --row 0 --col 2 --player X --signer test:alice --counter 4 --wait --timeout 20000 >"$T/s5.out" 2>&1 ||
  fail "the winning move was not applied: $(cat "$T/s5.out")"
grep -q "revert " "$T/up.err" || fail "the listener of kdapp up saw no revert"
# a seat whose only coin (test:scrap's 0.01 KAS) would leave what no change output can hold: the
# funding wallet pays instead, with a change, rather than the leftover going to the fee
"$KDAPP" submit --data "$T/data" --keys "$KEYS" --episode 6 --new --participants test:scrap,test:bob \
  --type tictactoe --wait --timeout 20000 >"$T/scrap6.out" 2>&1 || fail "scrap's creation: $(cat "$T/scrap6.out")"
grep -q "leftover" "$T/up.err" && fail "a leftover was paid though the funding wallet had room: $(cat "$T/up.err")"
[[ -n $TX3 ]] && grep -q "sent transaction $TX3" "$T/up.err" || fail "move 3's tx was not sent"
"$KDAPP" show --data "$T/data" 5 >"$T/show.out" 2>&1 || fail "show: $(cat "$T/show.out")"
grep -qiE "won|X wins|winner" "$T/show.out" || fail "the game did not end with X winning: $(cat "$T/show.out")"
# agents through `kdapp mcp` attached to it (kdapp play --mcp-cmd): a board
# game, a chance game with the house's duties, and sea battle while the
# node reorganises; the seats' own new keys have no coins: the funding
# wallet pays
play() { # NAME TYPE ARGS...
  local name=$1 type=$2
  shift 2
  "$KDAPP" play --data "$T/data" --keys "$KEYS" --type "$type" "$@" --seed 3 --max-moves 400 --quiet \
    --mcp-cmd "'$KDAPP' mcp --grant agent1,agent2 --data '$T/data' --keys '$KEYS'" >"$T/$name.out" 2>"$T/$name.err"
}
play board tictactoe --x search --o random || fail "the board game: $(cat "$T/board.out" "$T/board.err")"
fx reorg 2 3
play chance blackjack --seat player1=search --params '{"rounds": 2}' ||
  fail "the chance game: $(cat "$T/chance.out" "$T/chance.err")"
play sea seabattle --seat blue=search --seat red=random &
SEA=$!
for i in 1 2 3; do
  sleep 3
  fx reorg 2 3
done
wait "$SEA" || fail "sea battle: $(tail -5 "$T/sea.out" "$T/sea.err")"
for g in board chance sea; do
  grep -Eq "won|draw" "$T/$g.out" || fail "$g: no result: $(cat "$T/$g.out")"
  grep -q '^digest: [0-9a-f]\{64\}$' "$T/$g.out" || fail "$g: no digest"
done
grep -q "not sent" "$T/up.err" && fail "a command was not sent: $(grep 'not sent' "$T/up.err")"
# a reorg request is refused with a sentence
"$KDAPP" devnet-reorg --data "$T/data" --depth 1 >"$T/reorg.out" 2>&1 && fail "a reorg request was accepted"
grep -q "reorganises by itself" "$T/reorg.out" || fail "the reorg refusal does not say why: $(cat "$T/reorg.out")"
sleep 1 # three more blocks after the last tx: the last one accepted
converge w1
kill -TERM "$UP_PID"
wait_exit 15 "$UP_PID" || fail "kdapp up --rpc did not stop"
((EXIT_CODE == 0)) || fail "kdapp up --rpc exited $EXIT_CODE: $(tail -3 "$T/up.err")"
verify_matches
# a second store following the same chain reaches the same digest
GENESIS=$(grep -m1 -o '"hash": "[0-9a-f]*"' "$T/w1.jsonl" | grep -o '[0-9a-f]\{64\}')
start_listener second --data "$T/data2" --from "$GENESIS"
catch_up "$T/data2" "$WANT" ||
  fail "a second listener stopped short of the digest $WANT, at height $(height_of "$T/data2")"

# ---- the wallet online
"${W[@]}" balance --rpc "$RPC" --key test:alice --keys "$KEYS" >"$T/bal.out" 2>&1 || fail "balance: $(cat "$T/bal.out")"
grep -q "^kaspatest:.* on testnet-10: 300000000000 sompi (3000.00000000 KAS) in 3 UTXOs" "$T/bal.out" ||
  fail "alice's balance: $(cat "$T/bal.out")"
"${W[@]}" utxos --rpc "$RPC" --key test:alice --keys "$KEYS" >"$T/utxos.out" 2>&1 || fail "utxos"
(($(grep -c " 100000000000 sompi$" "$T/utxos.out") == 3)) || fail "alice's UTXOs: $(cat "$T/utxos.out")"
expect_fail() { # NAME PATTERN CMD... — exits non-zero, saying PATTERN on stderr
  local name=$1 pattern=$2
  shift 2
  "$@" >"$T/$name.out" 2>&1 && fail "$name succeeded: $(cat "$T/$name.out")"
  grep -q -- "$pattern" "$T/$name.out" || fail "$name does not say '$pattern': $(cat "$T/$name.out")"
}
expect_fail net "is on testnet-10, not mainnet" "${W[@]}" balance --rpc "$RPC" --key test:alice --network mainnet
# a node without --utxoindex: said so, in its words too
mkfifo "$T/ctl2"
exec {FD2}<>"$T/ctl2"
"$FIXTURE" --no-utxoindex <"$T/ctl2" >"$T/fx2.out" 2>&1 &
KD_PIDS+=("$!")
wait_for 10 file_has "$T/fx2.out" "^port " || fail "the second fixture did not start"
RPC2="ws://127.0.0.1:$(awk '/^port /{print $2}' "$T/fx2.out")"
expect_fail noindex "runs without --utxoindex" "${W[@]}" balance --rpc "$RPC2" --key test:alice
grep -q "Method unavailable. Run the node with the --utxoindex argument." "$T/noindex.out" ||
  fail "the node's own words are not passed on: $(cat "$T/noindex.out")"
echo quit >&"$FD2"

PAYLOAD=0a0b0c0d
send() { "${W[@]}" send --rpc "$RPC" --keys "$KEYS" --payload-hex "$PAYLOAD" "$@"; }
n_mempool() { fx mempool >/dev/null; awk '/^mempool /{n=$2} END{print n}' "$T/fx.out"; }
# the dry run prints the signed tx as the node's JSON and submits nothing
sleep 0.6
before=$(n_mempool)
send --funding test:carol --dry-run >"$T/dry.out" 2>&1 || fail "dry run: $(cat "$T/dry.out")"
grep -q '"transaction":{"version":0,"inputs":\[{"previousOutpoint"' "$T/dry.out" || fail "dry run: $(cat "$T/dry.out")"
FEE=$(sed -E 's/.*"fee":([0-9]+).*/\1/' "$T/dry.out")
(($(n_mempool) == before)) || fail "the dry run submitted something"
expect_fail nopayer "no key pays for this command" send
expect_fail nocoins "test:pauper\|no UTXO\|no coins\|UTXOs" send --funding test:pauper
expect_fail funds "insufficient\|not cover\|needs" send --funding test:carol --fee-rate 1000000000000
head -c 30000 /dev/zero >"$T/big.bin"
expect_fail big "bytes" "${W[@]}" send --rpc "$RPC" --keys "$KEYS" --payload-file "$T/big.bin" --funding test:carol
# a rate under kaspad v2's floor is refused before anything is sent, naming both
expect_fail lowrate "below the minimum relay fee rate of 100000 sompi/kg" send --funding test:carol --fee-rate 1000
# a node whose floor is above the rate paid refuses it, in its words (v2.0.1's)
fx min-relay-fee 300000
# (whole: the sentence ends with the mass and the closing quote; it is longer than 256 bytes)
REFUSAL='the node rejected transaction .*Rejected transaction .*under the required amount of [0-9]* for compute mass [0-9]*"'
expect_fail rejected "$REFUSAL" send --funding test:carol --fee-rate 100000
# and reaches `kdapp submit` whole through `kdapp up --rpc`
bg up2 "$KDAPP" up --rpc "$RPC" --network testnet-10 --data "$T/data" --keys "$KEYS" --funding test:carol \
  --fee-rate 100000
UP2_PID=$BG_PID
wait_for 20 file_has "$T/up2.err" "following kaspad" || fail "the second kdapp up did not follow: $(cat "$T/up2.err")"
expect_fail uprejected "$REFUSAL" "$KDAPP" submit --data "$T/data" --keys "$KEYS" --episode 9 --new \
  --participants test:alice,test:bob --type tictactoe
kill -TERM "$UP2_PID"
wait_exit 15 "$UP2_PID" || fail "the second kdapp up --rpc did not stop"
fx min-relay-fee 100000
# test:scrap kept its coin (the funding wallet paid its creation above); paying with it alone, what
# is left after the fee can be no change (KIP-9): it goes to the fee, and the sender is told so
"${W[@]}" balance --rpc "$RPC" --key test:scrap >"$T/scrap.bal" 2>&1 || fail "scrap's balance"
grep -q ": 1000000 sompi (0.01000000 KAS) in 1 UTXO" "$T/scrap.bal" || fail "scrap's coin: $(cat "$T/scrap.bal")"
send --funding test:scrap >"$T/scrap.out" 2>"$T/scrap.err" || fail "scrap's send: $(cat "$T/scrap.out" "$T/scrap.err")"
grep -qx "fee 1000000" "$T/scrap.out" || fail "scrap's fee: $(cat "$T/scrap.out")"
grep -q "the fee of 1000000 sompi includes a leftover of [0-9]* sompi above the minimum: no change output could hold" \
  "$T/scrap.err" || fail "the leftover was not reported: $(cat "$T/scrap.err")"
# the largest coin of test:miner is an immature coinbase output: the writer leaves it out (the node
# would refuse it: ImmatureCoinbaseSpend), and pays with its mature 2 KAS
send --funding test:miner >"$T/miner.out" 2>&1 || fail "the wallet with an immature coinbase: $(cat "$T/miner.out")"
# the node drops the connection mid-submit: the tx is found held, paid once
fx drop-on-submit
send --funding test:carol >"$T/drop.out" 2>&1 || fail "the send across a dropped connection failed: $(cat "$T/drop.out")"
sleep 1
"${W[@]}" balance --rpc "$RPC" --key test:carol >"$T/carol.out" 2>&1 || fail "carol's balance"
grep -q ": $((300000000000 - FEE)) sompi" "$T/carol.out" ||
  fail "carol paid other than one fee of $FEE: $(cat "$T/carol.out")"
echo "writer_node: ok"
