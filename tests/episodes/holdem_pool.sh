#!/usr/bin/env bash
# holdem_pool.sh — hold'em's proofs checked by the daemon's verifier pool
# ahead of the single writer (the type's precheck, engine/sigcheck.h):
# three matches dealt side by side, each block carrying a step of each (so
# the pool checks three proofs at once while the writer applies), with a
# forged key and a shuffle without its proof among them, fed over NNG
# (`kdapp feed --connect`) to `kdapp engine`; its verdicts, digest and log
# are those of a local `kdapp feed` (no pool: every proof checked on the
# spot). The TSan pass runs it (tools/scripts/check.sh).
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
gen="$T/gen"  # the store the script is made against
script="$T/script.jsonl"
n=0

block() {  # one block of the given transactions, fed locally and kept in the script
  n=$((n + 1))
  local line="{\"accept\": {\"hash\": \"b$n\", \"daa\": $((100 + n)), \"txs\": [$1]}}"
  echo "$line" >"$T/b.jsonl"
  "$KDAPP" feed --data "$gen" "$T/b.jsonl" >"$T/feed.out" || fail "feed b$n: $(cat "$T/feed.out")"
  echo "$line" >>"$script"
}
cmd() { echo "{\"command\": {\"episode\": $1, \"episode_type\": \"holdem\", \"signer\": \"test:$2\", \"command\": $3}}"; }
owed() {  # every step owed now in the three matches, as transactions
  local txs="" e who c
  for e in 1 2 3; do
    for who in ann bob; do
      if c=$("$KDAPP" duty --data "$gen" --signer "test:$who" "$e" 2>/dev/null); then
        txs="$txs${txs:+, }$(cmd "$e" "$who" "$c")"
        break
      fi
    done
  done
  echo "$txs"
}

creates=""
for e in 1 2 3; do
  p=$("$KDAPP" commit --data "$gen" --type holdem --episode "$e" --seat seat0 --signer test:ann --params '{"timeout": 1000}')
  p=$("$KDAPP" commit --data "$gen" --type holdem --episode "$e" --seat seat1 --signer test:bob --params "$p")
  creates="$creates${creates:+, }{\"new_episode\": {\"id\": $e, \"type\": \"holdem\", \"participants\": [\"test:ann\", \"test:bob\"], \"consent\": [\"test:ann\", \"test:bob\"], \"params\": $p}}"
done
block "$creates"
# the shuffles: match 1's without its proof, then every match's
shuffle=$("$KDAPP" duty --data "$gen" --signer test:ann 1)
bare=$(python3 -c 'import json,sys; print(json.dumps({"shuffle": json.loads(sys.argv[1])["shuffle"]["deck"]}))' "$shuffle")
block "$(cmd 1 ann "$bare"), $(owed)"
# the locks and the keys, match 2's first key forged (refused) before the true one
forged=""
while txs=$(owed) && [[ -n $txs ]]; do
  keys=$("$KDAPP" duty --data "$gen" --signer test:bob 2 2>/dev/null || true)
  if [[ -z $forged && $keys == *'"keys"'* ]]; then
    forged=$(sed 's/"keys":\["\(.\)/"keys":["f/' <<<"$keys")
    [[ $forged != "$keys" ]] || forged=$(sed 's/"keys":\["f/"keys":["e/' <<<"$keys")
    txs="$(cmd 2 bob "$forged"), $txs"
  fi
  block "$txs"
done
[[ -n $forged ]] || fail "bob never owed keys in match 2"
# each button folds: every match's next hand is dealt the same way
block "$(cmd 1 ann '{"fold": true}'), $(cmd 2 ann '{"fold": true}'), $(cmd 3 ann '{"fold": true}')"
while txs=$(owed) && [[ -n $txs ]]; do block "$txs"; done
"$KDAPP" log --data "$gen" | grep -q bad_shuffle_proof || fail "the bare shuffle is refused"
"$KDAPP" log --data "$gen" | grep -q wrong_key || fail "the forged key is refused"
for e in 1 2 3; do
  grep -q '"hand":2' <<<"$("$KDAPP" show --data "$gen" --json "$e" | tr -d ' \n')" || fail "match $e: hand 2 not dealt"
done

# both stores follow one chain: the creations' consents sign it, so the
# two logs hold the same bytes
start_engine engine "$T/remote" "ipc://$T/ingest.ipc" "ipc://$T/views.ipc" --chain kaspa:testnet-10
"$KDAPP" feed --connect "ipc://$T/ingest.ipc" "$script" >"$T/remote.out"
"$KDAPP" feed --data "$T/local" --chain kaspa:testnet-10 "$script" >"$T/local.out"
(($(grep -c '^line [0-9]*: accept .*: applied' "$T/remote.out") == n)) || fail "not every block: $(cat "$T/remote.out")"
remote=$(last_digest "$T/remote.out")
[[ -n $remote && $remote == "$(last_digest "$T/local.out")" ]] || fail "the digests differ"
diff <(grep '^line' "$T/remote.out") <(grep '^line' "$T/local.out") || fail "the verdicts differ"
"$KDAPP" log --json --data "$T/remote" >"$T/remote.log"
"$KDAPP" log --json --data "$T/local" >"$T/local.log"
diff "$T/remote.log" "$T/local.log" >/dev/null || fail "the logs differ"
grep -q bad_shuffle_proof "$T/remote.log" && grep -q wrong_key "$T/remote.log" || fail "the daemon refused the forgeries"
kill -TERM "$ENGINE_PID"
wait_exit 20 "$ENGINE_PID"
((EXIT_CODE == 0)) || fail "engine exited $EXIT_CODE"
echo "holdem_pool: $n blocks, digest $remote"
