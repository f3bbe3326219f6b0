#!/usr/bin/env bash
# devnet_reorg.sh — embedded mode end to end: `kdapp up` (engine + devnet in
# one process) produces blocks from `kdapp submit`; `kdapp devnet-reorg
# --depth 2` reverts the last two blocks, which brings back the mark the
# stress-mode window had evicted, and the devnet re-includes both moves in a
# new block, which evicts it again. `kdapp watch` and `kdapp show` (all with
# default URLs from --data) see every step.
source "$(dirname "$0")/lib.sh"
data="$T/data"
KDAPP_LOG=info bg up "$KDAPP" up --data "$data" --block-ms 50 --seed 1
up_pid=$BG_PID
wait_for 20 file_has "$T/up.err" "engine and devnet running" || fail "kdapp up did not start"

submit() { "$KDAPP" submit --data "$data" --episode 1 --wait --timeout 20000 "$@"; }
# A consent must be a participant's, signed over the creation, and every
# named seat gives one (engine/rules.c), or the engine refuses it.
if submit --new --participants test:alice,test:bob --consent test:eve >"$T/c0.out" 2>"$T/c0.err"; then
  fail "a consent by a key that is no participant was accepted"
fi
grep -q 'consent\[0\]: key "test:eve" is not a participant of episode 1' "$T/c0.err" || fail "unclear consent error: $(cat "$T/c0.err")"
submit --new --participants test:alice,test:bob --cap 3 --consent test:alice --consent test:bob >"$T/s0.out" ||
  fail "creation not applied"
# X (0,0), O (1,1), X (0,1) fill the window of 3; O (2,2) evicts X's (0,0).
submit --row 0 --col 0 --player X --signer test:alice >"$T/s1.out" || fail "move 1 not applied"
submit --row 1 --col 1 --player O --signer test:bob >"$T/s2.out" || fail "move 2 not applied"
submit --row 0 --col 1 --player X --signer test:alice >"$T/s3.out" || fail "move 3 not applied"
submit --row 2 --col 2 --player O --signer test:bob >"$T/s4.out" || fail "move 4 not applied"
grep -q "^applied in block" "$T/s4.out" || fail "submit --wait did not report the block"

"$KDAPP" show --data "$data" 1 >"$T/before.out"
grep -q "^  0 \. X \." "$T/before.out" || fail "(0,0) should be evicted before the reorg"

# Three views follow: two rollbacks (one per reverted block), then the new
# block that re-applies both moves.
attached=$(count_of "$T/up.err" "subscriber attached")
bg watch "$KDAPP" watch --data "$data" --episode 1 --count 3
watch_pid=$BG_PID
wait_for 20 file_has "$T/watch.err" "watching" || fail "watch did not connect"
# The engine attaches a subscriber asynchronously: reorg only once it has.
wait_for 20 at_least $((attached + 1)) "$T/up.err" "subscriber attached" || fail "the engine did not attach the watch"
"$KDAPP" devnet-reorg --data "$data" --depth 2 >"$T/reorg.out" || fail "devnet-reorg failed"
grep -q "^reverted 2 blocks; 2 txs re-queued" "$T/reorg.out" || fail "unexpected reorg report"
wait_exit 30 "$watch_pid" || fail "watch did not see rollback and re-application"

w="$T/watch.out"
(($(count_of "$w" "^episode 1 (tictactoe) rolled back") == 2)) || fail "expected 2 rollback views"
# After the first rollback X's evicted mark is back on (0,0) (lower-case:
# the mark removed next).
awk '/rolled back/{n++} n==1' "$w" | grep -q "^  0 x X \." || fail "the evicted mark did not come back"
awk '/rolled back/{n++} n==2' "$w" | grep -q "^  0 X \. \." || fail "second rollback board wrong"
tail -n 5 "$w" | grep -q "^  0 \. X \." || fail "re-application should evict (0,0) again"
tail -n 5 "$w" | grep -q "^  2 \. \. O" || fail "re-application should put O on (2,2)"
grep -q "^episode 1 (tictactoe) command" "$w" || fail "no command view after the reorg"

"$KDAPP" show --data "$data" 1 >"$T/after.out"
diff <(tail -n +2 "$T/before.out") <(tail -n +2 "$T/after.out") || fail "the re-included moves should give the same board"

# A move out of turn is rejected and says why (exit 1).
if submit --row 2 --col 0 --player O --signer test:bob >"$T/s5.out"; then fail "an out-of-turn move was applied"; fi
grep -q "^rejected in block .*wrong_turn" "$T/s5.out" || fail "the rejection reason is missing"

# A reorg deeper than the devnet's chain is refused with a reason.
if "$KDAPP" devnet-reorg --data "$data" --depth 100 2>"$T/deep.err"; then fail "a too-deep reorg succeeded"; fi
grep -q "knows only" "$T/deep.err" || fail "the refusal does not say why"

# The generic forms: the type's params JSON and command JSON (the type from
# --type, then from the store).
gsubmit() { "$KDAPP" submit --data "$data" --episode 2 --wait --timeout 20000 "$@"; }
gsubmit --new --type tictactoe --participants test:alice,test:bob --params '{"cap": 3}' >"$T/g0.out" ||
  fail "generic creation not applied"
gsubmit --command '{"row": 2, "col": 1, "player": "X"}' --signer test:alice >"$T/g1.out" ||
  fail "generic command not applied"
"$KDAPP" show --data "$data" 2 | grep -q "^  2 \. X \." || fail "the generic command's mark is missing"
if gsubmit --command '{"row": 2}' --signer test:bob 2>"$T/g2.err"; then fail "a malformed command was sent"; fi
grep -q "command: " "$T/g2.err" || fail "the refusal does not give the type's sentence: $(cat "$T/g2.err")"

kill -TERM "$up_pid"
wait_exit 20 "$up_pid"
((EXIT_CODE == 0)) || fail "kdapp up exited $EXIT_CODE"
file_has "$T/up.err" "stopped cleanly" || fail "kdapp up did not stop cleanly"
echo "PASS: devnet blocks, reorg and re-inclusion"
