#!/usr/bin/env bash
# views_publish.sh — the engine publishes an EpisodeView for every commit
# that touches an episode and a BlockSummary for every commit, on accept and
# on revert; `kdapp watch` draws them, naming rollbacks.
source "$(dirname "$0")/lib.sh"
demo="$KD_SOURCE_DIR/tools/script/demo"
cat "$demo/stress_game.jsonl" "$demo/revert.jsonl" "$demo/branch.jsonl" >"$T/game.jsonl"
views="ipc://$T/views.ipc"

KDAPP_LOG=info start_engine engine "$T/data" "ipc://$T/ingest.ipc" "$views"
# 7 commits touch episode 7: creation, 4 move blocks, the revert, the branch.
bg watch_ep "$KDAPP" watch --connect "$views" --episode 7 --count 7
ep_pid=$BG_PID
bg watch_all "$KDAPP" watch --connect "$views" --blocks --count 14
all_pid=$BG_PID
bg watch_other "$KDAPP" watch --connect "$views" --episode 8
other_pid=$BG_PID
for w in watch_ep watch_all watch_other; do
  wait_for 20 file_has "$T/$w.err" "watching" || fail "$w did not connect"
done
# The engine attaches a subscriber asynchronously: publish only once all
# three are attached on its side, or the first views could miss one.
wait_for 20 file_has "$T/engine.err" "subscribers: 3" || fail "the engine did not see 3 subscribers"

"$KDAPP" feed --quiet --connect "ipc://$T/ingest.ipc" "$T/game.jsonl" >"$T/feed.out"
wait_exit 30 "$ep_pid" || fail "watch --episode 7 did not see 7 views"
((EXIT_CODE == 0)) || fail "watch exited $EXIT_CODE"
wait_exit 30 "$all_pid" || fail "watch --blocks did not see 14 frames"

out="$T/watch_ep.out"
(($(count_of "$out" "^episode 7 (tictactoe) initialize") == 1)) || fail "no initialize view"
(($(count_of "$out" "^episode 7 (tictactoe) command") == 5)) || fail "expected 5 command views"
(($(count_of "$out" "^episode 7 (tictactoe) rolled back: block") == 1)) || fail "expected 1 rollback view"
# After the revert X's evicted mark is back on (0,0) (lower-case: removed next).
grep -A2 "rolled back" "$out" | grep -q "^  0 x X O" || fail "the rollback view does not show X back on (0,0)"
# The final board: the branch evicted (0,0) again and put X on (2,2).
tail -n 5 "$out" | grep -q "^  0 \. X O" || fail "final row 0 wrong"
tail -n 5 "$out" | grep -q "^  2 X \. X" || fail "final row 2 wrong"

all="$T/watch_all.out"
(($(count_of "$all" "^block .* accepted") == 6)) || fail "expected 6 accepted block summaries"
(($(count_of "$all" "^block .* reverted: tip") == 1)) || fail "expected 1 reverted block summary"
(($(count_of "$all" "^episode 7") == 7)) || fail "expected 7 views on the all-episodes watch"

# A watch of another episode saw nothing, and stops cleanly on SIGINT.
kill -INT "$other_pid"
wait_exit 10 "$other_pid"
((EXIT_CODE == 0)) || fail "watch exited $EXIT_CODE on SIGINT"
[[ ! -s $T/watch_other.out ]] || fail "watch --episode 8 printed views of another episode"
echo "PASS: views on accept and revert"
