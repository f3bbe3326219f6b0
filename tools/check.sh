#!/usr/bin/env bash
# check.sh — the whole test suite from a fresh Debian machine: installs what
# is missing, builds with warnings as errors, and runs every test through
# ctest (Criterion unit tests and integration tests on real files, sockets
# and processes). The last line is ctest's summary of what passed and failed.
#
#   tools/check.sh            # the suite
#   KD_SANITIZE="address;undefined" KD_BUILD_DIR=build-asan tools/check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
KD_WERROR=${KD_WERROR:-ON} tools/setup.sh
build=${KD_BUILD_DIR:-build}
cd "$build"
ctest --output-on-failure --timeout 600 -j"$(nproc)" "$@"
