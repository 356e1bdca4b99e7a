#!/usr/bin/env bash
# Installs the build into a temporary prefix and uses it from outside loopdyn's tree: a C++ program
# built with CMake's find_package(loopdyn) (examples/consumer) and with pkg-config, and a Python script
# importing the installed module; and a project that adds the source tree with add_subdirectory.
#   consumer_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
model="$work/prefix/share/loopdyn/models/double_four_bar.yaml"
test -f "$model" || { echo "FAIL: the bundled models are not installed"; exit 1; }
test -x "$work/prefix/bin/loopdyn" || { echo "FAIL: the CLI is not installed"; exit 1; }

# CMake package
cmake -S "$source/examples/consumer" -B "$work/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
out=$("$work/consumer/consumer" "$model" 1)
echo "$out"
# paper 004, sect. 3.2: n = 15 velocity coordinates, rank 14 at the initial configuration
grep -q "double_four_bar, n = 15, rank 14" <<< "$out" || { echo "FAIL: unexpected analysis"; exit 1; }
grep -q "lagrange: 101 samples" <<< "$out" || { echo "FAIL: unexpected simulation"; exit 1; }

# pkg-config
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig"
pc=$(pkg-config --cflags --libs loopdyn)
# shellcheck disable=SC2086
g++ -O1 "$source/examples/consumer/main.cpp" -o "$work/consumer_pc" $pc
out_pc=$("$work/consumer_pc" "$model" 1)
[ "$out_pc" = "$out" ] || { echo "FAIL: the pkg-config build printed something else:"; echo "$out_pc"; exit 1; }
# the Python package, from the prefix, with Debian's interpreter
out_py=$(PYTHONPATH="$work/prefix/lib/python3/dist-packages" /usr/bin/python3 - "$model" <<'PY'
import sys
import loopdyn
model = loopdyn.load(sys.argv[1])
report = model.analyze()
run = loopdyn.simulate(model, t_end=1)
print(model.name, report["rank"], len(run.t), run.ok)
PY
)
[ "$out_py" = "double_four_bar 14 101 True" ] || { echo "FAIL: the installed Python package printed: $out_py"; exit 1; }
# a project that adds loopdyn's source tree with add_subdirectory gets the libraries only (configure
# only: building it again would repeat the whole build)
mkdir -p "$work/sub"
cat > "$work/sub/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(uses_loopdyn LANGUAGES CXX)
add_subdirectory("$source" loopdyn)
add_executable(app "$source/examples/consumer/main.cpp")
target_link_libraries(app PRIVATE loopdyn::loopdyn)
CMAKE
cmake -S "$work/sub" -B "$work/sub/build" -G Ninja > "$work/sub.log" 2>&1 || { cat "$work/sub.log"; exit 1; }
rules="$work/sub/build/build.ninja"
grep -q "^build app:" "$rules" || { echo "FAIL: add_subdirectory: no app target"; exit 1; }
if grep -qE "^build (loopdyn_tests|loopdyn_bench|loopdyn_cli|_loopdyn)[ :]" "$rules" ||
   grep -qE "^build [^ ]*/(loopdyn_tests|loopdyn_bench|loopdyn|_loopdyn[^ ]*\.so):" "$rules"; then
  echo "FAIL: add_subdirectory builds more than the libraries"; exit 1
fi
echo "package: CMake, pkg-config and Python consumers ran against $work/prefix; add_subdirectory gives the libraries only"
