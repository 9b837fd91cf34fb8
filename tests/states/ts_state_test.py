"""Loads states/topological-simplification.pvsm in pvbatch and checks the chain's result
against GUDHI run on the state's own input field (tests/oracles/simplicial_persistence.py,
no project code): the Morse-Smale complex of the simplified field has exactly as many
minima and maxima as the thresholded diagram keeps (the minima of GUDHI's 0-dimensional
pairs of persistence >= the Threshold's lower bound and the essential minimum; the
maxima of its 2-dimensional pairs of persistence >= it, and the global maximum, which
the diagram's essential pair keeps), that the simplification removed pairs and that the
complex is sound (state_helpers.check_complex); then saves a screenshot.

Usage: pvbatch ts_state_test.py PLUGIN STATE.pvsm SCREENSHOT.png [DOCS_IMAGE.png]
With TOPOGPU_UPDATE_DOCS=1 the screenshot is also copied to DOCS_IMAGE.png.
"""
import os
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403
from vtkmodules.util import numpy_support

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import state_helpers  # noqa: E402
import simplicial_persistence as oracle  # noqa: E402

screenshot, docs_image = state_helpers.load_state_from_argv(sys.argv, globals())
field, kept, simplified, msc = (FindSource(n) for n in (
    "Field", "KeptPairs", "Simplified", "MorseSmaleComplex"))
assert field and kept and simplified and msc, "state lacks its pipeline"
assert msc.Complex == "Simplicial", msc.Complex
threshold = float(kept.LowerThreshold)

image = servermanager.Fetch(field)
nx, ny, nz = image.GetDimensions()
values = numpy_support.vtk_to_numpy(image.GetPointData().GetArray("RTData")).astype(np.float64)
finite, essential = oracle.gudhi_diagram(oracle.grid_simplices(nx, ny, nz), values)
minima = sum(1 for d, b, e in finite if d == 0 and e - b >= threshold) + \
    sum(1 for d, _ in essential if d == 0)
top = values.max()
maxima = sum(1 for d, b, e in finite if d == 2 and e - b >= threshold)
if not any(d == 2 and e == top and e - b >= threshold for d, b, e in finite):
    maxima += 1  # the essential pair's global maximum, kept by the Threshold
removed = sum(1 for d, b, e in finite if d in (0, 2) and e - b < threshold)
assert removed > 0, "the threshold removes nothing: the state shows no simplification"

out = servermanager.Fetch(simplified)
assert out.GetPointData().GetArray("RTData_Order") is not None
msc.UpdatePipeline()
counts, separatrices = state_helpers.check_complex(msc)
cp = servermanager.Fetch(msc, idx=0)
dims = numpy_support.vtk_to_numpy(cp.GetPointData().GetArray("CellDimension"))
got = (int((dims == 0).sum()), int((dims == 3).sum()))
assert got == (minima, maxima), \
    "the simplified field's complex has %d minima and %d maxima, the thresholded " \
    "diagram keeps %d and %d" % (got + (minima, maxima))
view = GetActiveView() or GetRenderViews()[0]
state_helpers.check_default_display(msc, view)
print("state: %d extremum pairs below %g removed; the complex of the simplified field has "
      "%d minima and %d maxima, as GUDHI's kept pairs; critical cells %s" % (
          removed, threshold, got[0], got[1], counts))
state_helpers.save_screenshot(screenshot, docs_image)
os._exit(0)
