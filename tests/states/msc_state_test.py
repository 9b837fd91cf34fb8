"""Loads states/morse-smale-complex.pvsm in pvbatch, checks the complex it computes (Euler
on the critical cells, every vertex labelled, each separatrix running from a saddle to an
extremum listed among the critical points, as SourceId/DestinationId say) and saves a
screenshot.

Usage: pvbatch msc_state_test.py PLUGIN STATE.pvsm SCREENSHOT.png [DOCS_IMAGE.png]
With TOPOGPU_UPDATE_DOCS=1 the screenshot is also copied to DOCS_IMAGE.png.
"""
import os
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

plugin, state, screenshot = sys.argv[1:4]
docs_image = sys.argv[4] if len(sys.argv) > 4 else None
LoadPlugin(plugin, remote=False, ns=globals())
LoadState(state)

msc = FindSource("MorseSmaleComplex")
glyphs, tubes = FindSource("CriticalPointGlyphs"), FindSource("SeparatrixTubes")
assert msc and glyphs and tubes, "state lacks its pipeline"
msc.UpdatePipeline()
cp = dsa.WrapDataObject(servermanager.Fetch(msc, idx=0))
sep = dsa.WrapDataObject(servermanager.Fetch(msc, idx=1))
seg = dsa.WrapDataObject(servermanager.Fetch(msc, idx=3))

dims = np.asarray(cp.PointData["CellDimension"])
bmax = np.asarray(cp.PointData["IsBoundaryMaximum"]).astype(bool)
counts = [int(np.sum((dims == k) & ~bmax)) for k in range(4)]
assert counts[0] - counts[1] + counts[2] - counts[3] == 1, "Euler: %s" % counts
assert sum(counts) > 50, counts
critical = set(zip(dims.tolist(), np.asarray(cp.PointData["CellId"]).tolist()))
pdim, pid = np.asarray(sep.PointData["CellDimension"]), np.asarray(sep.PointData["CellId"])
source, dest = np.asarray(sep.CellData["SourceId"]), np.asarray(sep.CellData["DestinationId"])
poly = sep.VTKObject
assert poly.GetNumberOfCells() > 50
for c in range(poly.GetNumberOfCells()):
    cell = poly.GetCell(c)
    first, last = cell.GetPointId(0), cell.GetPointId(cell.GetNumberOfPoints() - 1)
    assert (pdim[first], pid[first]) in critical and pid[first] == source[c]
    assert (pdim[last], pid[last]) in critical and pid[last] == dest[c]
    assert pdim[first] in (1, 2) and pdim[last] in (0, 2, 3)
for name in ("AscendingManifold", "DescendingManifold", "MorseSmaleManifold"):
    assert np.asarray(seg.PointData[name]).min() >= 0, name + " leaves vertices unlabelled"
glyphs.UpdatePipeline()
tubes.UpdatePipeline()
assert glyphs.GetDataInformation().GetNumberOfPoints() > 0, "no glyphs drawn"
assert tubes.GetDataInformation().GetNumberOfPoints() > 0, "no tubes drawn"
print("state: critical cells %s, %d separatrices, endpoints checked" %
      (counts, poly.GetNumberOfCells()))

state_helpers.save_screenshot(screenshot, docs_image)
