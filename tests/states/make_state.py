"""Builds states/critical-points.pvsm (run once, commit the result).

Usage: pvpython make_state.py PLUGIN OUTPUT.pvsm   (no X server needed)
The pipeline makes its own field (Wavelet), so the state needs no data files: a Slice of
the field through z = 0 colored by RTData, and the critical points of the whole field as
spheres colored by CriticalType.
"""
import os
import sys

from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

plugin, output = sys.argv[1], sys.argv[2]
LoadPlugin(plugin, remote=False, ns=globals())

field = Wavelet(registrationName="Field")
field.WholeExtent = [-10, 10, -10, 10, -10, 10]

critical = TopoGPUCriticalPoints(registrationName="CriticalPoints", Input=field)
critical.SelectInputScalars = ["POINTS", "RTData"]
critical.Backend = "Auto"

# Interior critical points near the slice only, so the spheres do not hide it (the
# Wavelet's oscillating boundary carries most of its critical points).
interior = Threshold(registrationName="Interior", Input=critical)
interior.Scalars = ["POINTS", "IsOnBoundary"]
interior.LowerThreshold = 0
interior.UpperThreshold = 0
near = Clip(registrationName="NearSlice", Input=interior)
near.ClipType = "Box"
near.ClipType.Position = [-10.5, -10.5, -1.5]
near.ClipType.Length = [21.0, 21.0, 3.0]
near.Invert = 1
near.Crinkleclip = 0

glyphs = Glyph(registrationName="Glyphs", Input=near, GlyphType="Sphere")
glyphs.ScaleArray = ["POINTS", "No scale array"]
glyphs.ScaleFactor = 0.8
glyphs.GlyphMode = "All Points"

view = state_helpers.slice_and_view(field, opacity=0.85)

glyph_display = Show(glyphs, view)
type_lut = state_helpers.colour_critical_points(glyph_display, view, "CriticalType")
bar = GetScalarBar(type_lut, view)
bar.Title = "CriticalType"
bar.ComponentTitle = ""

view.CameraPosition = [14.0, -30.0, 48.0]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [-0.25, 0.55, 0.8]
view.CameraParallelScale = 18.0
# No Render: the state is written without an X server (the camera is set explicitly).
SaveState(output)
print("wrote", output)
