#!/usr/bin/env bash
# bench_scale.sh — `kdapp bench --scale --quick` end to end: a store grown
# to 10^3 episodes of mixed board games measured against a 10^2 reference
# (paired apply/revert per move, strategy context and list page through a
# stdio gateway on an engine daemon, replay, sizes, memory), its table
# row, scale.tsv, scale.gp and scale.svg (gnuplot present), and the note
# naming the package when gnuplot is missing. Figures are checked for form,
# never for speed.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
# the bench's sockets live in its scratch directory: KD_TEST_TMP is short
# enough for their paths (tests/CMakeLists.txt)
T=$(mktemp -d "${KD_TEST_TMP:-/tmp}/bench-scale.XXXXXX")
trap 'rm -rf "$T"' EXIT
Q='\[quick: smoke test, not a measurement\] '
num='[0-9][0-9,]*(\.[0-9]+)?'

out=$("$KDAPP" bench --only perft --perft-depth 1 --scale --quick --dir "$T" --chart-dir "$T/charts")
echo "$out"
grep -Eq "^${Q}scale: a store grown to 1000 episodes of board games" <<<"$out" || fail "no scale heading"
grep -Eq "^${Q}  reference store: 100 episodes, [0-9]+ txs" <<<"$out" || fail "no reference store line"
grep -Eq "^${Q}scale: 1000 episodes: grown by [0-9]+ txs in $num s" <<<"$out" || fail "no growth line"
! grep -q 'FAILED' <<<"$out" || fail "a scale step failed"
for m in 'apply' 'revert' 'apply all' 'revert all' 'strategy' 'list page'; do
  grep -Eq "^${Q}  $m +store of 1000 episodes +$num us/(move|call)" <<<"$out" || fail "no subject line for '$m'"
done
# six ratios against 1.2 (the newest episodes as grown and compacted, the
# strategy, the list page), four against 2 (episodes drawn from the whole
# store, as grown and compacted)
ratio="^${Q}  +ratio $num \\(min $num, max $num, spread [0-9]+%\\), target <="
[[ $(grep -Ec "$ratio 1.2: (met|SHORT|WIDE)" <<<"$out") == 6 && $(grep -Ec "$ratio 2: (met|SHORT|WIDE)" <<<"$out") == 4 ]] ||
  fail "not six ratio lines against 1.2 and four against 2"
grep -Eq "^${Q}  compacted the copy of 1000 episodes in $num s: $num MiB -> $num MiB" <<<"$out" || fail "no compaction line"
grep -Eq "^${Q}  pages written per commit \\(newest, 1000 episodes, compacted\\): apply [0-9]+ in [0-9]+ runs" <<<"$out" ||
  fail "no page counts of the compacted store"
grep -Eq "^${Q}  LMDB file $num MiB, [0-9]+ B per tx; the log [0-9]+ B per tx" <<<"$out" || fail "no size line"
grep -Eq "^${Q}  replay of the whole log: $num s, [0-9]+ tx/s" <<<"$out" || fail "no replay line"
grep -Eq "^${Q}  engine daemon: $num MiB anonymous, $num MiB resident" <<<"$out" || fail "no memory line"
# The table: one row of fourteen cells for 10^3 episodes.
row=$(grep -E "^${Q}  1000 \| " <<<"$out") || fail "no table row"
[[ $(awk -F' \\| ' '{print NF}' <<<"$row") == 14 ]] || fail "the row has not fourteen cells: $row"

tsv="$T/charts/scale.tsv"
[[ -s $tsv && -s $T/charts/scale.gp ]] || fail "no scale.tsv or scale.gp"
head -1 "$tsv" | grep -q '^# episodes	txs	log_entries	apply_us' || fail "scale.tsv header"
[[ $(grep -vc '^#' "$tsv") == 1 ]] || fail "scale.tsv has not one row"
awk -F'\t' '!/^#/ { if (NF != 33 || $1 != 1000 || $2 < 1000) exit 1; for (i = 1; i <= NF; i++) if ($i !~ /^[0-9.]+$/) exit 1 }' "$tsv" ||
  fail "scale.tsv row: $(tail -1 "$tsv")"
if command -v gnuplot >/dev/null; then
  grep -q '<svg' "$T/charts/scale.svg" || fail "no scale.svg"
  grep -Eq "^${Q}  chart: .*/charts/scale.svg" <<<"$out" || fail "no chart line"
fi

# Without gnuplot: the note names the package, the data and script are still written.
mkdir "$T/nobin"
rm -f "$T/charts/scale.svg"
out=$(PATH="$T/nobin" "$KDAPP" bench --only perft --perft-depth 1 --scale --quick --dir "$T" --chart-dir "$T/charts2")
grep -q "no chart: gnuplot is not installed (Debian's package gnuplot-nox)" <<<"$out" || fail "no note on gnuplot"
[[ -s $T/charts2/scale.tsv && -s $T/charts2/scale.gp && ! -e $T/charts2/scale.svg ]] || fail "files without gnuplot"
echo "ok"
