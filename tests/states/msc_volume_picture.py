"""The Morse-Smale complex of a real volume, rendered for the docs
(docs/images/msc-<volume>.png): the raw volume read by ParaView's Image Reader, the
TopoGPU Morse-Smale Complex filter with its defaults (the simplicial complex, TTK's, at
the automatic persistence threshold, named in the caption), its
ports shown as Apply shows them (critical points as sprites coloured by CellDimension,
1-separatrices as lines coloured by SeparatrixType, both with their categorical legends;
the 2-separatrices and the segmentation not drawn), over a translucent grey middle z
slice of the volume and its outline. Checks what it draws (Euler on the critical cells,
every vertex labelled, separatrices joining critical points, the display defaults).

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
msc.UpdatePipeline()

# What is drawn, checked: a picture of a wrong complex must not reach the docs.
assert msc.Complex == "Simplicial", msc.Complex
counts, separatrices = state_helpers.check_complex(msc)

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1000, 800]
view.Background = [0.32, 0.34, 0.43]
view.OrientationAxesVisibility = 1

# Context: the volume's middle z layer in grey, translucent, and its outline.
layer = ExtractSubset(registrationName="MiddleLayer", Input=reader)
layer.VOI = [0, dims[0] - 1, 0, dims[1] - 1, dims[2] // 2, dims[2] // 2]
slice_display = Show(layer, view)
ColorBy(slice_display, ("POINTS", args.volume))
GetColorTransferFunction(args.volume).ApplyPreset("Grayscale", True)
slice_display.Opacity = 0.5
slice_display.SetScalarBarVisibility(view, False)
outline = Show(reader, view)
outline.SetRepresentationType("Outline")
ColorBy(outline, None)

for bar in state_helpers.show_msc_defaults(msc, view, 0.45 * max(1.0, max(dims) / 96)):
    bar.ScalarBarLength = 0.22
text = Text(registrationName="Caption")
msc.UpdatePropertyInformation()
used = msc.GetPropertyValue("PersistenceThresholdUsed")
text.Text = (f"{args.volume} {'x'.join(map(str, dims))}, simplicial complex (TTK's)"
             + (f" at the automatic persistence threshold {used:g}" if used > 0 else "")
             + f": {counts[0]} minima, {counts[1]} 1-saddles, {counts[2]} 2-saddles, "
             f"{counts[3]} maxima; {separatrices} 1-separatrices")
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
