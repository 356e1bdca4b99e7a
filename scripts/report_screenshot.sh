#!/usr/bin/env bash
# Regenerates the README's pictures of `simulate --report`, each opened in headless Chromium at
# 1400 x 900 (the view and the plots share the screen): docs/images/report_double_four_bar.png
# (the IFToMM double four-bar over 3 s), report_spatial_parallelogram.png and
# report_stewart_platform.png (1 s each: the 3D view). Needs a build (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for run in double_four_bar:3 spatial_parallelogram:1 stewart_platform:1; do
  model="${run%%:*}" t_end="${run##*:}"
  build/apps/loopdyn/loopdyn simulate "models/$model.yaml" --t-end "$t_end" --out "$scratch/$model.csv" \
    --report "$scratch/$model.html" >/dev/null
  chromium --headless --no-sandbox --enable-unsafe-swiftshader --use-angle=swiftshader --virtual-time-budget=5000 \
    --hide-scrollbars --window-size=1400,900 --user-data-dir="$scratch/profile" \
    --screenshot="$(pwd)/docs/images/report_$model.png" "file://$scratch/$model.html" 2>/dev/null
  echo "docs/images/report_$model.png"
done
