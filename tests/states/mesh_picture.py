"""A filter's mesh path rendered for the docs, on a tetrahedralized Wavelet (ParaView's
Tetrahedralize, a vtkUnstructuredGrid: the filters' path through the explicit
triangulation), over the mesh's edges clipped at z = 0 and its outline:

- discrete-gradient (docs/images/discrete-gradient-mesh.png): the TopoGPU Discrete
  Gradient filter's critical simplices as spheres at their barycentres coloured by
  CellDimension. Checks Euler (n0 - n1 + n2 - n3 = 1 on a box).
- critical-points (docs/images/critical-points-mesh.png): the TopoGPU Critical Points
  filter's points coloured by CriticalType. Checks the minima and maxima against a brute
  force over the mesh's edges (numpy): a vertex is a minimum (maximum) exactly when every
  neighbour comes later (earlier) in the (value, id) order.

Both check that the GALE triangulation (CPU producers) gives the same output.

Usage: pvbatch mesh_picture.py MODE PLUGIN SCREENSHOT.png [DOCS_IMAGE.png]
Needs an X server (xvfb-run). With TOPOGPU_UPDATE_DOCS=1 the screenshot is also copied
to DOCS_IMAGE.png.
"""
import os
import sys

import numpy as np
from vtk.util.numpy_support import vtk_to_numpy

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

mode, plugin, screenshot = sys.argv[1], sys.argv[2], sys.argv[3]
docs_image = sys.argv[4] if len(sys.argv) > 4 else None
assert mode in ("discrete-gradient", "critical-points"), mode
LoadPlugin(plugin, remote=False, ns=globals())

field = Wavelet()
field.WholeExtent = [-12, 12, -12, 12, -6, 6]
field.XFreq, field.YFreq, field.ZFreq = 20.0, 15.0, 10.0
tets = Tetrahedralize(Input=field)


def run(choice):
    """The filter with this Triangulation, and its output as sorted (type, position)."""
    if mode == "discrete-gradient":
        proxy = TopoGPUDiscreteGradient(Input=tets, Triangulation=choice)
        array = "CellDimension"
    else:
        proxy = TopoGPUCriticalPoints(Input=tets, Triangulation=choice)
        array = "CriticalType"
    proxy.SelectInputScalars = ["POINTS", "RTData"]
    proxy.UpdatePipeline()
    out = servermanager.Fetch(proxy)
    kinds = out.GetPointData().GetArray(array)
    rows = sorted((int(kinds.GetValue(i)), tuple(np.round(out.GetPoint(i), 6)))
                  for i in range(out.GetNumberOfPoints()))
    return proxy, rows


def brute_force_extrema():
    """Positions of the minima and of the maxima of the tets' vertex order."""
    mesh = servermanager.Fetch(tets)
    points = vtk_to_numpy(mesh.GetPoints().GetData())
    values = vtk_to_numpy(mesh.GetPointData().GetArray("RTData"))
    cells = vtk_to_numpy(mesh.GetCells().GetConnectivityArray()).reshape(-1, 4)
    rank = np.empty(len(values), dtype=np.int64)
    rank[np.lexsort((np.arange(len(values)), values))] = np.arange(len(values))
    pairs = np.concatenate([cells[:, [i, j]] for i in range(4) for j in range(4) if i != j])
    lowest = np.full(len(values), np.iinfo(np.int64).max)
    highest = np.full(len(values), -1)
    np.minimum.at(lowest, pairs[:, 0], rank[pairs[:, 1]])
    np.maximum.at(highest, pairs[:, 0], rank[pairs[:, 1]])
    at = lambda mask: sorted(tuple(np.round(p, 6)) for p in points[mask])  # noqa: E731
    return at(lowest > rank), at(highest < rank)


proxy, rows = run("Auto")
counts = [sum(1 for d, _ in rows if d == k) for k in range(5)]
if mode == "discrete-gradient":
    assert counts[0] - counts[1] + counts[2] - counts[3] == 1, "Euler: %s" % counts[:4]
else:
    minima, maxima = brute_force_extrema()
    assert [p for t, p in rows if t == 0] == minima, "minima differ from the brute force"
    assert [p for t, p in rows if t == 3] == maxima, "maxima differ from the brute force"
    assert minima and maxima, "a Wavelet has extrema"
assert run("GALE (CPU producers)")[1] == rows, "GALE differs from explicit"

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
glyphs = Glyph(Input=proxy, GlyphType="Sphere")
glyphs.ScaleArray = ["POINTS", "No scale array"]
glyphs.ScaleFactor = 0.9
glyphs.GlyphMode = "All Points"
glyph_display = Show(glyphs, view)
title = "CellDimension" if mode == "discrete-gradient" else "CriticalType"
lut = state_helpers.colour_critical_points(glyph_display, view, title)
bar = GetScalarBar(lut, view)
bar.Title, bar.ComponentTitle = title, ""
bar.WindowLocation = "Upper Right Corner"
view.CameraPosition = [24.0, -44.0, 36.0]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [-0.25, 0.5, 0.83]
Render(view)
print("%s of a tet mesh: %s by type, as GALE's" % (mode, counts))
state_helpers.save_screenshot(screenshot, docs_image)
