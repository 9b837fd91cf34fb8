"""TopoGPU demo: critical points of a generated 3D field, through the ParaView plugin.

    xvfb-run -a pvbatch examples/critical_points_demo.py --plugin build/.../TopoGPU.so --output out

Writes OUTPUT/field.vti (the input), OUTPUT/critical_points.vtp (the critical points with
CriticalType, IsOnBoundary, RTData, ttkVertexScalarField) and OUTPUT/critical_points.png,
and prints the counts per type and the backend that ran.
"""
import argparse
import os

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction,
                             Glyph, LoadPlugin, Render, ResetCamera, SaveData,
                             SaveScreenshot, Show, Slice, Wavelet)
from paraview import servermanager
from vtkmodules.numpy_interface import dataset_adapter as dsa

parser = argparse.ArgumentParser()
parser.add_argument("--plugin", required=True)
parser.add_argument("--output", default="out")
parser.add_argument("--size", type=int, default=64, help="half-width of the Wavelet extent")
args = parser.parse_args()
os.makedirs(args.output, exist_ok=True)

LoadPlugin(os.path.abspath(args.plugin), remote=False, ns=globals())

n = args.size
field = Wavelet(WholeExtent=[-n, n, -n, n, -n, n])
points = TopoGPUCriticalPoints(Input=field)  # noqa: F821 (defined by LoadPlugin)
points.SelectInputScalars = ["POINTS", "RTData"]
points.Backend = "Auto"
points.UpdatePipeline()

SaveData(os.path.join(args.output, "field.vti"), proxy=field)
SaveData(os.path.join(args.output, "critical_points.vtp"), proxy=points)

result = dsa.WrapDataObject(servermanager.Fetch(points))
names = {0: "minimum", 1: "1-saddle", 2: "2-saddle", 3: "maximum", 4: "degenerate"}
types = list(result.PointData["CriticalType"])
print(f"field: Wavelet {2 * n + 1}^3 points; backend: {result.FieldData['TopoGPUBackend'].GetValue(0)}; "
      f"time {float(result.FieldData['TopoGPUTime'][0]):.3f} s")
for value, name in names.items():
    print(f"  {name:10s} {types.count(value)}")

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1200, 900]
view.OrientationAxesVisibility = 0
cut = Slice(Input=field)
cut.SliceType.Normal = [0, 0, 1]
cut_display = Show(cut, view)
ColorBy(cut_display, ("POINTS", "RTData"))
cut_display.Opacity = 0.6
glyphs = Glyph(Input=points, GlyphType="Sphere")
glyphs.ScaleArray = ["POINTS", "No scale array"]
glyphs.ScaleFactor = 2.5
glyphs.GlyphMode = "All Points"
glyph_display = Show(glyphs, view)
# The plugin's default colour map for CriticalType: one colour and one legend label per
# type (minimum, 1-saddle, 2-saddle, maximum, degenerate), as in the GUI.
ColorBy(glyph_display, ("POINTS", "CriticalType"))
lut = GetColorTransferFunction("CriticalType")
assert list(lut.Annotations)[1::2] == list(names.values()), lut.Annotations
assert lut.InterpretValuesAsCategories == 1  # a categorical legend, no numeric ticks
glyph_display.SetScalarBarVisibility(view, True)
view.CameraPosition = [2.2 * n, -2.6 * n, 2.4 * n]
view.CameraViewUp = [0, 0, 1]
ResetCamera(view)
Render(view)
SaveScreenshot(os.path.join(args.output, "critical_points.png"), view, ImageResolution=[1200, 900])
print(f"wrote {args.output}/field.vti, critical_points.vtp, critical_points.png")
