#!/usr/bin/env bash
# The main job on data it makes itself: critical points of a generated field, through the
# ParaView plugin in pvbatch, written to OUTPUT_DIR (default out/) as .vti/.vtp + PNG.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
out=${1:-out}
mkdir -p "$out"
plugin=$(find build -name 'TopoGPU.so' | head -n 1)
xvfb-run -a -s "-screen 0 1280x1024x24" pvbatch examples/critical_points_demo.py \
  --plugin "$plugin" --output "$out"
