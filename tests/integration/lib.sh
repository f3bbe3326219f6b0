# lib.sh — shared helpers of the integration scripts (sourced, not run).
#
# Every script gets its own temporary directory under $KD_TEST_TMP, points
# the per-user runtime directory (where the default ipc:// sockets live) into
# it, starts real `kdapp` processes on real sockets, waits on conditions
# with bounded polling (never a fixed sleep as synchronisation), and kills
# whatever it started when it exits, pass or fail.
#
# Environment: KDAPP (the binary, required), KD_TEST_TMP (temp parent),
# KD_KEEP=1 keeps the temporary directory for inspection.
set -euo pipefail

: "${KDAPP:?KDAPP must name the kdapp binary}"
KD_TEST_TMP=${KD_TEST_TMP:-${TMPDIR:-/tmp}}
mkdir -p "$KD_TEST_TMP"
T=$(mktemp -d "$KD_TEST_TMP/it.XXXXXX") # short enough for ipc:// paths (tests/CMakeLists.txt)
export XDG_RUNTIME_DIR="$T/run"
mkdir -p "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
unset KDAPP_DATA KDAPP_KEYS KDAPP_TTT_STRESS KDAPP_TTT_MAX_SYMBOLS
export KDAPP_KEYS="$T/keys"

KD_PIDS=()
kd_cleanup() {
  local rc=$?
  for pid in "${KD_PIDS[@]}"; do
    kill -9 "$pid" 2>/dev/null || true
  done
  for pid in "${KD_PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  if ((rc != 0)); then
    echo "FAILED (exit $rc); files in $T:" >&2
    for f in "$T"/*.out "$T"/*.err; do
      [[ -f $f ]] || continue
      echo "---- $f (last 30 lines)" >&2
      tail -n 30 "$f" >&2
    done
  fi
  if [[ ${KD_KEEP:-0} == 1 || $rc != 0 ]]; then
    echo "kept $T" >&2
  else
    rm -rf "$T"
  fi
}
trap kd_cleanup EXIT

# bg NAME CMD... — runs CMD in the background with stdout/stderr in
# $T/NAME.out / $T/NAME.err; sets BG_PID.
bg() {
  local name=$1
  shift
  : >"$T/$name.out" # truncate now: a reused name must not show old lines
  : >"$T/$name.err"
  "$@" >>"$T/$name.out" 2>>"$T/$name.err" &
  BG_PID=$!
  KD_PIDS+=("$BG_PID")
}

# wait_for SECONDS CMD... — polls CMD every 20 ms until it succeeds; fails
# the test naming CMD after SECONDS.
wait_for() {
  local limit=$1
  shift
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      echo "timed out after ${limit}s waiting for: $*" >&2
      return 1
    fi
    sleep 0.02
  done
}

# wait_exit SECONDS PID — waits for PID to exit (bounded); sets EXIT_CODE.
wait_exit() {
  local limit=$1 pid=$2
  # explicit returns: callers use `wait_exit ... || fail`, which turns off set -e here
  wait_for "$limit" bash -c "! kill -0 $pid 2>/dev/null" || return 1
  EXIT_CODE=0
  wait "$pid" || EXIT_CODE=$?
}

# file_has FILE PATTERN — grep -q wrapper usable with wait_for.
file_has() { grep -q -- "$2" "$1" 2>/dev/null; }
# count_of FILE PATTERN — number of matching lines (0 when none).
count_of() { grep -c -- "$2" "$1" 2>/dev/null || true; }
# at_least N FILE PATTERN — for wait_for.
at_least() { (($(count_of "$2" "$3") >= $1)); }

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# last_digest FILE — the digest of a feed's final "tip height H digest D" line.
last_digest() { awk '/^tip height /{d=$5} END{print d}' "$1"; }
# log_but_consents FILE — a `kdapp log --json` file without the creations'
# payloads: their consents sign the chain of the store they went to
# (local:<store id>), so two stores fed one script differ there only.
log_but_consents() { jq -c 'if .txs then .txs |= map(if has("type") then del(.payload) else . end) else . end' "$1"; }

# start_engine NAME DATA INGEST PUBLISH [args...] — starts `kdapp engine`
# and waits until it serves; sets ENGINE_PID.
start_engine() {
  local name=$1 data=$2 ingest=$3 publish=$4
  shift 4
  bg "$name" "$KDAPP" engine --data "$data" --ingest "$ingest" --publish "$publish" "$@"
  ENGINE_PID=$BG_PID
  wait_for 20 file_has "$T/$name.err" "serving" || fail "engine $name did not start"
}

echo "integration tmp: $T"
