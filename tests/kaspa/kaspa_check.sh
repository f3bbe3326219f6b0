#!/usr/bin/env bash
# kaspa_check.sh — an outside check of every transaction the writer builds:
# kaspa_check.py (Python's standard library, written from rusty-kaspa
# v2.0.1's source) first agrees with rusty-kaspa's own test vectors
# (kaspa_vectors.json), refuses a tampered transaction, then checks
#   - `kdapp wallet build` in 20 shapes (1 to 4 inputs, with change or
#     without, payloads of 8 to 24,736 bytes (the 8-byte header, then 0 to 24,728 of message), five networks): id, sighash and
#     BIP340 signatures, masses, and a fee of exactly kaspad v2's minimum
#     (max(compute, transient / 2) x 100,000 sompi/kg) when there is change,
#     and more without only when no change could hold the rest (a leftover
#     that a change too small for KIP-9's storage mass cannot hold);
#   - every transaction a fixture kaspad took from `kdapp wallet send`,
#     playing v2.0.1 and v1.1.0: among them a wallet whose largest coin is
#     an immature coinbase output (it must be left out: the node refuses it
#     in its own words), one whose mature coinbase output pays and one
#     whose only coin leaves a leftover no change can hold.
# It also shows the refusals: a --fee-rate under the floor (by the builder),
# a node whose floor is above the rate paid (in the node's words), and a
# coinbase entry without the DAA score offline.
source "$(dirname "$0")/../integration/lib.sh"
FIXTURE=${1:?the fixture binary is the first argument}
HERE=$(dirname "$0")
CHECK=(python3 "$HERE/kaspa_check.py")
"${CHECK[@]}" vectors "$HERE/kaspa_vectors.json" >"$T/vectors.out" || fail "$(cat "$T/vectors.out")"
grep -q "70 of rusty-kaspa v2.0.1's vectors agree" "$T/vectors.out" || fail "vectors: $(cat "$T/vectors.out")"

# utxos NAME NETWORK AMOUNT... — UTXO entries paying NAME's key (its P2PK script from its address)
utxos() {
  local name=$1 net=$2
  shift 2
  "$KDAPP" wallet address --key "test:$name" --network "$net" >"$T/addr" || fail "no address for $name"
  python3 - "$(cat "$T/addr")" "$name" "$@" <<'EOF'
import hashlib, json, sys
addr, name, amounts = sys.argv[1], sys.argv[2], sys.argv[3:]
cs = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
data = [cs.index(c) for c in addr.split(':')[1][:-8]]
acc, bits, out = 0, 0, []
for d in data:
    acc, bits = acc << 5 | d, bits + 5
    while bits >= 8:
        bits -= 8
        out.append(acc >> bits & 255)
assert out[0] == 0 and len(out) == 33
script = '0000' + '20' + bytes(out[1:]).hex() + 'ac'
print(json.dumps([{'address': addr, 'outpoint': {'transactionId': hashlib.sha256(f'utxo {name} {i}'.encode()).hexdigest(),
                   'index': i % 3}, 'utxoEntry': {'amount': int(a), 'scriptPublicKey': script,
                   'blockDaaScore': 1000 + i, 'isCoinbase': False}} for i, a in enumerate(amounts)]))
EOF
}

# ---- `kdapp wallet build`: the shapes
n=0
shape() { # NAME NETWORK PAYLOAD_BYTES WANT_OUTPUTS AMOUNT...
  local name=$1 net=$2 bytes=$3 outs=$4
  shift 4
  utxos "$name" "$net" "$@" >"$T/u$n.json"
  head -c "$bytes" /dev/urandom >"$T/p$n.bin"
  "$KDAPP" wallet build --key "test:$name" --network "$net" --utxos "$T/u$n.json" --payload-file "$T/p$n.bin" \
    >"$T/b$n.json" 2>"$T/b$n.err" || fail "build $n ($name $net $bytes B): $(cat "$T/b$n.err")"
  python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['transaction']; assert len(t['outputs'])==$outs
print(len(t['inputs']))" "$T/b$n.json" >>"$T/inputs" || fail "build $n: not $outs outputs: $(head -c 300 "$T/b$n.json")"
  "${CHECK[@]}" tx --utxos "$T/u$n.json" --tx "$T/b$n.json" --exact >>"$T/check.out" ||
    fail "build $n ($name $net $bytes B) fails the outside check: $(tail -1 "$T/check.out")"
  n=$((n + 1))
}
# nochange K BYTES — K amounts that pay exactly the fee of K inputs, no output and BYTES of message, plus
# 300 sompi (dust under v1.x's rule: it goes to the fee, as rusty-kaspa's wallet does)
nochange() {
  python3 -c "import sys; k,b=int(sys.argv[1]),int(sys.argv[2]); size=94+8+b+118*k
fee=100*max(size+1000*k,2*size)+300; print(' '.join(str(fee//k+(fee%k if i==0 else 0)) for i in range(k)))" "$1" "$2"
}
KAS=100000000
shape alice testnet-10 0 1 $((5 * KAS))
shape bob mainnet 100 1 $((50 * KAS))
shape carol testnet-11 2000 1 $((3 * KAS))
shape dave devnet 24728 1 $((200 * KAS))
shape erin simnet 500 1 $((KAS))
shape frank testnet-10 64 1 200000 200000
shape alice mainnet 40 1 150000 150000 150000
shape bob testnet-10 10 1 135000 135000 135000 135000
shape carol mainnet 8000 1 $((KAS)) $((KAS))
shape dave testnet-11 16 1 $((1000 * KAS)) 5000
shape erin devnet 20 1 200000 200000 5000
shape frank simnet 1 1 $((KAS / 4)) $((KAS / 4)) $((KAS / 4))
shape alice testnet-10 0 0 $(nochange 1 0)
shape bob mainnet 40 0 $(nochange 1 40)
shape carol devnet 100 0 $(nochange 2 100)
shape dave simnet 0 0 $(nochange 3 0)
shape erin testnet-11 1000 0 $(nochange 1 1000)
shape frank testnet-10 4 0 $(nochange 4 4)
# 0.01 KAS alone: what is left after the fee can be no change (KIP-9): it goes to the fee, said so
shape frank testnet-11 4 0 1000000
grep -q "includes a leftover of 877600 sompi above the minimum" "$T/b$((n - 1)).err" ||
  fail "the leftover was not reported: $(cat "$T/b$((n - 1)).err")"
# ...unless another UTXO makes room for a change
shape frank testnet-11 4 1 1000000 1000000
((n == 20)) || fail "not 20 shapes"
for k in 1 2 3 4; do grep -qx "$k" "$T/inputs" || fail "no build spent $k inputs: $(tr '\n' ' ' <"$T/inputs")"; done
# the checker is no rubber stamp: a changed output value (another id, a wrong signature) fails it
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); j['transaction']['outputs'][0]['value']-=1; j.pop('id')
json.dump(j,open(sys.argv[2],'w'))" "$T/b0.json" "$T/tampered.json"
"${CHECK[@]}" tx --utxos "$T/u0.json" --tx "$T/tampered.json" >"$T/tampered.out" && fail "a tampered tx passed"
grep -q "does not verify" "$T/tampered.out" || fail "the tampered tx: $(cat "$T/tampered.out")"
# refusals: a rate under the floor, a coinbase entry without the DAA score
"$KDAPP" wallet build --key test:alice --network testnet-10 --utxos "$T/u0.json" --payload-hex 00 --fee-rate 1000 \
  >"$T/low.out" 2>&1 && fail "a fee rate of 1000 was taken"
grep -q "fee rate of 1000 sompi/kg is below the minimum relay fee rate of 100000 sompi/kg" "$T/low.out" ||
  fail "the low rate: $(cat "$T/low.out")"
sed 's/"isCoinbase": false/"isCoinbase": true/' "$T/u0.json" >"$T/cb.json"
"$KDAPP" wallet build --key test:alice --network testnet-10 --utxos "$T/cb.json" --payload-hex 00 >"$T/cb.out" 2>&1 &&
  fail "a coinbase entry was spent without the DAA score"
grep -q "is a coinbase output of DAA score 1000: whether it is mature" "$T/cb.out" || fail "$(cat "$T/cb.out")"
"$KDAPP" wallet build --key test:alice --network testnet-10 --utxos "$T/cb.json" --payload-hex 00 --daa-score 1999 \
  >"$T/cb2.out" 2>&1 && fail "an immature coinbase entry was spent"
grep -q "not mature until DAA score 2000 (the node is at 1999" "$T/cb2.out" || fail "$(cat "$T/cb2.out")"
"$KDAPP" wallet build --key test:alice --network testnet-10 --utxos "$T/cb.json" --payload-hex 00 --daa-score 2000 \
  >"$T/cb3.json" 2>&1 || fail "a mature coinbase entry: $(cat "$T/cb3.json")"

# ---- a fixture node, as kaspad v2.0.1 and as v1.1.0: what `wallet send` submits
for version in 2.0.1 1.1.0; do
  exec {FD}<>"$(mkfifo "$T/ctl$version" && echo "$T/ctl$version")"
  "$FIXTURE" --no-game --kaspad "$version" <"$T/ctl$version" >"$T/fx$version.out" 2>&1 &
  KD_PIDS+=("$!")
  wait_for 10 file_has "$T/fx$version.out" "^port " || fail "the fixture $version did not start"
  RPC="ws://127.0.0.1:$(awk '/^port /{print $2}' "$T/fx$version.out")"
  fxc() { echo "$*" >&"$FD"; wait_for 10 file_has "$T/fx$version.out" "^ok $*\$" || fail "fixture: $*"; }
  send() { "$KDAPP" wallet send --rpc "$RPC" "$@"; }
  send --funding test:alice --payload-hex 0a0b0c0d >"$T/s1.out" 2>&1 || fail "$version send: $(cat "$T/s1.out")"
  head -c 24000 /dev/urandom >"$T/big.bin"
  send --funding test:bob --payload-file "$T/big.bin" >"$T/s2.out" 2>&1 || fail "$version big: $(cat "$T/s2.out")"
  send --funding test:dave --payload-hex 01 >"$T/s3.out" 2>&1 || fail "$version chained: $(cat "$T/s3.out")"
  # test:miner's largest coin is a 500 KAS coinbase output of the tip's DAA score: left out
  send --funding test:miner --payload-hex 02 >"$T/s4.out" 2>&1 ||
    fail "$version: the wallet with an immature coinbase output: $(cat "$T/s4.out")"
  # test:minter's 700 KAS coinbase output is mature: it pays
  send --funding test:minter --payload-hex 03 >"$T/s5.out" 2>&1 || fail "$version minter: $(cat "$T/s5.out")"
  # test:scrap's 0.01 KAS leaves what no change output can hold: paid as fee, reported
  send --funding test:scrap --payload-hex 05 >"$T/s7.out" 2>&1 || fail "$version scrap: $(cat "$T/s7.out")"
  grep -q "includes a leftover of" "$T/s7.out" || fail "$version: the leftover was not reported: $(cat "$T/s7.out")"
  # a node whose floor is above the rate paid refuses, in its words
  fxc min-relay-fee 250000
  send --funding test:carol --payload-hex 04 --fee-rate 100000 >"$T/s6.out" 2>&1 && fail "$version: underpaid tx taken"
  grep -q "Rejected transaction .*which is under the required amount of" "$T/s6.out" || fail "$version: $(cat "$T/s6.out")"
  fxc min-relay-fee 100000
  fxc "subs $T/subs$version.jsonl"
  "${CHECK[@]}" subs "$T/subs$version.jsonl" --exact >"$T/subs$version.out" ||
    fail "kaspad $version: a submitted tx fails the outside check: $(tail -1 "$T/subs$version.out")"
  grep -q "kaspa_check: 6 transactions ok" "$T/subs$version.out" || fail "$version: $(cat "$T/subs$version.out")"
  # the miner's transaction spent the 2 KAS output, not the immature coinbase one
  python3 -c "import json,sys; d=[json.loads(l) for l in open(sys.argv[1])][3]
assert [e['amount'] for e in d['entries']] == [200000000], d['entries']" "$T/subs$version.jsonl" ||
    fail "$version: the miner's tx did not spend its mature 2 KAS output alone"
  echo quit >&"$FD"
done
echo "kaspa_check: ok ($(grep -c ': ok$' "$T/check.out") builds, vectors, two kaspad versions)"
