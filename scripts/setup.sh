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
  pybind11-dev python3-numpy
  doxygen
  libtbb-dev
)
# (clang, its sanitizer and libFuzzer runtimes and llvm-symbolizer: scripts/sanitize.sh; pybind11
# and numpy: the Python module, python/, for Debian's /usr/bin/python3; doxygen: the API docs;
# oneTBB: the divide-and-conquer formulations' parallel assembly, dynamics/dca.hpp)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "setup: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
