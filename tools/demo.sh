#!/usr/bin/env bash
# demo.sh — the main job: builds kdapp and plays a stress-mode tic-tac-toe
# game on a fresh data directory, showing an eviction, a reorg that brings
# the evicted mark back, and a different move re-applied after it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
kdapp=$PWD/build/bin/kdapp
work=$(mktemp -d "${TMPDIR:-/tmp}/kdapp-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
export KDAPP_DATA=$work/data KDAPP_KEYS=$work/keys

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "seven stress-mode moves (cap 6): the 7th evicts X's oldest mark at (0,0)"
"$kdapp" feed tools/demo/stress_game.jsonl
"$kdapp" show 7
step "the strategy context an agent sees now"
"$kdapp" strategy 7

step "reorg: block g5 is reverted, and X's evicted mark comes back to (0,0)"
"$kdapp" feed tools/demo/revert.jsonl
"$kdapp" show 7

step "the new branch: X plays (2,2) instead, evicting (0,0) again"
"$kdapp" feed tools/demo/branch.jsonl
"$kdapp" show 7

step "the log: every message as received, with its outcome"
"$kdapp" log
