#!/usr/bin/env bash
# reorg_replay.sh — no draw a reorg can replay, no ask a reorg can take
# back (issue 24, B5; issue 37, R1), on a real devnet through real gateways
# over HTTP (reorg_replay.py): `kdapp up` (engine and devnet) on a store
# with finality 8, the keys of the player (agent1) and of the house, then
# the script, which attaches two `kdapp mcp --http` gateways to it.
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
finality=8
"$KDAPP" keygen --keys "$T/keys" agent1 >/dev/null
"$KDAPP" keygen --keys "$T/keys" house >/dev/null
bg up "$KDAPP" up --data "$T/data" --block-ms 20 --finality $finality --quiet
wait_for 30 file_has "$T/up.err" "devnet" || fail "kdapp up did not start"
python3 "$KD_SOURCE_DIR/tests/episodes/reorg_replay.py" "$KDAPP" "$T/data" "$T/keys" $finality "$T"
