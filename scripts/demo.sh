#!/usr/bin/env bash
# README command 1: set up, build, and run loopdyn's main job on bundled models.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
loopdyn=build/apps/loopdyn/loopdyn
echo
echo "=== IFToMM double four-bar, regular configuration (paper 004, sect. 3.2) ==="
"$loopdyn" analyze models/double_four_bar.yaml
echo
echo "=== IFToMM double four-bar, all bars horizontal: singular configuration ==="
"$loopdyn" analyze models/double_four_bar_singular.yaml
