#!/usr/bin/env bash
# check.sh — the whole test suite from a fresh Debian machine: installs what
# is missing, builds with warnings as errors, and runs every test through
# ctest (Criterion unit tests and integration tests on real files, sockets
# and processes, the MCP client tests: the official TypeScript SDK client
# and the MCP conformance suite, and the browser tests: the board page and
# the MCP App widget in Debian's chromium through puppeteer-core; npm
# packages pinned in tests/client's package-lock.json).
#
# First a sanitizer pass: a second build (build-asan) with AddressSanitizer,
# UndefinedBehaviorSanitizer and LeakSanitizer, and the engine's crash
# points compiled in (KD_CRASHPOINTS), runs the unit, integration, fuzz
# corpus and crash-point tests (the long scenarios and enumerations only in
# the release pass). Then a ThreadSanitizer pass: a third build
# (build-tsan, only what it runs) runs the threaded parts: readers racing
# a growing map and MCP sessions racing the writer (tests/threads), the
# engine daemon (ingest server, signature pool, publisher), the devnet,
# `kdapp listen` (embedded engine) against its fixture kaspad, a hostile
# one too (tests/listen), the gateway attached and embedded under the
# Node.js MCP clients (its duties thread paying a blackjack house's
# reveals among them), the board page in chromium, the HTTP transport's
# shares per client under curl (sessions shed and streams closed from
# several threads), and its connections under issue 37's floods (1,010
# trickling sockets closed from the timer while the polling threads serve
# a granted agent; audits on workers at a rate per client), hold'em's
# proofs checked by the engine daemon's verifier pool (holdem_pool_e2e),
# and two owners' `kdapp up --rpc` and gateways on one fixture kaspad, each
# duties thread paying its own seat through its own writer (owners_node).
# Criterion cannot run under ThreadSanitizer (tests/threads/threads.h), so
# the Criterion tests are not in it. Any report, from a test or from a
# daemon it started, fails the check (tests/tsan.supp lists what is
# suppressed inside libraries, and why). Then the whole suite runs on the
# normal build; its closing line is ctest's summary of what passed and
# failed.
#
#   tools/scripts/check.sh                   # the whole check (CI runs this)
#   KD_CHECK_SANITIZE=0 tools/scripts/check.sh   # skip both sanitizer passes
#   tools/scripts/check.sh -R engine         # extra arguments go to the final ctest
set -euo pipefail
cd "$(dirname "$0")/../.."
# What the builds need, and for the client tests node and npm, chromium
# and a font with the game pieces for the browser tests (Debian's packages
# when missing), in one apt-get run; then the pinned npm packages, in the
# background while the code builds (npm ci runs again only when the
# lockfile changed).
extra=()
command -v node >/dev/null || extra+=(nodejs)
command -v npm >/dev/null || extra+=(npm)
command -v chromium >/dev/null || extra+=(chromium)
extra+=(fonts-dejavu-core)
KD_EXTRA_PACKAGES="${extra[*]}" KD_SETUP_BUILD=0 tools/scripts/setup.sh
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a == 20 && b >= 18) ? 0 : 1)' ||
  echo "check: warning: node $(node --version) is older than 20.18; the MCP conformance suite needs 20.18 or later" >&2
stamp=tests/client/node_modules/.kdapp-lock-stamp
npm_pid=
if ! cmp -s tests/client/package-lock.json "$stamp"; then
  mkdir -p build
  (cd tests/client && npm ci --no-audit --no-fund && cp package-lock.json node_modules/.kdapp-lock-stamp) \
    >build/npm-ci.log 2>&1 &
  npm_pid=$!
fi
# Waits for the npm packages (before the first tests).
npm_ready() {
  [[ -n $npm_pid ]] || return 0
  if ! wait "$npm_pid"; then
    cat build/npm-ci.log
    echo "check: npm ci failed (above)" >&2
    exit 1
  fi
  npm_pid=
}

# The code is formatted as .clang-format says (STYLE.md).
if ! clang-format --dry-run --Werror $(git ls-files '*.c' '*.h' 2>/dev/null || find engine episodes handlers mcp tools tests -name '*.[ch]'); then
  echo "check: files above are not formatted: run clang-format -i on them" >&2
  exit 1
fi
KD_WERROR=${KD_WERROR:-ON} tools/scripts/setup.sh

jobs=$(nproc)
if [[ ${KD_CHECK_SANITIZE:-1} == 1 ]]; then
  echo "check: sanitizer pass (ASan + UBSan + LSan, crash points compiled in)"
  KD_WERROR=ON KD_BUILD_DIR=build-asan KD_SANITIZE="address;undefined" tools/scripts/setup.sh -DKD_CRASHPOINTS=ON
  # The Node.js clients and the long scenarios and enumerations run once,
  # in the release pass below (CI's time: under ASan each takes minutes);
  # their C code runs under ASan here through the unit tests and the
  # shorter scenarios (the games' unit tests, the gateway's, the engine's,
  # the crash points, the fuzz corpus).
  long_tests='sim_seed_.*|holdem_eval_full_test|holdem_kdapp_e2e|holdem_pool_e2e|audit_check|kaspa_check|it_kill_harness'
  long_tests+='|doc_(tables|commands)|ratings_kdapp|listen_writer_node|(seabattle|chess|blackjack)_kdapp_e2e'
  long_tests+='|perft_(test|cli)|nim_tools_test|bench_scale|mcp_http_slowloris'
  npm_ready
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
    ctest --output-on-failure --timeout 600 -j"$jobs" -E "^(client_.*|$long_tests)\$")

  echo "check: ThreadSanitizer pass (the threaded parts)"
  cmake -S . -B build-tsan -DKD_WERROR=ON -DKD_SANITIZE=thread >/dev/null
  cmake --build build-tsan -j"$jobs" --target kdapp threads_scenarios kd_fixture_wrpc
  rm -rf build-tsan/tsan-reports && mkdir -p build-tsan/tsan-reports
  tsan_tests='^(threads_scenarios|listen_(growth|reorg|faults|restart|hostile|writer_node|payer_node|owners_node)|it_(ingest_acks|views_publish|shutdown|redelivery|devnet_reorg|devnet_restart)|client_(attach|http|stdio|concurrent|lossy|idle|page|blackjack|grants)|play_reorg_games|mcp_board_page|mcp_http_(shares|slowloris|audit_flood)|holdem_pool_e2e)$'
  tsan_rc=0
  (cd build-tsan && ctest --output-on-failure --timeout 600 -j"$jobs" -R "$tsan_tests") || tsan_rc=$?
  if compgen -G 'build-tsan/tsan-reports/*' >/dev/null; then
    cat build-tsan/tsan-reports/*
    echo "check: ThreadSanitizer reported the races above" >&2
    tsan_rc=1
  fi
  ((tsan_rc == 0)) || exit "$tsan_rc"
fi

npm_ready
build=${KD_BUILD_DIR:-build}
cd "$build"
ctest --output-on-failure --timeout 600 -j"$jobs" "$@"
