#!/bin/bash
# run_first_keys.sh — two `kdapp mcp` gateways ($KDAPP) started at the same
# moment on one empty key directory (each with its own data directory), both
# granted agent1,agent2: each must find both agent keys and serve. Before,
# the second saw agent1 while the first was still writing agent2, made
# nothing, and died: "cannot open key file …/agent2.key". Five rounds, each
# on a fresh key directory; then a directory of the user's own keys is left
# as it is (no agent keys are added to it).
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
served() { grep -q 'serving MCP on http:' "$1"; }
either_ended() { served "$T/a.err" && served "$T/b.err" || ! kill -0 "$A" 2>/dev/null || ! kill -0 "$B" 2>/dev/null; }
for round in 1 2 3 4 5; do
  keys=$T/keys$round
  bg a "$KDAPP" mcp --http 127.0.0.1:0 --grant agent1,agent2 --data "$T/a$round" --keys "$keys"
  A=$BG_PID
  bg b "$KDAPP" mcp --http 127.0.0.1:0 --grant agent1,agent2 --data "$T/b$round" --keys "$keys"
  B=$BG_PID
  wait_for 60 either_ended || fail "round $round: the gateways neither served nor ended"
  for g in a b; do
    served "$T/$g.err" || fail "round $round: gateway $g did not serve: $(cat "$T/$g.err")"
  done
  [[ -f $keys/agent1.key && -f $keys/agent2.key ]] || fail "round $round: the agent keys are missing: $(ls -a "$keys")"
  [[ $(find "$keys" -name '.*' -type f | wc -l) == 0 ]] || fail "round $round: temporary key files left: $(ls -a "$keys")"
  kill "$A" "$B"
  wait_exit 20 "$A" && wait_exit 20 "$B" || fail "round $round: the gateways did not stop"
done
"$KDAPP" keygen --keys "$T/own" alice >/dev/null
bg own "$KDAPP" mcp --http 127.0.0.1:0 --grant alice --data "$T/own-data" --keys "$T/own"
wait_for 60 served "$T/own.err" || fail "the gateway with alice's key did not serve: $(cat "$T/own.err")"
[[ ! -e $T/own/agent1.key ]] || fail "agent keys were added to a directory of the user's own keys"
echo "PASS: two gateways on one empty key directory both find every agent key"
