#!/usr/bin/env bash
# demo.sh — the main job: builds kdapp, then plays a stress-mode game (at
# most 6 symbols, the oldest removed before each move) between two `search`
# players through the MCP gateway on the embedded default (engine and devnet
# in process), with a chain reorganisation every 6 moves that rolls the last
# block back (the evicted mark returns) before it is mined again, and ends
# with `kdapp verify` replaying the log against the live store.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/scripts/setup.sh
kdapp=$PWD/build/bin/kdapp
work=$(mktemp -d "${TMPDIR:-/tmp}/kdapp-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
export KDAPP_DATA=$work/data KDAPP_KEYS=$work/keys

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "kdapp play: search (X) against search (O), stress cap 6, through the MCP gateway, a reorg every 6 moves"
"$kdapp" play --x search --o search --cap 6 --seed 1 --reorg-every 6 --reorg-depth 1 --max-moves 30

step "kdapp verify: the log, replayed in full and along the canonical chain, reproduces the live store"
"$kdapp" verify

step "kdapp stats: what the engine did"
"$kdapp" stats
