"""The Morse-Smale complex of a real volume, rendered for the docs
(docs/images/msc-<volume>.png): the raw volume read by ParaView's Image Reader, the
TopoGPU Morse-Smale Complex filter, its critical points as spheres coloured by
CellDimension, its 1-separatrices as tubes coloured by SeparatrixType, and the
segmentation as the middle z layer coloured by MorseSmaleManifold (labels
scrambled so neighbouring cells differ), with the volume's outline. Checks what it draws
(Euler on the critical cells, every vertex labelled, separatrices joining critical points).

Usage: pvbatch msc_volume_picture.py PLUGIN DATA_DIR SCREENSHOT.png [DOCS_IMAGE.png]
       [--volume silicium] [--zoom 1.15]
Needs an X server (xvfb-run); exits 77 (skipped) when DATA_DIR/volumes lacks the volume.
With TOPOGPU_UPDATE_DOCS=1 the screenshot is also copied to DOCS_IMAGE.png.
"""
import argparse
import os
import re
import shutil
import sys

import numpy as np

from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("plugin")
parser.add_argument("data")
parser.add_argument("screenshot")
parser.add_argument("docs_image", nargs="?")
parser.add_argument("--volume", default="silicium", help="NAME of NAME_XxYxZ_type.raw")
parser.add_argument("--zoom", type=float, default=1.15, help="camera dolly after the reset")
args = parser.parse_args()

folder = os.path.join(args.data, "volumes")
pattern = re.compile(re.escape(args.volume) + r"_(\d+)x(\d+)x(\d+)_(uint8|int16le|float32|float64)\.raw$")
found = [(f, pattern.match(f)) for f in sorted(os.listdir(folder))] if os.path.isdir(folder) else []
found = [(f, m) for f, m in found if m]
if not found:
    print(f"SKIP: no {args.volume}_XxYxZ_type.raw in {folder}")
    sys.exit(77)
name, match = found[0]
dims = [int(match.group(i)) for i in (1, 2, 3)]
scalar_type = {"uint8": "unsigned char", "int16le": "short", "float32": "float",
               "float64": "double"}[match.group(4)]

LoadPlugin(args.plugin, remote=False, ns=globals())
reader = ImageReader(registrationName=args.volume, FileNames=[os.path.join(folder, name)])
reader.DataScalarType = scalar_type
reader.DataByteOrder = "LittleEndian"
reader.DataExtent = [0, dims[0] - 1, 0, dims[1] - 1, 0, dims[2] - 1]
reader.ScalarArrayName = args.volume

msc = TopoGPUMorseSmaleComplex(registrationName="MorseSmaleComplex", Input=reader)  # noqa: F405
msc.SelectInputScalars = ["POINTS", args.volume]
msc.Complex = "Cubical"
msc.Backend = "Auto"
msc.UpdatePipeline()

# What is drawn, checked: a picture of a wrong complex must not reach the docs.
counts, separatrices = state_helpers.check_complex(msc)

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1000, 800]
view.Background = [0.32, 0.34, 0.43]
view.OrientationAxesVisibility = 1

# The segmentation: the labels of the middle z layer of vertices (a VOI, so no label is
# interpolated), hashed so that adjacent cells get far apart colours.
layer = ExtractSubset(registrationName="SegmentationLayer", Input=OutputPort(msc, 3))
layer.VOI = [0, dims[0] - 1, 0, dims[1] - 1, dims[2] // 2, dims[2] // 2]
scrambled = PythonCalculator(registrationName="ScrambledLabels", Input=layer)
scrambled.Expression = "(inputs[0].PointData['MorseSmaleManifold'] * 2654435761) % 1024"
scrambled.ArrayName = "MorseSmaleManifold (scrambled)"
slice_display = Show(scrambled, view)
ColorBy(slice_display, ("POINTS", "MorseSmaleManifold (scrambled)"))
labels_lut = GetColorTransferFunction("MorseSmaleManifoldscrambled")
labels_lut.ApplyPreset("Rainbow Uniform", True)
labels_lut.RescaleTransferFunction(0.0, 1023.0)
slice_display.Opacity = 0.75
slice_display.SetScalarBarVisibility(view, False)
outline = Show(reader, view)
outline.SetRepresentationType("Outline")
ColorBy(outline, None)

glyphs = Glyph(registrationName="CriticalPointGlyphs", Input=OutputPort(msc, 0),
               GlyphType="Sphere")
glyphs.ScaleArray = ["POINTS", "No scale array"]
glyphs.ScaleFactor = 1.3 * max(1.0, max(dims) / 96)
glyphs.GlyphMode = "All Points"
# Port 1 is an unstructured grid of poly lines (TTK's type); Tube wants poly data.
tubes = Tube(registrationName="SeparatrixTubes",
             Input=ExtractSurface(Input=OutputPort(msc, 1)))
tubes.Radius = 0.15 * max(1.0, max(dims) / 96)

tube_display = Show(tubes, view)
ColorBy(tube_display, ("CELLS", "SeparatrixType"))
sep_lut = GetColorTransferFunction("SeparatrixType")
sep_lut.InterpretValuesAsCategories = 1
# ComputeSaddleConnectors is off (the default): no saddle-saddle arcs (type 1) drawn.
sep_lut.Annotations = ["0", "1-saddle to minimum", "2", "2-saddle to maximum"]
sep_lut.IndexedColors = [0.30, 0.45, 0.95, 0.95, 0.35, 0.30]
tube_display.SetScalarBarVisibility(view, True)
glyph_display = Show(glyphs, view)
dim_lut = state_helpers.colour_critical_points(glyph_display, view)
for lut, title, corner in ((dim_lut, "CellDimension", "Upper Right Corner"),
                           (sep_lut, "SeparatrixType", "Upper Left Corner")):
    bar = GetScalarBar(lut, view)
    bar.Title, bar.ComponentTitle, bar.WindowLocation = title, "", corner
    bar.ScalarBarLength = 0.22
text = Text(registrationName="Caption")
text.Text = (f"{args.volume} {'x'.join(map(str, dims))}: {counts[0]} minima, {counts[1]} "
             f"1-saddles, {counts[2]} 2-saddles, {counts[3]} maxima; slice: MorseSmaleManifold")
caption = Show(text, view)
caption.WindowLocation = "Lower Center"
caption.FontSize = 14

# From the front, a little above and to the right; the box fills the view.
centre = np.array([(d - 1) / 2 for d in dims], dtype=float)
view.CameraFocalPoint = centre.tolist()
view.CameraPosition = (centre + max(dims) * np.array([0.35, -1.0, 0.85])).tolist()
view.CameraViewUp = [0.0, 0.0, 1.0]
ResetCamera(view)
GetActiveCamera().Dolly(args.zoom)
print("volume %s: critical cells %s, %d separatrices, every vertex labelled" %
      (args.volume, counts, separatrices))
state_helpers.save_screenshot(args.screenshot, None)
try:  # 256 colours: the same picture at a third of the bytes (docs images stay < 400 KB)
    from PIL import Image
    Image.open(args.screenshot).convert("RGB").quantize(256).save(args.screenshot, optimize=True)
except ImportError:
    pass
if args.docs_image and os.environ.get("TOPOGPU_UPDATE_DOCS") == "1":
    shutil.copyfile(args.screenshot, args.docs_image)
    print("updated", args.docs_image)
