#!/usr/bin/env bash
# Installs the Debian 12 packages loopdyn needs to build, test and benchmark.
# Safe to run again: packages already present are not reinstalled.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  libeigen3-dev libyaml-cpp-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsundials-dev
  clang libclang-rt-14-dev llvm
  pybind11-dev python3-numpy python3-matplotlib
  doxygen
  libtbb-dev
  libsuitesparse-dev
  chromium
)
# (clang, its sanitizer and libFuzzer runtimes and llvm-symbolizer: scripts/sanitize.sh; pybind11
# and numpy: the Python module, python/, for Debian's /usr/bin/python3; matplotlib: its first plot,
# examples/first_steps.py; doxygen: the API docs;
# oneTBB: the divide-and-conquer formulations' parallel assembly, dynamics/dca/dca.hpp; SuiteSparse:
# SPQR's sparse QR, linalg/sparse_null_space.hpp; chromium: the HTML report's browser test,
# tests/apps/html_report_test.cpp)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# npm (with Node.js) for the report's front-end libraries, from Debian when the machine has none
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
else
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "setup: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# the HTML report's libraries (three.js, uPlot) from the npm registry, the versions of
# third_party/web/package-lock.json; embedded into each report, never fetched when it is opened
web="$(dirname "$0")/../third_party/web"
if [ ! -f "$web/node_modules/.package-lock.json" ] || ! cmp -s "$web/package-lock.json" "$web/node_modules/.lock-installed"; then
  echo "setup: installing the report's front-end libraries (npm ci in third_party/web)"
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.lock-installed)
fi
