"""TopoGPU demo: the Morse-Smale complex of a generated 3D field, through the ParaView plugin.

    xvfb-run -a pvbatch examples/morse_smale_complex_demo.py --plugin build/.../TopoGPU.so --output out

Writes OUTPUT/field.vti (the input), OUTPUT/critical_points.vtp (CellDimension, CellId,
RTData, IsOnBoundary, ManifoldSize, IsBoundaryMaximum), OUTPUT/separatrices.vtp (the
1-separatrices as TTK's line cells, one per V-path step: SourceId, DestinationId,
SeparatrixId, SeparatrixType, Multiplicity, ...),
OUTPUT/segmentation.vti (DescendingManifold, AscendingManifold, MorseSmaleManifold) and
OUTPUT/morse_smale_complex.png (critical points and separatrices over a slice of the
field), and prints the counts, the backend and the time per stage.
"""
import argparse
import os

from paraview.simple import (ColorBy, ExtractSurface, GetActiveViewOrCreate,
                             GetColorTransferFunction, GetScalarBar, Glyph, LoadPlugin,
                             OutputPort, ResetCamera, SaveData, SaveScreenshot, Show, Slice, Tube, Wavelet)
from paraview import servermanager
from vtkmodules.numpy_interface import dataset_adapter as dsa

parser = argparse.ArgumentParser()
parser.add_argument("--plugin", required=True)
parser.add_argument("--output", default="out")
parser.add_argument("--size", type=int, default=48,
                    help="half-width of the Wavelet extent in x and y (z: half of it)")
args = parser.parse_args()
os.makedirs(args.output, exist_ok=True)

LoadPlugin(os.path.abspath(args.plugin), remote=False, ns=globals())

n = args.size
# A low-frequency Wavelet (its frequencies are relative to the extent): about 120 critical
# cells at any size, so the picture stays readable.
field = Wavelet(WholeExtent=[-n, n, -n, n, -(n // 2), n // 2])
field.XFreq, field.YFreq, field.ZFreq = 20.0, 15.0, 10.0
msc = TopoGPUMorseSmaleComplex(Input=field)  # noqa: F821 (defined by LoadPlugin)
msc.SelectInputScalars = ["POINTS", "RTData"]
msc.Backend = "Auto"
msc.UpdatePipeline()

SaveData(os.path.join(args.output, "field.vti"), proxy=field)
for port, name in ((0, "critical_points.vtp"), (1, "separatrices.vtp"), (3, "segmentation.vti")):
    SaveData(os.path.join(args.output, name), proxy=OutputPort(msc, port))

points = dsa.WrapDataObject(servermanager.Fetch(msc, idx=0))
lines = dsa.WrapDataObject(servermanager.Fetch(msc, idx=1))
fd = points.FieldData
counts = [int(c) for c in fd["CriticalCellCounts"]]
print(f"field: Wavelet {2 * n + 1}x{2 * n + 1}x{2 * (n // 2) + 1} points; "
      f"backend: {fd['TopoGPUBackend'].GetValue(0)}; time {float(fd['TopoGPUTime'][0]):.3f} s")
for name, count in zip(("minima", "1-saddles", "2-saddles", "maxima"), counts):
    print(f"  {name:10s} {count}")
print(f"  boundary maxima {int(fd['BoundaryMaximumCount'][0])}")
separatrices = len(set(lines.CellData["SeparatrixId"].tolist()))  # TTK: a line per step
print(f"  1-separatrices {separatrices} in {lines.GetNumberOfCells()} lines "
      f"(arcs {list(fd['ArcCounts'][:2])})")
stages = fd["TopoGPUTimingStages"]
for i in range(stages.GetNumberOfValues()):
    print(f"    {stages.GetValue(i):28s} {float(fd['TopoGPUTimings'][i]):.3f} s")

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1200, 900]
view.OrientationAxesVisibility = 0
view.Background = [0.32, 0.34, 0.43]
cut = Slice(Input=field)
cut.SliceType.Normal = [0, 0, 1]
cut_display = Show(cut, view)
ColorBy(cut_display, ("POINTS", "RTData"))
GetColorTransferFunction("RTData").ApplyPreset("Grayscale", True)
cut_display.Opacity = 0.6
Show(field, view).SetRepresentationType("Outline")

tubes = Tube(Input=ExtractSurface(Input=OutputPort(msc, 1)))
tubes.Radius = 0.12 * n / 16
tube_display = Show(tubes, view)
ColorBy(tube_display, ("CELLS", "SeparatrixType"))
sep_lut = GetColorTransferFunction("SeparatrixType")
sep_lut.InterpretValuesAsCategories = 1
sep_lut.Annotations = ["0", "1-saddle to minimum", "2", "2-saddle to maximum"]
sep_lut.IndexedColors = [0.30, 0.45, 0.95, 0.95, 0.35, 0.30]
tube_display.SetScalarBarVisibility(view, True)
GetScalarBar(sep_lut, view).Title = "SeparatrixType"
GetScalarBar(sep_lut, view).ComponentTitle = ""
GetScalarBar(sep_lut, view).WindowLocation = "Upper Left Corner"

glyphs = Glyph(Input=OutputPort(msc, 0), GlyphType="Sphere")
glyphs.ScaleArray = ["POINTS", "No scale array"]
glyphs.ScaleFactor = 1.1 * n / 16
glyphs.GlyphMode = "All Points"
glyph_display = Show(glyphs, view)
# The plugin's default colour map for CellDimension (minimum, 1-saddle, 2-saddle, maximum).
ColorBy(glyph_display, ("POINTS", "CellDimension"))
dim_lut = GetColorTransferFunction("CellDimension")
assert list(dim_lut.Annotations)[1::2] == ["minimum", "1-saddle", "2-saddle", "maximum"], \
    dim_lut.Annotations
assert dim_lut.InterpretValuesAsCategories == 1  # a categorical legend, no numeric ticks
glyph_display.SetScalarBarVisibility(view, True)
GetScalarBar(GetColorTransferFunction("CellDimension"), view).Title = "CellDimension"
GetScalarBar(GetColorTransferFunction("CellDimension"), view).ComponentTitle = ""

view.CameraPosition = [1.9 * n, -3.4 * n, 2.8 * n]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [-0.25, 0.5, 0.83]
ResetCamera(view)
png = os.path.join(args.output, "morse_smale_complex.png")
SaveScreenshot(png, view, ImageResolution=[1200, 900])
print("wrote", args.output)
