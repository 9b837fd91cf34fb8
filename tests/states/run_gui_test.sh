#!/bin/sh
# Starts the ParaView GUI under Xvfb with the plugin on PV_PLUGIN_PATH; gui_test.py loads
# the state and exits. Passes when the GUI wrote its screenshot and marker and exited 0.
# Usage: run_gui_test.sh PARAVIEW PLUGIN_DIR STATE OUTPUT_DIR
set -u
paraview="$1" plugin_dir="$2" state="$3" out="$4"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
rm -f "$out/gui.png" "$out/gui.marker" "$out/gui.marker.error"
export PV_PLUGIN_PATH="$plugin_dir"
export TOPOGPU_GUI_SCREENSHOT="$out/gui.png" TOPOGPU_GUI_MARKER="$out/gui.marker"
export TOPOGPU_GUI_STATE="$state"
# a fresh HOME: no user settings or crash-recovery dialogs can block the run
export HOME="$out/home"
mkdir -p "$HOME"
timeout -k 5 75 sh "$here/xvfb_retry.sh" "$paraview" --dr \
  --script="$here/gui_test.py"
status=$?
if [ ! -s "$out/gui.marker" ] || [ ! -s "$out/gui.png" ]; then
  [ -s "$out/gui.marker.error" ] && cat "$out/gui.marker.error"
  echo "FAIL: the GUI wrote no screenshot/marker (exit status $status)"
  exit 1
fi
cat "$out/gui.marker"
echo "GUI screenshot: $out/gui.png (exit status $status)"
[ "$status" -eq 0 ] || { echo "FAIL: paraview exited with $status"; exit 1; }
