#!/usr/bin/env bash
# feed_counters.sh — a block whose first move on an episode is rejected and
# whose next move on it is legal feeds as written: `kdapp feed` signs the
# legal move for the counter the episode will have when it is applied (the
# rejected move does not count), locally and with --connect to a daemon,
# which predicts the counters with a dry run (IngestRequest.dry_run).
source "$(dirname "$0")/lib.sh"
cat >"$T/script.jsonl" <<'JSON'
{"accept": {"hash": "b1", "txs": [{"new_episode": {"id": 7, "type": "tictactoe", "participants": ["test:alice", "test:bob"]}}]}}
# O moves on X's turn (rejected), then X's legal move
{"accept": {"hash": "b2", "txs": [{"move": {"episode": 7, "row": 0, "col": 0, "player": "O", "signer": "test:bob"}}, {"move": {"episode": 7, "row": 0, "col": 0, "player": "X", "signer": "test:alice"}}]}}
# O on the occupied cell (rejected), then O and X legal
{"accept": {"hash": "b3", "txs": [{"move": {"episode": 7, "row": 0, "col": 0, "player": "O", "signer": "test:bob"}}, {"move": {"episode": 7, "row": 1, "col": 1, "player": "O", "signer": "test:bob"}}, {"move": {"episode": 7, "row": 2, "col": 2, "player": "X", "signer": "test:alice"}}]}}
JSON

check() { # check OUT — the outcomes every feed must print
  file_has "$1" "line 3: .*applied 1/2 txs" || fail "$1: block b2 should apply its second move"
  file_has "$1" "tx 0 (episode 7) rejected: wrong_turn" || fail "$1: b2's first move should be wrong_turn"
  file_has "$1" "line 5: .*applied 2/3 txs" || fail "$1: block b3 should apply its last two moves"
  file_has "$1" "tx 0 (episode 7) rejected: cell_occupied" || fail "$1: b3's first move should be cell_occupied"
  ! file_has "$1" "bad_signature" || fail "$1: a move was signed for the wrong counter"
}

"$KDAPP" feed --data "$T/local" "$T/script.jsonl" >"$T/local.out"
check "$T/local.out"
"$KDAPP" show --json --data "$T/local" 7 | grep -q '"move_count": *3' || fail "local: episode 7 should have 3 moves"

start_engine engine "$T/daemon" "ipc://$T/ingest.ipc" "ipc://$T/views.ipc"
"$KDAPP" feed --connect "ipc://$T/ingest.ipc" "$T/script.jsonl" >"$T/remote.out"
check "$T/remote.out"
[[ $(last_digest "$T/local.out") == "$(last_digest "$T/remote.out")" ]] || fail "local and remote digests differ"
echo "PASS: moves after a rejected one are signed for the right counter, locally and over the socket"
