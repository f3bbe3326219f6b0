#!/usr/bin/env bash
# reorg_replay.sh — no draw a reorg can replay, on the devnet through a real
# MCP session, at every depth up to the finality horizon (reorg_replay.py):
# a store made with finality 6, the keys of the player (agent1, granted)
# and of the house (--house), then the script.
set -euo pipefail
source "$KD_SOURCE_DIR/tests/integration/lib.sh"
finality=6
"$KDAPP" feed --data "$T/data" --finality $finality - </dev/null >/dev/null
"$KDAPP" keygen --keys "$T/keys" agent1 >/dev/null
"$KDAPP" keygen --keys "$T/keys" house >/dev/null
python3 "$KD_SOURCE_DIR/tests/episodes/reorg_replay.py" "$KDAPP" "$T/data" "$T/keys" $finality
