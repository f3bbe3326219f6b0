#!/usr/bin/env bash
# run_sim.sh SEED STEPS — runs `kdapp sim` and fails on any mismatch; the
# reproduction script of a failure is kept under $KD_TEST_TMP.
set -euo pipefail
seed=$1 steps=$2
if [[ ${KD_SOAK:-} == 1 ]]; then steps=$((steps * 20)); fi
out=$(mktemp -d "$KD_TEST_TMP/sim.XXXXXX")
# Episodes created without params take a stress-mode default (window 6), as
# the simulator's engines always did; the others draw their params.
export KDAPP_TTT_MAX_SYMBOLS=${KDAPP_TTT_MAX_SYMBOLS:-6}
"$KDAPP" sim --seed "$seed" --steps "$steps" --repro "$out/repro-seed$seed.jsonl"
