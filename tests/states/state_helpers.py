"""What the state scripts share: the demo view's slice and outline (make_*state.py),
the Morse-Smale complex's checks and critical-point colours (msc_*.py) and saving the
loaded state's screenshot (and, with TOPOGPU_UPDATE_DOCS=1, copying it to the
documentation image; *state_test.py)."""
import os
import shutil

import numpy as np

from paraview import simple
from paraview import servermanager
from paraview.simple import GetActiveView, GetRenderViews, SaveScreenshot
from vtkmodules.numpy_interface import dataset_adapter as dsa


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
    for c in range(poly.GetNumberOfCells()):
        cell = poly.GetCell(c)
        first, last = cell.GetPointId(0), cell.GetPointId(cell.GetNumberOfPoints() - 1)
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
    return counts, poly.GetNumberOfCells()


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
