#!/usr/bin/env bash
# bench_latency.sh — `kdapp bench --only latency --quick` end to end: the
# four block-commit → client comparisons against their floor (p50, p99
# with its target, max), the many-sessions figures, the fan-out
# comparisons (p99 at many sessions against one, the cost per
# session at the big size against the small), the agent-move table at both
# block intervals, every figure well formed, nothing FAILED, and the same
# figures in the --markdown report. Speeds are never asserted.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
# the bench's sockets live in its scratch directory: KD_TEST_TMP is short
# enough for their paths (tests/CMakeLists.txt)
T=$(mktemp -d "${KD_TEST_TMP:-/tmp}/bench-latency.XXXXXX")
trap 'rm -rf "$T"' EXIT

out=$("$KDAPP" bench --only latency --quick --dir "$T" --markdown "$T/perf.md")
echo "$out"
Q='\[quick: smoke test, not a measurement\] '
N='[0-9][0-9,]*(\.[0-9]+)?(e[+-]?[0-9]+)?'
! grep -q FAILED <<<"$out" || fail "a scenario failed"
# every line carries the smoke-test mark
! grep -v '^$' <<<"$out" | grep -qv "^$Q" || fail "a line without the quick mark"

for what in "its view at a SUB socket on the PUB socket" \
            "notifications/resources/updated at an MCP client over stdio" \
            "notifications/resources/updated on an MCP session's SSE stream (HTTP)" \
            "the view on the board page's event stream (GET /api/events)"; do
  block=$(grep -F -A 12 "latency: block commit → $what" <<<"$out") || fail "no scenario line: $what"
  for m in p50 p99 max; do
    grep -Eq "^$Q  $m +kdapp-c +$N us +\(min $N, max $N\)" <<<"$block" || fail "$what: no $m line"
  done
  grep -Eq "^$Q +NNG PUB→SUB hop \+ one write +$N us" <<<"$block" || fail "$what: no floor line"
  grep -Eq "^$Q +ratio $N .*target <= 3: (met|SHORT|WIDE)$" <<<"$block" || fail "$what: no p99 verdict"
done

grep -Eq "^${Q}latency: 50 MCP sessions over HTTP on one gateway" <<<"$out" || fail "no sessions heading"
for q in p50 p99 max; do
  grep -Eq "^$Q  block commit → notification at each of the sessions, $q: $N us$" <<<"$out" || fail "no sessions $q"
done
grep -Eq "^$Q  gateway memory per MCP session \(VmRSS with them − without, / sessions\): $N KiB$" <<<"$out" \
  || fail "no memory per session"

# fan-out (issue 27): p99 at the mid size against one session, and the cost
# per session at the big size against the small, each a paired row with a
# verdict; the cost per session at each size as a figure
block=$(grep -F -A 12 "fan-out: block commit → notification at each of 50 MCP sessions over HTTP, against one session" \
  <<<"$out") || fail "no fan-out p99 comparison"
grep -Eq "^$Q  p99 +50 sessions +$N us" <<<"$block" || fail "fan-out: no p99 line"
grep -Eq "^$Q +1 session +$N us" <<<"$block" || fail "fan-out: no one-session line"
grep -Eq "^$Q +ratio $N .*target <= 3: (met|SHORT|WIDE)$" <<<"$block" || fail "fan-out: no p99 verdict"
block=$(grep -F -A 12 "fan-out: cost per session of a notification to 100 MCP sessions over HTTP, against 10 sessions" \
  <<<"$out") || fail "no fan-out linearity comparison"
grep -Eq "^$Q  per session +100 sessions +$N us" <<<"$block" || fail "fan-out: no per-session line"
grep -Eq "^$Q +ratio $N .*target <= 1.2: (met|SHORT|WIDE)$" <<<"$block" || fail "fan-out: no linearity verdict"
for n in 10 50 100; do
  grep -Eq "^$Q  fan-out cost per session at $n sessions .*: $N us$" <<<"$out" || fail "no cost figure at $n sessions"
done
# nothing in the bench names a game: its types come from the type table
! grep -nE "ttt|tictactoe|tic-tac-toe|chess|checkers|roulette|blackjack|seabattle|holdem|dice|slots|fourinarow" \
  "$KD_SOURCE_DIR"/tools/bench/*.c "$KD_SOURCE_DIR"/tools/bench/*.h || fail "tools/bench names a game"

grep -Eq "^${Q}latency: a whole move as an agent sees it" <<<"$out" || fail "no agent-move table"
ms="$N / $N ms"
grep -Eq "^$Q  100 ms \(default\) \| 4 \| $ms \| $ms \| $ms$" <<<"$out" || fail "no 100 ms row"
grep -Eq "^$Q  20 ms \| 4 \| $ms \| $ms \| $ms$" <<<"$out" || fail "no 20 ms row"
grep -Eq "^${Q}[0-9]+ targets? missed, [0-9]+ too noisy to judge" <<<"$out" || fail "no summary"

# the report carries them
grep -q "latency: block commit → notifications/resources/updated at an MCP client over stdio" "$T/perf.md" \
  || fail "markdown: no stdio row"
grep -q "gateway memory per MCP session" "$T/perf.md" || fail "markdown: no sessions figure"
grep -q "fan-out: cost per session of a notification to 100 MCP sessions" "$T/perf.md" || fail "markdown: no fan-out row"
grep -q "| 20 ms | 4 |" "$T/perf.md" || fail "markdown: no agent-move table"
# KDAPP_MCP_SESSIONS bounds the sessions: with 2, both busy (an open
# event stream each), a third initialize is refused with 503 naming the
# limit (an idle one would have been shed instead); a malformed value, or
# a malformed share per client, is a usage error
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
for var in KDAPP_MCP_SESSIONS KDAPP_MCP_SESSIONS_PER_CLIENT KDAPP_MCP_STREAMS_PER_CLIENT; do
  set +e
  env "$var=0" "$KDAPP" mcp --http 127.0.0.1:0 --data "$T/d" --keys "$T/k" 2>"$T/bad.log"
  rc=$?
  set -e
  [[ $rc == 2 ]] && grep -q "$var='0' is not valid" "$T/bad.log" || fail "$var=0 accepted (rc $rc)"
done
KDAPP_MCP_SESSIONS=2 KDAPP_MCP_SESSIONS_PER_CLIENT=3 "$KDAPP" mcp --http 127.0.0.1:0 --data "$T/d" --keys "$T/k" 2>"$T/gw.log" &
gw=$!
port=
for _ in $(seq 300); do
  port=$(sed -n 's|.*serving MCP on http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$T/gw.log")
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || { kill $gw; fail "the gateway did not start: $(cat "$T/gw.log")"; }
codes=
streams=()
for i in 1 2 3; do
  codes+=$(curl -s -o "$T/answer" -D "$T/head" -w '%{http_code} ' -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' --data "$init" "http://127.0.0.1:$port/mcp")
  sid=$(sed -n 's/^Mcp-Session-Id: *\([0-9a-f]*\).*/\1/Ip' "$T/head")
  if [[ $i != 3 ]]; then # keep the session busy: its event stream stays open
    curl -s -N --max-time 60 -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $sid" \
      "http://127.0.0.1:$port/mcp" >"$T/stream.$i" &
    streams+=($!)
    for _ in $(seq 300); do grep -q 'stream open' "$T/stream.$i" && break; sleep 0.1; done
  fi
done
kill "${streams[@]}" 2>/dev/null || true
kill $gw; wait $gw || true
[[ $codes == "200 200 503 " ]] || fail "sessions with KDAPP_MCP_SESSIONS=2: $codes"
grep -q "the session limit (2) is reached" "$T/answer" || fail "the refusal does not name the limit: $(cat "$T/answer")"
rm -rf "$T/d" "$T/k"

# the scratch directories are gone
[[ -z $(ls "$T" | grep kdapp-bench) ]] || fail "scratch directories left: $(ls "$T")"
echo "bench_latency: ok"
