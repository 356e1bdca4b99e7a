#!/usr/bin/env bash
# README command 1: set up, build, and run loopdyn's main job on bundled models.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# only the command and the Python module (the tests and benchmarks are the test command's)
echo "building the loopdyn command and Python module into build/ (a first build takes about 4 min on"
echo "2 cores, less on more; later runs rebuild only what changed)"
started=$SECONDS
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --parallel "$(nproc)" --target loopdyn_cli _loopdyn
echo "built in $((SECONDS - started)) s"
loopdyn=build/apps/loopdyn/loopdyn
echo
echo "=== IFToMM double four-bar, regular configuration (paper 004, sect. 3.2) ==="
"$loopdyn" analyze models/double_four_bar.yaml
echo
echo "=== IFToMM double four-bar, all bars horizontal: singular configuration ==="
"$loopdyn" analyze models/double_four_bar_singular.yaml
echo
echo "=== Mobile robot with trolley: which joint reactions are unique (paper 001, sect. 4) ==="
"$loopdyn" analyze models/mobile_robot.yaml
echo
echo "=== Spatial parallelogram with triple pendulum, ground-joint groups (paper 000, sect. 4) ==="
"$loopdyn" analyze models/spatial_parallelogram.yaml
mkdir -p output
echo
echo "=== Simulate: IFToMM double four-bar, 10 s through its singular configurations ==="
"$loopdyn" simulate models/double_four_bar.yaml --t-end 10 --rtol 1e-10 --atol 1e-12 --out output/double_four_bar.csv \
  --report output/double_four_bar.html
echo
echo "=== Simulate: mobile robot over its steering profile (right turn, straight, left turn) ==="
"$loopdyn" simulate models/mobile_robot.yaml --t-end 8 --out output/mobile_robot.csv --report output/mobile_robot.html
echo
echo "Simulation output (one CSV row per sample; columns explained in docs/simulation.md):"
echo "  $(pwd)/output/double_four_bar.csv"
echo "  $(pwd)/output/mobile_robot.csv"
echo "Reports to open in a browser (the motion animated, energy, violations, reactions, uniqueness):"
echo "  $(pwd)/output/double_four_bar.html"
echo "  $(pwd)/output/mobile_robot.html"
echo
echo "=== Python: load, analyze, simulate and plot (examples/first_steps.py) ==="
PYTHONPATH=build/python /usr/bin/python3 examples/first_steps.py output/first_steps.png
echo "(the plot: $(pwd)/output/first_steps.png)"
echo
echo "The command line is build/apps/loopdyn/loopdyn (loopdyn --help). Python is ready too, for Debian's"
echo "/usr/bin/python3 (the module is built for it); paste to start:"
echo "  cd $(pwd) && PYTHONPATH=build/python /usr/bin/python3"
echo "  >>> import loopdyn"
echo "  >>> model = loopdyn.load(\"models/mobile_robot.yaml\")"
echo "  >>> model.analyze()[\"redundancy\"]"
echo "  >>> run = loopdyn.simulate(model, t_end=8); run[\"platform.x\"]"
