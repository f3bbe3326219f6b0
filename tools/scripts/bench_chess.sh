#!/usr/bin/env bash
# bench_chess.sh — kdapp-c's chess perft against chess.js's, measured in the
# same run: `kdapp bench --only perft --type chess --peer` with
# tools/bench/peers/chessjs_perft.mjs (chess.js from tests/client, pinned in
# its package-lock.json; installed here with `npm ci` when missing).
#
#   tools/scripts/bench_chess.sh                 # the start position, depth 5, best of 3
#   tools/scripts/bench_chess.sh --perft-depth 4 --params '{"fen": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"}'
#
# Extra arguments go to `kdapp bench` after the defaults (--perft-depth 5
# --repeats 3 --peer-target 10), so they override them. Environment:
# KD_BUILD_DIR (default build). Exits 1 when the counts differ, 2 when
# the build has no chess type or node is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
kdapp=${KD_BUILD_DIR:-build}/bin/kdapp
peer=$PWD/tools/bench/peers/chessjs_perft.mjs
[[ -x $kdapp ]] || { echo "bench_chess: $kdapp is missing: build first (tools/scripts/setup.sh)" >&2; exit 2; }
if ! "$kdapp" perft chess --depth 0 >/dev/null 2>&1; then
  echo "bench_chess: this kdapp has no chess episode type" >&2
  exit 2
fi
command -v node >/dev/null || { echo "bench_chess: node is not installed" >&2; exit 2; }
if [[ ! -f tests/client/node_modules/chess.js/package.json ]]; then
  (cd tests/client && npm ci --no-audit --no-fund)
fi
exec "$kdapp" bench --only perft --type chess --perft-depth 5 --repeats 3 --peer-target 10 \
  --peer "node '$peer'" "$@"
