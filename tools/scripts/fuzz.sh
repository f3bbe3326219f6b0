#!/usr/bin/env bash
# fuzz.sh — builds the libFuzzer tree with clang and fuzzes one target for
# N minutes, starting from its committed seed corpus.
#
#   tools/scripts/fuzz.sh TARGET MINUTES [libFuzzer options...]
#   tools/scripts/fuzz.sh list
#
# TARGET is one of: payload ingest script mcp http (tests/fuzz/fuzz_TARGET.c).
# New interesting inputs go to a scratch directory ($KD_FUZZ_WORK/TARGET,
# default build-fuzz/work/TARGET), never into the committed corpus; crashing
# inputs go to tests/fuzz/crashers/TARGET-crash-<sha1> (libFuzzer's
# artifact prefix). After a fix, copy the crasher into
# tests/fuzz/corpus/TARGET/ so the normal build's fuzz_TARGET_corpus test
# keeps replaying it. To minimise the scratch corpus into the committed one:
#   build-fuzz/bin/fuzz_TARGET -merge=1 tests/fuzz/corpus/TARGET WORKDIR
#
# Environment: KD_FUZZ_BUILD_DIR (default build-fuzz), KD_FUZZ_WORK,
# CC (default clang). The engine's temporary stores go under /dev/shm when
# it exists (synced commits are then free). Needs clang with its fuzzer
# runtime (Debian: clang, libclang-rt-14-dev); the normal build does not.
set -euo pipefail
cd "$(dirname "$0")/../.."

targets=(payload ingest script mcp http)
if [[ ${1:-} == list ]]; then
  printf '%s\n' "${targets[@]}"
  exit 0
fi
if (($# < 2)) || [[ ! " ${targets[*]} " == *" $1 "* ]] || ! [[ $2 =~ ^[0-9]+$ ]] || (($2 < 1)); then
  echo "usage: tools/scripts/fuzz.sh TARGET MINUTES [libFuzzer options...]" >&2
  echo "       TARGET: ${targets[*]}; MINUTES: 1 or more" >&2
  exit 2
fi
target=$1 minutes=$2
shift 2

build=${KD_FUZZ_BUILD_DIR:-build-fuzz}
work=${KD_FUZZ_WORK:-$build/work}/$target
mkdir -p "$build" "$work" tests/fuzz/crashers
# Two fuzz.sh runs may share the build tree: build under a lock.
(
  flock 9
  if [[ ! -f $build/CMakeCache.txt ]]; then
    CC=${CC:-clang} cmake -S . -B "$build" -DKD_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
  cmake --build "$build" -j"$(nproc)" --target "fuzz_$target" >/dev/null
) 9>"$build/.build.lock"

tmp_parent=/tmp
[[ -d /dev/shm && -w /dev/shm ]] && tmp_parent=/dev/shm
KD_TEST_TMP=$(mktemp -d "$tmp_parent/kd-fuzz-$target.XXXXXX")
export KD_TEST_TMP
trap 'rm -rf "$KD_TEST_TMP"' EXIT

# Known false positives of the per-input leak check: tests/fuzz/lsan.supp.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/fuzz/lsan.supp}

echo "fuzz.sh: fuzzing $target for $minutes min (new inputs: $work, crashers: tests/fuzz/crashers/)" >&2
"$build/bin/fuzz_$target" \
  -max_total_time=$((minutes * 60)) -timeout=20 -print_final_stats=1 \
  -artifact_prefix="tests/fuzz/crashers/$target-" "$@" \
  "$work" "tests/fuzz/corpus/$target"
