#!/bin/sh
# Drives the Geodesic Distance filter through the ParaView GUI under Xvfb
# (geodesic_gui_setup.py explains what the events do and checks each run); passes when the
# playback succeeded and both runs (seed ids typed in the panel, seed points connected
# through Change Input) were right. Screenshots of each run land in OUTPUT_DIR.
# Usage: run_geodesic_gui_test.sh PARAVIEW PLUGIN_DIR OUTPUT_DIR
set -u
paraview="$1" plugin_dir="$2" out="$3"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
rm -f "$out"/geodesic_gui*.png "$out/geodesic_gui.marker"
export PV_PLUGIN_PATH="$plugin_dir" TOPOGPU_GUI_TESTS="$here"
export TOPOGPU_GUI_SCREENSHOT="$out/geodesic_gui.png" TOPOGPU_GUI_MARKER="$out/geodesic_gui.marker"
# a fresh HOME: no user settings or crash-recovery dialogs can block the run
export HOME="$out/home"
rm -rf "$HOME"
mkdir -p "$HOME"
timeout -k 5 90 sh "$here/xvfb_retry.sh" "$paraview" --dr \
  --script="$here/geodesic_gui_setup.py" --test-script="$here/geodesic_gui_events.xml" --exit
status=$?
cat "$out/geodesic_gui.marker" 2>/dev/null
[ "$status" -eq 0 ] || { echo "FAIL: paraview exited with $status (the playback failed)"; exit 1; }
grep -q "(Point Ids): ok" "$out/geodesic_gui.marker" &&
  grep -q "(Seed Points): ok" "$out/geodesic_gui.marker" &&
  ! grep -q FAIL "$out/geodesic_gui.marker" ||
  { echo "FAIL: a run through the GUI was wrong or missing"; exit 1; }
echo "GUI screenshots: $out/geodesic_gui_run*.png"
