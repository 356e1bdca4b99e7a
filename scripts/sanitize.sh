#!/usr/bin/env bash
# The sanitizer half of README command 2 (docs/reliability.md): builds loopdyn with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer into ./build-sanitize, runs the unit tests there,
# then the model fuzzer (fuzz/model_fuzzer.cpp) and the simulate fuzzer (fuzz/simulate_fuzzer.cpp)
# for FUZZ_SECONDS each (default 30, keeping README command 2 within its 30-minute budget), seeded
# with the bundled models and tests/data. Any finding
# fails the run; the fuzzer's reproducer is left in build-sanitize/fuzz-findings/ (make it a test:
# a file in tests/data/broken with its expected message, or in tests/data/reproducers).
# Longer runs: FUZZ_SECONDS=3600 scripts/sanitize.sh (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-30}"

CC=clang CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DLOOPDYN_SANITIZE=ON \
  -DLOOPDYN_BUILD_BENCH=OFF -DLOOPDYN_BUILD_PYTHON=OFF >/dev/null
cmake --build build-sanitize --parallel "$(nproc)"

export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# (the simulations and large analyses that repeat what the plain build already checked, at 5-10x
# the time here -- the files made only of such tests, the command-line matrix of every model,
# method and integrator among them, and the browser tests are not built here (tests/CMakeLists.txt);
# the single tests below: the 48-loop ladder's Lanczos sigma along its motion took 65 s of 117 on
# 2026-11-25, its Lanczos runs under ASan in lanczos_test; the installed-package test, which
# builds programs outside the tree without the sanitizers; the sparse routes against the dense
# ones on models of 256 rows and more, 85 s here, and the 20,001-body ladder)
slow='IllConditionedLadder|LadderPassage|PartitioningSwitching|SwitchesKeepTheMotion|PaperFourBarKeepsItsCrankAngle|DriftIsJudged|ProjectionPaperModels|SingularRest|Package|LargeRedundantPlanarMechanisms|DcaOnTwoThreadsWritesTheSameFile|ReportsEveryPassageOfCloseSingularConfigurations|RunWithEveryFormulation/stewart_platform|LanczosSigmaRatioIsTheDenseOneAlongALargeLadder|LargeModels|TheSparseRouteDecidesAsTheDenseFactorisations'
echo "sanitize: unit tests under ASan + UBSan (without: $slow)"
ctest --test-dir build-sanitize --output-on-failure --parallel "$(nproc)" -E "$slow"

# the fuzzers (fuzz/), each for FUZZ_SECONDS: the model fuzzer (parse .. uniqueness) seeded with
# the bundled models and tests/data, the simulate fuzzer (parse .. a short run) with the bundled
# models behind request bytes that choose each method, coordinates, reactions and integrator
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus" "$corpus-simulate"' EXIT
cp models/*.yaml tests/data/broken/* tests/data/degenerate/* "$corpus"/
mkdir -p "$corpus-simulate"
for model in models/*.yaml tests/data/degenerate/*.yaml tests/data/reproducers/*.yaml; do
  for k in 0 1 2 3 4 5; do
    # bytes: method k, relative when k is odd and reactions by k, integrator k, default columns
    printf "\\$(printf '%03o' "$k")\\$(printf '%03o' "$((k * 3))")\\$(printf '%03o' "$k")\\000" |
      cat - "$model" >"$corpus-simulate/$(basename "$model" .yaml)-$k"
  done
done
findings=build-sanitize/fuzz-findings
mkdir -p "$findings"

# fuzz NAME CORPUS TIMEOUT: runs one fuzzer for $seconds; a finding fails the script
fuzz() {
  local name="$1" seeds="$2" timeout="$3" log="$corpus.$1.log" status
  echo "sanitize: $name for ${seconds} s"
  set +e
  "build-sanitize/fuzz/loopdyn_$name" "$seeds" -dict=fuzz/model.dict -max_total_time="$seconds" -timeout="$timeout" \
    -rss_limit_mb=6000 -max_len=8192 -artifact_prefix="$findings/$name-" -print_final_stats=1 >"$log" 2>&1
  status=$?
  set -e
  grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|stat::average_exec_per_sec|stat::slowest_unit_time_sec)" "$log" || true
  if [ "$status" -ne 0 ]; then
    grep -E "ERROR|SUMMARY|runtime error|simulate_fuzzer:|Test unit written|^    #[0-9]+ " "$log" | head -40 >&2 || true
    rm -f "$log"
    echo "sanitize: $name found a defect (exit $status); reproducer in $findings/" >&2
    exit 1
  fi
  rm -f "$log"
}
fuzz model_fuzzer "$corpus" 1
fuzz simulate_fuzzer "$corpus-simulate" 10
echo "sanitize: no findings"
