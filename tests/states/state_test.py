"""Loads states/critical-points.pvsm in pvbatch, checks the critical points it computes
against the numpy oracle, and saves a screenshot.

Usage: pvbatch state_test.py PLUGIN STATE.pvsm SCREENSHOT.png [DOCS_IMAGE.png]
With TOPOGPU_UPDATE_DOCS=1 the screenshot is also copied to DOCS_IMAGE.png.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "pvpython"))
import cp_oracle as oracle  # noqa: E402

sys.path.insert(0, HERE)
import state_helpers  # noqa: E402

from paraview import servermanager  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.util import numpy_support  # noqa: E402

screenshot, docs_image = state_helpers.load_state_from_argv(sys.argv, globals())

field = FindSource("Field")
critical = FindSource("CriticalPoints")
glyphs = FindSource("Glyphs")
assert field and critical and glyphs, "state lacks its pipeline"
critical.UpdatePipeline()
data = servermanager.Fetch(field)
out = servermanager.Fetch(critical)

values = numpy_support.vtk_to_numpy(data.GetPointData().GetArray("RTData"))
ref = oracle.classify(values, oracle.grid_cells(data.GetDimensions()),
                      data.GetNumberOfPoints())
assert ref.euler_from_links == ref.euler_domain == 1, (ref.euler_from_links, ref.euler_domain)
ids = numpy_support.vtk_to_numpy(out.GetPointData().GetArray("ttkVertexScalarField"))
types = numpy_support.vtk_to_numpy(out.GetPointData().GetArray("CriticalType"))
assert np.array_equal(ids, ref.critical), "critical vertices differ from the oracle"
assert np.array_equal(types, ref.types[ids]), "critical types differ from the oracle"
counts = np.bincount(types, minlength=6)
assert np.array_equal(counts[:5], ref.counts[:5]), (counts, ref.counts)
glyphs.UpdatePipeline()
assert glyphs.GetDataInformation().GetNumberOfPoints() > 0, "no glyphs drawn"
print("state: %d critical points, counts %s match the oracle" % (len(ids), counts[:5].tolist()))

state_helpers.save_screenshot(screenshot, docs_image)
