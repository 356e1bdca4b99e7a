#!/usr/bin/env bash
# README command 2: set up a fresh Debian 12 machine, build, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure --parallel "$(nproc)"
# the same tests under AddressSanitizer + UndefinedBehaviorSanitizer, then the model fuzzer
scripts/sanitize.sh
