#!/usr/bin/env bash
# bench_quick.sh — `kdapp bench --quick` end to end, the smoke test of the
# engine and MCP comparisons and of the duties' figures: every line carries the smoke-test mark, every
# comparison runs its pairs and prints both sides, the ratio and a verdict,
# nothing fails, and --json / --markdown record what was printed. Figures
# are never judged here (the machines are shared and noisy).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
# the bench's sockets live in its scratch directory: KD_TEST_TMP is short
# enough for their paths (tests/CMakeLists.txt)
T=$(mktemp -d "${KD_TEST_TMP:-/tmp}/bench-quick.XXXXXX")
trap 'rm -rf "$T"' EXIT
unset KDAPP_TTT_STRESS KDAPP_TTT_MAX_SYMBOLS
MARK='[quick: smoke test, not a measurement] '

out=$("$KDAPP" bench --quick --only engine --dir "$T" --json "$T/engine.json" --markdown "$T/engine.md")
echo "$out"
grep -v '^$' <<<"$out" | grep -Fqv "$MARK" && fail "a line without the smoke-test mark"
out=${out//"$MARK"/}
grep -q 'FAILED' <<<"$out" && fail "a comparison failed"
for s in "signed moves through the daemon's ingest" "pre-verified replay of that store" \
  "revert of the tip block" "block commit latency"; do
  grep -Fq "$s" <<<"$out" || fail "no comparison '$s'"
done
grep -Eq '^  throughput  kdapp engine +[0-9,.]+ moves/s +\(min [0-9,.]+, max [0-9,.]+\)$' <<<"$out" || fail "ingest line"
grep -Eq '^ +ratio [0-9.e+-]+ \(min [0-9.e+-]+, max [0-9.e+-]+, spread [0-9]+%\), target >= 0.8: (met|SHORT|WIDE)$' \
  <<<"$out" || fail "ingest ratio line"
grep -Eq '^  3 pairs of runs of at least 0.1 s \(subject then baseline\), [0-9]+ s in all; load average [0-9.]+ before, [0-9.]+ after$' \
  <<<"$out" || fail "pairs line"
grep -Eq '^[0-9]+ targets? missed, [0-9]+ too noisy to judge \(WIDE\)' <<<"$out" || fail "summary"

# The JSON holds each comparison with its pairs; the markdown, a row per metric.
[[ $(jq '[.results[] | select(.kind == "pair")] | length' "$T/engine.json") == 4 ]] || fail "pairs in the JSON"
[[ $(jq '.quick and .pairs == 3' "$T/engine.json") == true ]] || fail "JSON header"
jq -e '[.results[] | select(.kind == "pair") | .metrics[] | .ratio.median > 0] | all' "$T/engine.json" >/dev/null ||
  fail "a ratio is missing"
grep -q '^\*\*A `--quick` smoke test: these figures are not measurements.\*\*$' "$T/engine.md" || fail "markdown mark"
grep -Eq '^\| signed moves through the daemon.s ingest .*\| throughput \| [0-9,]+ moves/s \([0-9,]+–[0-9,]+\) \|' \
  "$T/engine.md" || fail "markdown ingest row"

# The MCP comparisons (the TypeScript SDK one needs node and npm: skipped with a note without them).
out=$("$KDAPP" bench --quick --only mcp --dir "$T")
echo "$out"
grep -v '^$' <<<"$out" | grep -Fqv "$MARK" && fail "an mcp line without the mark"
out=${out//"$MARK"/}
grep -q 'FAILED\|failed:' <<<"$out" && fail "an mcp comparison failed"
for s in "MCP over stdio, 1 client" "MCP over HTTP, 1 client" "MCP over HTTP, 8 clients"; do
  grep -Fq "$s" <<<"$out" || fail "no comparison '$s'"
done
grep -Fq "pipe + jansson parse and encode" <<<"$out" || fail "no stdio floor"
if command -v npm >/dev/null; then
  grep -Fq "MCP over stdio against the TypeScript SDK" <<<"$out" || fail "no SDK comparison"
  grep -Eq '^  peak memory kdapp mcp --stdio +[0-9,]+ KiB' <<<"$out" || fail "no memory row"
fi
# The duties of the types with secrets: each kind made, verified, prechecked and taken by the writer, against
# the baseline of the same run (a signature check of the same command), and its payload; hold'em's shuffle (deck, key and proof of shuffle) fits the 12 kB it must.
out=$("$KDAPP" bench --quick --only duties --dir "$T" --json "$T/duties.json")
echo "$out"
grep -v '^$' <<<"$out" | grep -Fqv "$MARK" && fail "a duties line without the mark"
for s in "duties of holdem" "holdem shuffle, made from the seat's secret" "holdem shuffle, taken by the rules" \
  "holdem shuffle, its precheck, run ahead by the engine's verifier pool" "holdem lock, transaction payload" \
  "holdem shuffle, baseline (same run): its signature checked" "holdem shuffle, verify / baseline"; do
  grep -Fq "$s" <<<"$out" || fail "no duties line '$s'"
done
jq -e '[.results[] | select(.id == "duties.holdem.shuffle.payload") | .value > 8000 and .value <= 12000] == [true]' \
  "$T/duties.json" >/dev/null || fail "hold'em's shuffle payload is not within 12 kB"
echo "bench_quick: ok"
