# lib_play.sh — what the `kdapp play` scripts share (read with `.`, not run; POSIX sh).
#
# fail MESSAGE — prints it and every .out and .err file of the script's
# scratch directory $work, then exits 1.
fail() {
    echo "FAIL: $*" >&2
    for f in "$work"/*.out "$work"/*.err; do
        [ -f "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }
    done
    exit 1
}
