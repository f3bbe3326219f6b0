#!/usr/bin/env bash
# run.sh TEST.mjs — runs one client test file with node's built-in test
# runner (ctest calls this; KDAPP names the binary, KD_TEST_TMP the scratch
# parent). The npm dependencies come from `npm ci` here (tools/scripts/check.sh runs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null; then
  echo "client tests: node is not installed (tools/scripts/check.sh installs nodejs and npm)" >&2
  exit 1
fi
if [[ ! -f $here/node_modules/@modelcontextprotocol/sdk/package.json ]]; then
  echo "client tests: $here/node_modules is missing; run 'npm ci' in tests/client (tools/scripts/check.sh does)" >&2
  exit 1
fi
exec node --test --test-reporter=spec "$here/$1"
