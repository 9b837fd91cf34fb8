"""What the Morse-Smale Complex and Discrete Gradient filters look like after Apply,
without a state file: pvbatch under Xvfb shows every output port of a fresh filter the way
ParaView's Apply does (the pipeline controller's ShowInPreferredView, which reads the
proxy's hints) in a render view, on a 3D image and on a tet mesh, and checks:

- critical points (port 0 of both) as Point Gaussian sprites coloured by CellDimension
  through a categorical map whose legend names minimum, 1-saddle, 2-saddle, maximum;
- the 1-separatrices coloured by SeparatrixType (categorical, its three kinds named), the
  gradient glyphs by PairType (categorical);
- the Morse-Smale complex's 2-separatrices (empty by default) and segmentation (a copy of
  the input that would hide the complex, on a mesh everything) not drawn, though computed:
  the segmentation port holds the manifold labels;
- the render works with what is shown.

Usage: pvbatch default_display_test.py PLUGIN
"""
import os
import sys

from paraview import servermanager
from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import state_helpers  # noqa: E402

LoadPlugin(sys.argv[1], remote=False, ns=globals())

CELL_DIMENSION = ["minimum", "1-saddle", "2-saddle", "maximum"]
SEPARATRIX_TYPE = ["saddle to minimum", "saddle-saddle (3D), saddle to maximum (2D)",
                   "2-saddle to maximum"]
PAIR_TYPE = ["vertex-edge", "edge-face", "face-cell"]

view = CreateView("RenderView")
view.ViewSize = [600, 500]


def apply(proxy):
    """Each port shown as Apply shows it: the display, or None when it is not drawn."""
    return state_helpers.show_as_apply(proxy, view)


def expect(display, what, representation, association, array, labels):
    assert display is not None and display.Visibility == 1, "%s is not drawn" % what
    assert display.Representation == representation, (what, display.Representation)
    assert list(display.ColorArrayName) == [association, array], (what,
                                                                   display.ColorArrayName)
    lut = GetColorTransferFunction(array)
    assert lut.InterpretValuesAsCategories == 1, "%s: %s is not categorical" % (what, array)
    assert list(lut.Annotations)[1::2] == labels, (what, list(lut.Annotations))


field = Wavelet(WholeExtent=[-10, 10, -10, 10, -10, 10])
for name, source in (("image", field), ("tet mesh", Tetrahedralize(Input=field))):
    msc = TopoGPUMorseSmaleComplex(Input=source)  # noqa: F405
    points, lines, walls, segmentation = apply(msc)
    expect(points, "%s: critical points" % name, "Point Gaussian", "POINTS",
           "CellDimension", CELL_DIMENSION)
    expect(lines, "%s: 1-separatrices" % name, "Surface", "CELLS", "SeparatrixType",
           SEPARATRIX_TYPE)
    assert walls is None, "%s: the (empty) 2-separatrices are drawn" % name
    assert segmentation is None, "%s: the segmentation is drawn over the complex" % name
    labels = servermanager.Fetch(msc, idx=3).GetPointData()
    assert labels.GetArray("AscendingManifold") and labels.GetArray("MorseSmaleManifold"), \
        "%s: the segmentation is not computed" % name
    gradient = TopoGPUDiscreteGradient(Input=source)  # noqa: F405
    critical, glyphs = apply(gradient)
    expect(critical, "%s: gradient critical cells" % name, "Point Gaussian", "POINTS",
           "CellDimension", CELL_DIMENSION)
    expect(glyphs, "%s: gradient glyphs" % name, "Surface", "CELLS", "PairType", PAIR_TYPE)
    ResetCamera(view)
    Render(view)
    for proxy in (gradient, msc):
        for port in range(proxy.SMProxy.GetNumberOfOutputPorts()):
            Hide(OutputPort(proxy, port), view)
    print("%s: critical points as sprites by CellDimension, separatrices by SeparatrixType, "
          "glyphs by PairType, 2-separatrices and segmentation computed, not drawn" % name)
os._exit(0)
