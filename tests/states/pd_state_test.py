"""Loads states/persistence-diagram.pvsm in pvbatch, checks the diagram it computes and
the display, and saves a screenshot: the pairs of positive persistence and the essential
class equal GUDHI's lower-star persistence of TTK's split of the state's own Wavelet
(tests/oracles/simplicial_persistence.py), the diagram's points are TTK's (b, b) /
(b, d), and it is drawn by the diagram representation coloured by PairType through the
categorical colour map (diagonal, H0, H1, H2), the axes titled Birth and Death, port 1
(the curves) not drawn; the screenshot shows the three pair types' colours.

Usage: pvbatch pd_state_test.py PLUGIN STATE.pvsm SCREENSHOT.png [DOCS_IMAGE.png]
"""
import collections
import os
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.util import numpy_support

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import state_helpers  # noqa: E402
import simplicial_persistence as oracle  # noqa: E402

screenshot, docs_image = state_helpers.load_state_from_argv(sys.argv, globals())
field, pd = FindSource("Field"), FindSource("Diagram")
assert field and pd, "state lacks its pipeline"
image = servermanager.Fetch(field)
nx, ny, nz = image.GetDimensions()
values = numpy_support.vtk_to_numpy(image.GetPointData().GetArray("RTData")).astype(np.float64)
diagram = dsa.WrapDataObject(servermanager.Fetch(pd, idx=0))
ptype = np.asarray(diagram.CellData["PairType"])[:-1]
birth = np.asarray(diagram.CellData["Birth"])[:-1]
death = np.asarray(diagram.CellData["Death"])[:-1]
finite = np.asarray(diagram.CellData["IsFinite"])[:-1]
pts = np.asarray(diagram.Points)
assert np.array_equal(pts[0:-2:2, 0], birth) and np.array_equal(pts[0:-2:2, 1], birth)
assert np.array_equal(pts[1:-2:2, 0], birth) and np.array_equal(pts[1:-2:2, 1], death)

want, essential = oracle.gudhi_diagram(oracle.grid_simplices(nx, ny, nz), values)
mine = collections.Counter((int(t), b, d) for t, b, d, f in zip(ptype, birth, death, finite)
                           if f and d > b)
assert mine == collections.Counter(want), "pairs differ from GUDHI's: %s / %s" % (
    list((mine - collections.Counter(want)).items())[:3],
    list((collections.Counter(want) - mine).items())[:3])
assert sorted((int(t), b) for t, b, f in zip(ptype, birth, finite) if not f) == sorted(essential)

view = GetActiveView() or GetRenderViews()[0]
display = GetRepresentation(OutputPort(pd, 0), view)
assert display.GetXMLName() == "TopoGPUPersistenceDiagramRepresentation", display.GetXMLName()
assert list(display.ColorArrayName) == ["CELLS", "PairType"], display.ColorArrayName
curves = GetRepresentation(OutputPort(pd, 1), view)
assert curves is None or curves.Visibility == 0, "the curves table is drawn"
lut = GetColorTransferFunction("PairType")
assert lut.InterpretValuesAsCategories == 1, "PairType's colour map is not categorical"
labels = dict(zip(list(lut.Annotations)[0::2], list(lut.Annotations)[1::2]))
assert [labels.get(k) for k in ("-1", "0", "1", "2")] == ["diagonal", "H0", "H1", "H2"], labels
axes = display.DataAxesGrid
assert axes.GridAxesVisibility == 1 and (axes.XTitle, axes.YTitle) == ("Birth", "Death")

state_helpers.save_screenshot(screenshot, docs_image)
seen = state_helpers.colour_pixels(screenshot, ((0.84, 0.15, 0.16), (0.12, 0.47, 0.71),
                                                 (0.17, 0.63, 0.17)))
assert all(n > 50 for n in seen), "pair types not visible: %s pixels" % seen
print("state: %d pairs (%d of positive persistence) = GUDHI's; %s; %s pixels per type; %s" % (
    len(ptype), sum(mine.values()), display.GetXMLName(), seen, screenshot))
os._exit(0)
