#!/usr/bin/env bash
# owners_node.sh — two owners, two machines, one table on a Kaspa node
# (issue 39): one fixture kaspad (fixture_wrpc.c), and for each owner its
# own store, key directory and wallet: `kdapp up --rpc` (owner A: data a,
# keys-a holding test:alice's key, which holds coins; owner B: data b,
# keys-b, test:bob's) with an HTTP gateway attached to it, granted that
# owner's key only. The two stores follow the same node and share nothing
# else. Owner A opens a hold'em and a sea-battle table with an open seat and
# a tic-tac-toe table it cancels; owner B finds the tables from the chain
# (kdapp_list_tables and kdapp://tables on B's gateway) and joins each with
# its own key; both play to the end through their own gateways, each
# gateway's duties thread answering its own seat (hold'em's shuffles and
# keys, sea battle's answers and reveal). Then:
#   - both stores have the chain the node has (its block script fed to a
#     third directory gives their digest), and each game ends the same in
#     both (result and state bytes), rated the same;
#   - each owner's key paid exactly what its `kdapp up` says it paid (the
#     node's balances), every transaction its coins paid for carries a
#     message its own key signed (or its creation), and no store's writer
#     paid from the other's key;
#   - no message was carried twice (a duty is paid once while its first
#     copy may still be carried);
#   - neither key directory holds or names the other's key, and neither
#     gateway lists it among its grants.
source "$(dirname "$0")/../integration/lib.sh"
source "$(dirname "$0")/lib_listen.sh"
command -v jq >/dev/null || fail "jq is needed"
start_fixture fx 7 --no-game --block-ms 50

declare -A NAME=([a]=alice [b]=bob) PUB SEAT=([a]=0 [b]=1) SPENT
for o in a b; do
  mkdir -m 700 "$T/keys-$o"
  (
    umask 077
    testkey "${NAME[$o]}" >"$T/keys-$o/${NAME[$o]}.key"
  )
  bg "up-$o" "$KDAPP" up --rpc "$RPC" --network testnet-10 --data "$T/$o" --keys "$T/keys-$o"
done
for o in a b; do
  wait_for 20 file_has "$T/up-$o.err" "following kaspad" || fail "kdapp up --rpc of owner $o did not follow the node"
  start_gateway "gw-$o" --grant "${NAME[$o]}" --data "$T/$o" --keys "$T/keys-$o"
  session "$o" "${TOKEN[${NAME[$o]}]}"
  call "$o" kdapp_get_agent_pubkeys '{}'
  PUB[$o]=$(jq -r '.structuredContent.agents[0].pubkey' "$T/r.json")
  [[ $(jq -r '[.structuredContent.agents[].name] | join(",")' "$T/r.json") == "${NAME[$o]}" ]] ||
    fail "the gateway of owner $o is granted more than its key: $(text)"
done
[[ ${PUB[a]} =~ ^0[23][0-9a-f]{64}$ && ${PUB[a]} != "${PUB[b]}" ]] || fail "the owners' keys: ${PUB[a]} ${PUB[b]}"
A0=$(balance alice "$T/keys-a")
B0=$(balance bob "$T/keys-b")

# ---- neither owner holds, names or is granted the other's key
for o in a b; do
  p=$([[ $o == a ]] && echo b || echo a)
  [[ $(cd "$T/keys-$o" && echo *.key) == "${NAME[$o]}.key" ]] || fail "keys-$o holds more than ${NAME[$o]}'s key: $(ls "$T/keys-$o")"
  ! grep -rqiE "$(testkey "${NAME[$p]}")|${PUB[$p]}|${PUB[$p]:2}|${NAME[$p]}" "$T/keys-$o" ||
    fail "keys-$o holds or names the key of owner $p"
  call "$o" kdapp_get_agent_pubkeys '{}'
  ! grep -q "${PUB[$p]}" "$T/r.json" || fail "the gateway of owner $o lists the key of owner $p"
done

# ---- A opens its tables; B finds them from the chain
# open_table TYPE PARAMS — owner A opens a table of TYPE, seat 1 open; sets ID
open_table() {
  call a kdapp_start_episode "{\"type\":\"$1\",\"participants\":[\"alice\",\"open\"],\"params\":$2}"
  is_error && fail "owner A could not open a $1 table: $(text)"
  ID=$(jq -r .structuredContent.episode_id "$T/r.json")
  [[ $(jq -c '[.structuredContent.table.seats[] | [.key, .open]]' "$T/r.json") == "[[\"${PUB[a]}\",false],[null,true]]" ]] ||
    fail "the $1 table's seats: $(jq -c .structuredContent.table "$T/r.json")"
}
open_table holdem '{"hand_limit":1}'
HOLDEM=$ID
open_table seabattle '{}'
SEA=$ID
open_table tictactoe '{}'
TTT=$ID
# listed IDS... — for wait_for: B's store lists every table of IDS
listed() {
  call b kdapp_list_tables '{}'
  for id in "$@"; do jq -e --argjson id "$id" '.structuredContent.tables[] | select(.episode_id == $id)' "$T/r.json" || return 1; done
}
wait_for 20 listed "$HOLDEM" "$SEA" "$TTT" || fail "owner B's store does not list A's tables: $(text)"
rpc b resources/read '{"uri":"kdapp://tables"}'
jq -e --argjson h "$HOLDEM" --argjson s "$SEA" --arg ka "${PUB[a]}" '.contents[0].text | fromjson | .tables
  | ([.[] | select(.episode_id == $h and .type == "holdem")] | length == 1)
    and ([.[] | select(.episode_id == $s and .type == "seabattle")] | length == 1)
    and all(.seats[0].key == $ka and .seats[1].open)' "$T/r.json" >/dev/null ||
  fail "kdapp://tables on B's gateway: $(head -c 600 "$T/r.json")"
# A cancels the tic-tac-toe table (its key pays), which B's store sees
call a kdapp_cancel_table "{\"episode_id\":$TTT}"
is_error && fail "owner A could not cancel its table: $(text)"
# unlisted ID — for wait_for: B's store no longer lists table ID
unlisted() {
  call b kdapp_list_tables '{}'
  ! jq -e --argjson id "$1" '.structuredContent.tables[] | select(.episode_id == $id)' "$T/r.json"
}
wait_for 20 unlisted "$TTT" || fail "B's store still lists the cancelled table"

# ---- B joins each with its own key
for id in "$HOLDEM" "$SEA"; do
  call b kdapp_join_episode "{\"episode_id\":$id}"
  is_error && fail "owner B could not join $id: $(text)"
  [[ $(jq -r .structuredContent.started "$T/r.json") == true ]] || fail "the game $id did not start: $(text)"
  [[ $(jq -r '.structuredContent.table.seats[1].key' "$T/r.json") == "${PUB[b]}" ]] || fail "B is not seated at $id: $(text)"
done

# ---- both play both games to the end at once, each through its own gateway
# mover ID — for wait_for: the episode is over in A's store (MOVER=none),
# or an owner's own store has a move for its seat (MOVER=a|b, the moves in
# $T/moves.json); a seat owing a duty has no move: its duties thread pays it
mover() {
  local o
  for o in a b; do
    call "$o" kdapp_legal_moves "{\"episode_id\":$1}"
    if [[ $(jq -r '.structuredContent | (.moves | length > 0) and .to_move.seat == '"${SEAT[$o]}" "$T/r.json") == true ]]; then
      cp "$T/r.json" "$T/moves.json"
      MOVER=$o
      return 0
    fi
  done
  call a kdapp_get_episode_state "{\"episode_id\":$1}"
  [[ $(jq -r .structuredContent.phase "$T/r.json") != in_progress ]] && MOVER=none
}
# turn — for wait_for: a game still on has a move (GAME and MOVER set), or
# every game is over (GAME empty)
declare -A CHOOSE MOVES OVER
turn() {
  local id
  GAME=
  for id in "${!CHOOSE[@]}"; do
    [[ -n ${OVER[$id]:-} ]] && continue
    MOVER=
    mover "$id" || continue
    if [[ $MOVER == none ]]; then
      OVER[$id]=1
      continue
    fi
    GAME=$id
    return 0
  done
  ((${#OVER[@]} == ${#CHOOSE[@]}))
}
# play_all — plays every game of CHOOSE to its end, whoever may move first:
# CHOOSE[ID] N prints the command of the game's move N (0, 1, ...) from
# $T/moves.json
play_all() {
  local n
  while wait_for 30 turn || fail "nobody moves and not every game is over: $(head -c 600 "$T/r.json")"; [[ -n $GAME ]]; do
    n=${MOVES[$GAME]:-0}
    ((n < 60)) || fail "$GAME did not end in 60 moves"
    call "$MOVER" kdapp_execute_command "{\"episode_id\":$GAME,\"command\":$(${CHOOSE[$GAME]} "$n")}"
    is_error && fail "move $n of owner $MOVER in $GAME was refused: $(text)"
    MOVES[$GAME]=$((n + 1))
  done
}
# hold'em: the button calls, the big blind checks, then the next to act
# folds: both seats bet, the flop's keys are dealt
holdem_move() {
  if (($1 < 2)); then
    jq -c '[.structuredContent.moves[].command | select(has("call") or has("check"))][0]' "$T/moves.json"
  else
    echo '{"fold":true}'
  fi
}
# sea battle: blue (A) shoots three times and red (B) twice, each shot
# answered by the other's duties; then red resigns and both reveal
sea_move() {
  if (($1 < 5)) || [[ $MOVER != b ]]; then
    jq -c '.structuredContent.moves[0].command' "$T/moves.json"
  else
    echo '{"resign":true}'
  fi
}
CHOOSE=([$HOLDEM]=holdem_move [$SEA]=sea_move)
play_all

# ---- the two stores agree with the node and with each other
settle
converge end "$T/a"
wait_for 20 digest_is "$T/b" "$WANT" || fail "owner B's store did not reach the chain's digest $WANT"
for id in "$HOLDEM" "$SEA"; do
  for o in a b; do
    call "$o" kdapp_get_episode_state "{\"episode_id\":$id}"
    jq -c '.structuredContent | {phase, winner, state, participants}' "$T/r.json" >"$T/end-$id-$o.json"
  done
  cmp -s "$T/end-$id-a.json" "$T/end-$id-b.json" || fail "the stores end $id differently"
  [[ $(jq -r .phase "$T/end-$id-a.json") == won ]] || fail "$id did not end with a winner: $(cat "$T/end-$id-a.json")"
done
[[ $(jq -r .winner "$T/end-$SEA-a.json") == 0 ]] || fail "blue (owner A) did not win the sea battle B resigned"
# the same ratings from both stores (the cancelled table is no game): each
# owner has played one game of each type
for o in a b; do
  call "$o" kdapp_get_ratings '{}'
  is_error && fail "the ratings of owner $o's store: $(text)"
  jq -c '.structuredContent | {games_rated, ratings}' "$T/r.json" >"$T/ratings-$o.json"
done
cmp -s "$T/ratings-a.json" "$T/ratings-b.json" || fail "the stores rate differently: $(cat "$T/ratings-"[ab].json)"
jq -e --arg ka "${PUB[a]}" --arg kb "${PUB[b]}" '.games_rated == 2 and ([.ratings[] | select(.games == 1) | [.type, .key]]
  | sort == ([["holdem", $ka], ["holdem", $kb], ["seabattle", $ka], ["seabattle", $kb]] | sort))' "$T/ratings-a.json" >/dev/null ||
  fail "the ratings are not one hold'em and one sea-battle game each: $(cat "$T/ratings-a.json")"

# no message was carried twice: each duty was paid once while its first
# copy could still be carried (on 77f5bb7 a duty looked at again before its
# block was paid again, in about one run of three)
"$KDAPP" log --data "$T/a" --json >"$T/log-a.jsonl" || fail "kdapp log of owner A's store"
twice=$(jq -r 'select(.txs) | .txs[].payload' "$T/log-a.jsonl" | sort | uniq -d | wc -l)
((twice == 0)) || fail "$twice messages were carried twice (each a second paid transaction)"

# ---- each owner's coins paid for its own commands, and only its own
fx "subs $T/subs.jsonl"
for o in a b; do
  p=$([[ $o == a ]] && echo b || echo a)
  "$KDAPP" stats --data "$T/$o" >"$T/stats-$o.out" 2>&1 || fail "stats of $o: $(cat "$T/stats-$o.out")"
  ! grep -q "wallet ${NAME[$p]} " "$T/stats-$o.out" || fail "the writer of owner $o paid from ${NAME[$p]}'s key"
  read -r spent txs < <(sed -n "s/^ *wallet ${NAME[$o]} *\([0-9]*\) sompi in \([0-9]*\) txs.*/\1 \2/p" "$T/stats-$o.out")
  [[ -n ${spent:-} ]] || fail "owner $o's key paid nothing: $(cat "$T/stats-$o.out")"
  # the transactions the node accepted spending this owner's coins: each
  # spends only them and carries a message naming its key (a command or
  # join it signed, a cancel, the creation whose first seat it holds)
  spk="000020${PUB[$o]:2}ac"
  jq -c --arg spk "$spk" 'select(any(.entries[]; .scriptPublicKey == $spk))' "$T/subs.jsonl" >"$T/paid-$o.jsonl"
  [[ $(wc -l <"$T/paid-$o.jsonl") == "$txs" ]] || fail "owner $o's key paid $(wc -l <"$T/paid-$o.jsonl") txs, its writer says $txs"
  jq -se --arg spk "$spk" 'all(.[].entries[]; .scriptPublicKey == $spk)' "$T/paid-$o.jsonl" >/dev/null ||
    fail "a transaction of owner $o's spends other coins too"
  jq -se --arg pub "${PUB[$o]}" --arg other "${PUB[$p]}" 'all(.[].transaction.payload; contains($pub) and (contains($other) | not))' \
    "$T/paid-$o.jsonl" >/dev/null || fail "owner $o's coins paid for a message its key did not make"
  fee=$(jq -s '[.[] | ([.entries[].amount | tonumber] | add) - ([.transaction.outputs[].value | tonumber] | add)] | add' \
    "$T/paid-$o.jsonl")
  [[ $fee == "$spent" ]] || fail "owner $o's transactions paid $fee sompi in fees, its writer says $spent"
  SPENT[$o]=$spent
done
[[ $(balance alice "$T/keys-a") == $((A0 - SPENT[a])) ]] || fail "alice's coins: $A0 - ${SPENT[a]} != $(balance alice "$T/keys-a")"
[[ $(balance bob "$T/keys-b") == $((B0 - SPENT[b])) ]] || fail "bob's coins: $B0 - ${SPENT[b]} != $(balance bob "$T/keys-b")"
echo "owners_node: ok (hold'em $HOLDEM and sea battle $SEA; alice paid ${SPENT[a]} sompi, bob ${SPENT[b]})"
