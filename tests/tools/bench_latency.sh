#!/usr/bin/env bash
# bench_latency.sh — `kdapp bench --only latency --quick` end to end: the
# four block-commit → client comparisons against their floor (p50, p99
# with its target, max), the many-sessions figures, the agent-move table
# at both block intervals, every figure well formed, nothing FAILED, and
# the same figures in the --markdown report. Speeds are never asserted.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$(mktemp -d "${KD_TEST_TMP:-/tmp}/bench-latency.XXXXXX")
trap 'rm -rf "$T"' EXIT

out=$("$KDAPP" bench --only latency --quick --dir "$T" --markdown "$T/perf.md")
echo "$out"
Q='\[quick: smoke test, not a measurement\] '
N='[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?'
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
  grep -Eq "^$Q +NNG PUB→SUB hop \+ one wr +$N us" <<<"$block" || fail "$what: no floor line"
  grep -Eq "^$Q +ratio $N .*target <= 3: (met|SHORT|WIDE)$" <<<"$block" || fail "$what: no p99 verdict"
done

grep -Eq "^${Q}latency: 50 MCP sessions over HTTP on one gateway" <<<"$out" || fail "no sessions heading"
for q in p50 p99 max; do
  grep -Eq "^$Q  block commit → notification at each of the sessions, $q: $N us$" <<<"$out" || fail "no sessions $q"
done
grep -Eq "^$Q  gateway memory per MCP session \(VmRSS with them − without, / sessions\): $N KiB$" <<<"$out" \
  || fail "no memory per session"

grep -Eq "^${Q}latency: a whole move as an agent sees it" <<<"$out" || fail "no agent-move table"
ms="$N / $N ms"
grep -Eq "^$Q  200 ms \(default\) \| 4 \| $ms \| $ms \| $ms$" <<<"$out" || fail "no 200 ms row"
grep -Eq "^$Q  100 ms \| 4 \| $ms \| $ms \| $ms$" <<<"$out" || fail "no 100 ms row"
grep -Eq "^${Q}[0-9]+ targets? missed, [0-9]+ too noisy to judge" <<<"$out" || fail "no summary"

# the report carries them
grep -q "latency: block commit → notifications/resources/updated at an MCP client over stdio" "$T/perf.md" \
  || fail "markdown: no stdio row"
grep -q "gateway memory per MCP session" "$T/perf.md" || fail "markdown: no sessions figure"
grep -q "| 100 ms | 4 |" "$T/perf.md" || fail "markdown: no agent-move table"
# the scratch directories are gone
[[ -z $(ls "$T" | grep kdapp-bench) ]] || fail "scratch directories left: $(ls "$T")"
echo "bench_latency: ok"
