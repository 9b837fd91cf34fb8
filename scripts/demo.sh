#!/usr/bin/env bash
# The main job on data it makes itself: the Morse-Smale complex of a generated field
# (critical points, 1-separatrices, segmentation), through the ParaView plugin in pvbatch,
# written to OUTPUT_DIR (default out/) as .vti/.vtu + PNG.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
out=${1:-out}
mkdir -p "$out"
plugin=$(find build -name 'TopoGPU.so' | head -n 1)
xvfb-run -a -s "-screen 0 1280x1024x24" pvbatch examples/morse_smale_complex_demo.py \
  --plugin "$plugin" --output "$out"
