#!/usr/bin/env bash
# The sanitizer half of README command 2 (docs/reliability.md): builds loopdyn with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer into ./build-sanitize, runs the unit tests there,
# then the model fuzzer (fuzz/model_fuzzer.cpp) for FUZZ_SECONDS (default 60), seeded with the
# bundled models and tests/data. Any finding fails the run; the fuzzer's reproducer is left in
# build-sanitize/fuzz-findings/ (make it a file in tests/data/broken with its expected message).
# Longer runs: FUZZ_SECONDS=3600 scripts/sanitize.sh (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"

CC=clang CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DLOOPDYN_SANITIZE=ON \
  -DLOOPDYN_BUILD_BENCH=OFF -DLOOPDYN_BUILD_PYTHON=OFF >/dev/null
cmake --build build-sanitize --parallel "$(nproc)"

export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# (the simulations and large analyses that repeat what the plain build already checked, at 5-10x
# the time here -- the four added last took 95 s of the 277 s of test time in the sanitized CI run
# of 2026-11-24; the 48-loop ladder's Lanczos sigma along its motion took 65 s of 117 on
# 2026-11-25, its Lanczos runs under ASan in lanczos_test; and the installed-package test, which
# builds programs outside the tree without the sanitizers)
slow='CrossFormulation|HdcaStudy|LadderPassage|PartitioningSwitching|SwitchesKeepTheMotion|PaperFourBarKeepsItsCrankAngle|DriftIsJudged|RedundantEquivalence|ProjectionPaperModels|RelativeCoordinates|SingularRest|Package|LargeRedundantPlanarMechanisms|DcaOnTwoThreadsWritesTheSameFile|ReportsEveryPassageOfCloseSingularConfigurations|RunWithEveryFormulation/stewart_platform|LanczosSigmaRatioIsTheDenseOneAlongALargeLadder'
echo "sanitize: unit tests under ASan + UBSan (without: $slow)"
ctest --test-dir build-sanitize --output-on-failure --parallel "$(nproc)" -E "$slow"

corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
cp models/*.yaml tests/data/broken/* tests/data/degenerate/* "$corpus"/
findings=build-sanitize/fuzz-findings
mkdir -p "$findings"
echo "sanitize: model fuzzer for ${seconds} s (seeds: models/, tests/data/)"
log="$corpus.log"
set +e
build-sanitize/fuzz/loopdyn_model_fuzzer "$corpus" -dict=fuzz/model.dict -max_total_time="$seconds" -timeout=1 \
  -rss_limit_mb=6000 -max_len=8192 -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
status=$?
set -e
grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|stat::average_exec_per_sec|stat::slowest_unit_time_sec)" "$log" || true
if [ "$status" -ne 0 ]; then
  grep -E "ERROR|SUMMARY|runtime error|Test unit written|^    #[0-9]+ " "$log" | head -40 >&2 || true
fi
rm -f "$log"
if [ "$status" -ne 0 ]; then
  echo "sanitize: the fuzzer found a defect (exit $status); reproducer in $findings/" >&2
  exit 1
fi
echo "sanitize: no findings"
