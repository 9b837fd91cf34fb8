"""What the state scripts share: the demo view's slice and outline (make_*state.py),
a filter's ports shown as ParaView's Apply shows them, the Morse-Smale complex's checks
and critical-point colours (msc_*.py) and saving the
loaded state's screenshot (and, with TOPOGPU_UPDATE_DOCS=1, copying it to the
documentation image; *state_test.py)."""
import os
import shutil
import sys

import numpy as np

from paraview import simple
from paraview import servermanager
from paraview.simple import GetActiveView, GetRenderViews, SaveScreenshot
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.util.numpy_support import vtk_to_numpy

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pvpython"))
import separatrix_lines  # noqa: E402


def slice_and_view(field, opacity):
    """A translucent grey slice of field's RTData through z = 0 and field's outline in
    a 1000x800 render view, which is returned."""
    slice_ = simple.Slice(registrationName="Slice", Input=field)
    slice_.SliceType = "Plane"
    slice_.SliceType.Origin = [0.0, 0.0, 0.0]
    slice_.SliceType.Normal = [0.0, 0.0, 1.0]

    view = simple.GetActiveViewOrCreate("RenderView")
    view.ViewSize = [1000, 800]
    view.Background = [0.32, 0.34, 0.43]
    view.OrientationAxesVisibility = 1

    slice_display = simple.Show(slice_, view)
    simple.ColorBy(slice_display, ("POINTS", "RTData"))
    simple.GetColorTransferFunction("RTData").ApplyPreset("Grayscale", True)
    slice_display.Opacity = opacity

    outline = simple.Show(field, view)
    outline.SetRepresentationType("Outline")
    return view


def show_as_apply(proxy, view):
    """Each output port of proxy shown in view as the GUI's Apply shows it (the pipeline
    controller's ShowInPreferredView, which reads the proxy's hints: representation,
    colouring, ports not drawn). Returns the displays, None for a port not drawn."""
    proxy.UpdatePipeline()
    controller = servermanager.vtkSMParaViewPipelineControllerWithRendering()
    shown = []
    for port in range(proxy.SMProxy.GetNumberOfOutputPorts()):
        where = controller.ShowInPreferredView(proxy.SMProxy, port, view.SMProxy)
        shown.append(simple.GetRepresentation(simple.OutputPort(proxy, port), view)
                     if where else None)
    return shown


def check_default_display(msc, view):
    """The Morse-Smale complex drawn with the plugin's display defaults (what Apply
    gives): critical points as sprites coloured by CellDimension and 1-separatrices by
    SeparatrixType, both categorical; the 2-separatrices and the segmentation not drawn."""
    def display(port):  # the port's representation if drawn (never creates one)
        d = servermanager.GetRepresentation(simple.OutputPort(msc, port), view)
        return d if d is not None and d.Visibility == 1 else None
    points, lines = display(0), display(1)
    assert points is not None and points.Representation == "Point Gaussian", \
        "critical points are not drawn as sprites"
    assert list(points.ColorArrayName) == ["POINTS", "CellDimension"], points.ColorArrayName
    assert lines is not None and list(lines.ColorArrayName) == ["CELLS", "SeparatrixType"], \
        "1-separatrices are not coloured by SeparatrixType"
    for array in ("CellDimension", "SeparatrixType"):
        assert simple.GetColorTransferFunction(array).InterpretValuesAsCategories == 1, array
    assert display(2) is None and display(3) is None, \
        "the 2-separatrices or the segmentation are drawn over the complex"


def show_msc_defaults(msc, view, sprite_radius):
    """The Morse-Smale complex drawn as Apply draws it (show_as_apply, then checked by
    check_default_display), sized for a 1000x800 screenshot: sprites of sprite_radius
    (ParaView's default is a few pixels there) and lines of 2 pixels; the two legends
    titled, in the upper corners. Returns the legends (scalar bars)."""
    points, lines, _, _ = show_as_apply(msc, view)
    points.GaussianRadius = sprite_radius
    lines.LineWidth = 2.0
    check_default_display(msc, view)
    bars = []
    for array, corner in (("CellDimension", "Upper Right Corner"),
                          ("SeparatrixType", "Upper Left Corner")):
        bar = simple.GetScalarBar(simple.GetColorTransferFunction(array), view)
        bar.Title, bar.ComponentTitle, bar.WindowLocation = array, "", corner
        bars.append(bar)
    return bars


def load_state_from_argv(argv, namespace):
    """The state tests' command line, PLUGIN STATE.pvsm SCREENSHOT.png [DOCS_IMAGE.png]:
    loads the plugin into namespace (the script's globals) and the state; returns
    (screenshot, docs_image or None)."""
    plugin, state, screenshot = argv[1:4]
    docs_image = argv[4] if len(argv) > 4 else None
    simple.LoadPlugin(plugin, remote=False, ns=namespace)
    simple.LoadState(state)
    return screenshot, docs_image


def save_screenshot(screenshot, docs_image):
    view = GetActiveView() or GetRenderViews()[0]
    os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
    SaveScreenshot(screenshot, view, ImageResolution=[1000, 800])
    assert os.path.getsize(screenshot) > 10000, "screenshot looks empty"
    if docs_image and os.environ.get("TOPOGPU_UPDATE_DOCS") == "1":
        os.makedirs(os.path.dirname(os.path.abspath(docs_image)), exist_ok=True)
        shutil.copyfile(screenshot, docs_image)
        print("updated", docs_image)
    print("state: OK, screenshot", screenshot)


def colour_pixels(png, colours, tolerance=40):
    """The number of pixels of the PNG within tolerance (0-255 per channel) of each rgb
    colour (0-1 components) in colours."""
    from vtkmodules.vtkIOImage import vtkPNGReader
    reader = vtkPNGReader()
    reader.SetFileName(png)
    reader.Update()
    rgb = vtk_to_numpy(reader.GetOutput().GetPointData().GetScalars())[:, :3].astype(int)
    return [int(np.sum(np.all(np.abs(rgb - np.array(c) * 255) < tolerance, axis=1)))
            for c in colours]


def check_complex(msc):
    """Checks what a TopoGPUMorseSmaleComplex proxy computed, so that a wrong complex never
    reaches a picture: Euler on the critical cells (boundary maxima aside), every
    separatrix running from a saddle (SourceId) to a critical cell (DestinationId) of
    port 0, every vertex labelled. Returns the critical cells per index and the number of
    separatrices."""
    cp = dsa.WrapDataObject(servermanager.Fetch(msc, idx=0))
    sep = dsa.WrapDataObject(servermanager.Fetch(msc, idx=1))
    seg = dsa.WrapDataObject(servermanager.Fetch(msc, idx=3))
    dims = np.asarray(cp.PointData["CellDimension"])
    bmax = np.asarray(cp.PointData["IsBoundaryMaximum"]).astype(bool)
    counts = [int(np.sum((dims == k) & ~bmax)) for k in range(4)]
    assert counts[0] - counts[1] + counts[2] - counts[3] == 1, "Euler: %s" % counts
    critical = set(zip(dims.tolist(), np.asarray(cp.PointData["CellId"]).tolist()))
    pdim, pid = np.asarray(sep.PointData["CellDimension"]), np.asarray(sep.PointData["CellId"])
    source = np.asarray(sep.CellData["SourceId"])
    dest = np.asarray(sep.CellData["DestinationId"])
    poly = sep.VTKObject
    assert poly.GetNumberOfCells() > 0, "no separatrices"
    # TTK's line cells, one per V-path step, chained per SeparatrixId
    paths = separatrix_lines.paths(vtk_to_numpy(poly.GetLines().GetConnectivityArray()),
                                   np.asarray(sep.CellData["SeparatrixId"]), [source, dest])
    for c, ids in paths:
        first, last = ids[0], ids[-1]
        assert (pdim[first], pid[first]) in critical and pid[first] == source[c], c
        assert (pdim[last], pid[last]) in critical and pid[last] == dest[c], c
        assert pdim[first] in (1, 2) and pdim[last] in (0, 2, 3), c
    for name in ("DescendingManifold", "MorseSmaleManifold"):
        assert np.asarray(seg.PointData[name]).min() >= 0, name + " leaves vertices unlabelled"
    # AscendingManifold: -1 only where TTK's rule leaves a vertex (the simplicial
    # complex's default), as many as UnlabelledVertices says
    ascending = np.asarray(seg.PointData["AscendingManifold"])
    assert ascending.min() >= -1 and int((ascending < 0).sum()) == int(
        np.asarray(cp.FieldData["UnlabelledVertices"])[0]), "AscendingManifold labels"
    return counts, len(paths)


def colour_critical_points(display, view, array="CellDimension"):
    """Critical points coloured by `array` as categories, CellDimension (minimum ..
    maximum) or CriticalType (the same and degenerate), in the plugin's own legend: the
    filters register its colours and labels as ParaView's defaults for these arrays, so
    a state shows what a new filter shows (tests/states/gui_test.py checks both). Returns
    the LUT."""
    simple.ColorBy(display, ("POINTS", array))
    lut = simple.GetColorTransferFunction(array)
    assert lut.InterpretValuesAsCategories == 1 and len(lut.Annotations) >= 8, \
        "the plugin's legend defaults for %s are missing" % array
    display.SetScalarBarVisibility(view, True)
    return lut
