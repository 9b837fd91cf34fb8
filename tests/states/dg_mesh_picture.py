"""The discrete gradient of a tet mesh, rendered for the docs
(docs/images/discrete-gradient-mesh.png): a tetrahedralized Wavelet (ParaView's
Tetrahedralize, a vtkUnstructuredGrid: the filter's simplicial path through the explicit
triangulation), the TopoGPU Discrete Gradient filter's critical simplices as spheres at
their barycentres coloured by CellDimension, over the mesh's edges clipped at z = 0 and
its outline. Checks what it draws: Euler (n0 - n1 + n2 - n3 = 1 on a box) and the same
critical simplices with the GALE triangulation (CPU producers).

Usage: pvbatch dg_mesh_picture.py PLUGIN SCREENSHOT.png [DOCS_IMAGE.png]
Needs an X server (xvfb-run). With TOPOGPU_UPDATE_DOCS=1 the screenshot is also copied
to DOCS_IMAGE.png.
"""
import os
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

plugin, screenshot = sys.argv[1], sys.argv[2]
docs_image = sys.argv[3] if len(sys.argv) > 3 else None
LoadPlugin(plugin, remote=False, ns=globals())

field = Wavelet()
field.WholeExtent = [-12, 12, -12, 12, -6, 6]
field.XFreq, field.YFreq, field.ZFreq = 20.0, 15.0, 10.0
tets = Tetrahedralize(Input=field)


def critical(choice):
    gradient = TopoGPUDiscreteGradient(Input=tets, Triangulation=choice)
    gradient.SelectInputScalars = ["POINTS", "RTData"]
    gradient.UpdatePipeline()
    out = servermanager.Fetch(gradient)
    dims = out.GetPointData().GetArray("CellDimension")
    rows = sorted((int(dims.GetValue(i)), tuple(np.round(out.GetPoint(i), 6)))
                  for i in range(out.GetNumberOfPoints()))
    return gradient, rows


gradient, rows = critical("Auto")
counts = [sum(1 for d, _ in rows if d == k) for k in range(4)]
assert counts[0] - counts[1] + counts[2] - counts[3] == 1, "Euler: %s" % counts
assert critical("GALE (CPU producers)")[1] == rows, "GALE differs from explicit"

view = CreateView("RenderView")
view.ViewSize = [1000, 800]
view.OrientationAxesVisibility = 1
view.Background = [0.32, 0.34, 0.43]
clip = Clip(Input=tets)
clip.ClipType = "Plane"
clip.ClipType.Origin = [0.0, 0.0, 0.0]
clip.ClipType.Normal = [0.0, 0.0, 1.0]
clip_display = Show(clip, view)
clip_display.SetRepresentationType("Surface With Edges")
ColorBy(clip_display, ("POINTS", "RTData"))
GetColorTransferFunction("RTData").ApplyPreset("Grayscale", True)
clip_display.Opacity = 0.35
Show(Outline(Input=tets), view)
glyphs = Glyph(Input=gradient, GlyphType="Sphere")
glyphs.ScaleArray = ["POINTS", "No scale array"]
glyphs.ScaleFactor = 0.9
glyphs.GlyphMode = "All Points"
glyph_display = Show(glyphs, view)
lut = state_helpers.colour_critical_points(glyph_display, view)
bar = GetScalarBar(lut, view)
bar.Title, bar.ComponentTitle = "CellDimension", ""
bar.WindowLocation = "Upper Right Corner"
view.CameraPosition = [24.0, -44.0, 36.0]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [-0.25, 0.5, 0.83]
Render(view)
print("discrete gradient of a tet mesh: critical simplices %s, as GALE's" % counts)
state_helpers.save_screenshot(screenshot, docs_image)
