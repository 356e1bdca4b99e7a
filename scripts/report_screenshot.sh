#!/usr/bin/env bash
# Regenerates docs/images/report_double_four_bar.png, the README's picture of `simulate --report`:
# the IFToMM double four-bar over 3 s, opened in headless Chromium. Needs a build (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
build/apps/loopdyn/loopdyn simulate models/double_four_bar.yaml --t-end 3 --out "$scratch/run.csv" \
  --report "$scratch/report.html" >/dev/null
chromium --headless --no-sandbox --enable-unsafe-swiftshader --use-angle=swiftshader --virtual-time-budget=5000 \
  --hide-scrollbars --window-size=1600,1150 --user-data-dir="$scratch/profile" \
  --screenshot="$(pwd)/docs/images/report_double_four_bar.png" "file://$scratch/report.html" 2>/dev/null
echo "docs/images/report_double_four_bar.png"
