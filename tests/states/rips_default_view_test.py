"""The Rips diagram as a new filter shows it after Apply, without a state file: pvbatch
under Xvfb builds the filter with its defaults on a noisy circle with a few outliers (an
enclosing radius far above every finite death), shows port 0 in a fresh render view
(the controller ParaView's Apply uses) and checks what a user sees: the plugin's
diagram representation, coloured by PairType through a categorical colour map whose
legend names the categories (diagonal, H0, H1, ...), the axes grid shown with the titles
Birth and Death, the essential bars drawn a tenth above the largest finite value (not at
1.1 times the enclosing radius, which left the finite bars in a corner), and in the
screenshot both the dimension-0 bars (born at 0, beside the axis) and the loop's bar.

Usage: pvbatch rips_default_view_test.py PLUGIN SCREENSHOT.png
"""
import os
import sys

import numpy as np

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.util import numpy_support
from vtkmodules.vtkCommonDataModel import vtkTable

plugin, screenshot = sys.argv[1], sys.argv[2]
LoadPlugin(plugin, remote=False, ns=globals())

rng = np.random.default_rng(0)
angles = rng.uniform(0, 2 * np.pi, 200)
points = np.c_[np.cos(angles), np.sin(angles)] + rng.normal(0, 0.08, (200, 2))
points = np.r_[points, rng.uniform(-3, 3, (10, 2))]
table = vtkTable()
for k, name in enumerate("xy"):
    column = numpy_support.numpy_to_vtk(np.ascontiguousarray(points[:, k]), deep=1)
    column.SetName(name)
    table.AddColumn(column)
cloud = TrivialProducer(registrationName="Cloud")
cloud.GetClientSideObject().SetOutput(table)
rips = TopoGPURipsPersistenceDiagram(registrationName="Rips", Input=cloud)  # noqa: F405

view = CreateView("RenderView")
view.ViewSize = [900, 700]
view.OrientationAxesVisibility = 0
display = Show(OutputPort(rips, 0), view)
assert display.GetXMLName() == "TopoGPUPersistenceDiagramRepresentation", display.GetXMLName()
assert list(display.ColorArrayName) == ["CELLS", "PairType"], display.ColorArrayName
lut = GetColorTransferFunction("PairType")
assert lut.InterpretValuesAsCategories == 1, "PairType's colour map is not categorical"
labels = dict(zip(list(lut.Annotations)[0::2], list(lut.Annotations)[1::2]))
assert labels["-1"] == "diagonal" and labels["0"] == "H0" and labels["1"] == "H1", labels
axes = display.DataAxesGrid
assert axes.GridAxesVisibility == 1, "the axes grid is hidden"
assert (axes.XTitle, axes.YTitle) == ("Birth", "Death"), (axes.XTitle, axes.YTitle)

diagram = dsa.WrapDataObject(servermanager.Fetch(rips))
fd = diagram.FieldData
drawn, radius = float(fd["RipsInfiniteDeathValue"][0]), float(fd["RipsEnclosingRadius"][0])
finite = np.asarray(diagram.CellData["IsFinite"])[:-1] == 1
birth, death = np.asarray(diagram.CellData["Birth"])[:-1], np.asarray(diagram.CellData["Death"])[:-1]
top = max(birth.max(), death[finite].max())
assert abs(drawn - 1.1 * top) <= 1e-6 * drawn, (drawn, top)
assert drawn < 0.8 * radius, "essential bars drawn near the enclosing radius %g: %g" % (radius, drawn)

view.InteractionMode = "2D"
ResetCamera(view)
Render(view)
SaveScreenshot(screenshot, view, ImageResolution=[900, 700])

# The bars in the picture: pixels of H0's red and H1's blue (the legend is off).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

red, blue = state_helpers.colour_pixels(screenshot, ((0.84, 0.15, 0.16), (0.12, 0.47, 0.71)))
assert red > 100 and blue > 100, "bars not visible: %d red and %d blue pixels" % (red, blue)
print("default view: %s, PairType categories %s, axes %s/%s, essential at %.3g (radius %.3g), "
      "%d H0 and %d H1 pixels; %s" % (display.GetXMLName(), sorted(labels.values()), axes.XTitle,
                                      axes.YTitle, drawn, radius, red, blue, screenshot))
os._exit(0)
