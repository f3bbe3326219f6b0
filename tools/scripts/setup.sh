#!/usr/bin/env bash
# setup.sh — installs what kdapp-c needs on Debian (only what is missing),
# then configures and builds into ./build. Used by demo.sh and check.sh.
#
#   tools/scripts/setup.sh [extra cmake args...]
#
# Environment: KD_BUILD_DIR (default build), KD_WERROR=ON|OFF (default ON
# under CI), KD_SANITIZE (e.g. "address;undefined"), KD_EXTRA_PACKAGES
# (more Debian packages to install in the same apt-get run: check.sh's),
# KD_SETUP_BUILD=0 (install only).
set -euo pipefail
cd "$(dirname "$0")/../.."

packages=(build-essential cmake pkg-config git ca-certificates clang-format
  liblmdb-dev lmdb-utils libprotobuf-c-dev protobuf-c-compiler libnng-dev
  libcriterion-dev libsecp256k1-dev libssl-dev libjansson-dev
  libmicrohttpd-dev libcurl4-openssl-dev libwebsockets-dev strace python3 jq
  gnuplot-nox ${KD_EXTRA_PACKAGES:-}) # gnuplot: the chart of kdapp bench --scale

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

[[ ${KD_SETUP_BUILD:-1} == 1 ]] || exit 0
build=${KD_BUILD_DIR:-build}
werror=${KD_WERROR:-$([[ ${CI:-} == true ]] && echo ON || echo OFF)}
cmake -S . -B "$build" -DKD_WERROR="$werror" -DKD_SANITIZE="${KD_SANITIZE:-}" "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
