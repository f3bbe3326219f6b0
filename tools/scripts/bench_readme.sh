#!/usr/bin/env bash
# bench_readme.sh — regenerates the figures of tools/bench/README.md (the
# benchmarks' page) from one run on this machine: builds (tools/scripts/setup.sh),
# then `kdapp bench --scale` (every comparison paired, the latency and scale
# scenarios, perft of each type) and chess against chess.js
# (tools/scripts/bench_chess.sh, when node is installed), and replaces what
# lies between that page's `<!-- bench:begin -->` and `<!-- bench:end -->`
# lines with the tables they write (the chart's link made relative to the
# page). The chart, its data and the full JSON
# land in tools/bench/results/. Run it on a quiet machine: it takes about
# 20 minutes on 2 vCPUs (--scale grows a store to a million episodes).
#
#   tools/scripts/bench_readme.sh                 # the full run
#   tools/scripts/bench_readme.sh --quick         # a smoke test of the same path (figures marked as such)
#
# Extra arguments go to `kdapp bench` (e.g. --repeats 7, --seconds 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/scripts/setup.sh >&2
kdapp=$PWD/${KD_BUILD_DIR:-build}/bin/kdapp
results=tools/bench/results
mkdir -p "$results"
work=$(mktemp -d "${TMPDIR:-/tmp}/kdapp-bench-readme.XXXXXX")
trap 'rm -rf "$work"' EXIT
page=tools/bench/README.md

grep -q '^<!-- bench:begin -->$' "$page" && grep -q '^<!-- bench:end -->$' "$page" ||
  { echo "bench_readme: $page lacks the <!-- bench:begin --> / <!-- bench:end --> lines" >&2; exit 2; }

"$kdapp" bench --scale --chart-dir "$results" --json "$results/bench.json" --markdown "$work/bench.md" "$@" |
  tee "$work/bench.txt"
chess=
if command -v node >/dev/null; then
  quick=()
  [[ " $* " == *" --quick "* ]] && quick=(--quick --perft-depth 3)
  tools/scripts/bench_chess.sh --markdown "$work/chess.md" "${quick[@]}" | tee -a "$work/bench.txt"
  chess=$work/chess.md
fi

{
  # the chart is linked from the page, so relative to tools/bench/
  sed "s#](${results}/#](${results#tools/bench/}/#g" "$work/bench.md"
  if [[ -n $chess ]]; then
    printf '\n**Chess perft against chess.js** (`tools/scripts/bench_chess.sh`, each of our counts followed by one of chess.js'"'"'s)\n\n'
    # only the figures: the machine line is the same as above
    grep '^|' "$chess"
  fi
} >"$work/section.md"

awk -v section="$work/section.md" '
  /^<!-- bench:begin -->$/ { print; while ((getline line < section) > 0) print line; skip = 1; next }
  /^<!-- bench:end -->$/ { skip = 0 }
  !skip { print }
' "$page" >"$work/page.md"
mv "$work/page.md" "$page"
echo "bench_readme: $page's figures rewritten (raw output: $results/bench.json)" >&2
