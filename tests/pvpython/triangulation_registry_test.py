"""pvpython checks of the triangulation the TopoGPU filters share (filters/base,
TopoGPUTriangulationRegistry): a chain of filters on one tetrahedral mesh builds the
explicit triangulation once (the later filters' TopoGPUTimingStages say
"triangulation (cached)") and outputs what the same filters output each on a mesh of
their own; cells changed in place are triangulated again; the shared triangulations go
with their data sets (their number stays bounded while meshes come and go).

Usage: pvpython triangulation_registry_test.py PLUGIN DATA_DIR CASE
Each CASE is one ctest; a failed check raises, so pvpython exits non-zero.
"""
import gc
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402
from paraview import servermanager  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa  # noqa: E402
from vtkmodules.util import numpy_support  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkUnstructuredGrid  # noqa: E402
from vtkmodules.vtkCommonCore import vtkPoints  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())

# The outputs that are run measurements, not results.
VOLATILE = ("TopoGPUTime", "TopoGPUTimings", "TopoGPUTimingStages")


def tet_mesh(extent=5):
    """A wavelet's tetrahedralization: one unstructured grid of tets with RTData."""
    wavelet = Wavelet(WholeExtent=[-extent, extent] * 3)
    return Tetrahedralize(Input=wavelet)


def chain(source):
    """Critical Points, Discrete Gradient and Morse-Smale Complex on the same input."""
    return [TopoGPUCriticalPoints(Input=source), TopoGPUDiscreteGradient(Input=source),
            TopoGPUMorseSmaleComplex(Input=source)]


def stages(proxy):
    proxy.UpdatePipeline()
    data = servermanager.Fetch(proxy)
    array = data.GetFieldData().GetAbstractArray("TopoGPUTimingStages")
    assert array is not None, "no TopoGPUTimingStages"
    return [array.GetValue(i) for i in range(array.GetNumberOfValues())]


def triangulation_stage(proxy):
    found = [s for s in stages(proxy) if s.startswith("triangulation")]
    assert len(found) == 1, found
    return found[0]


def port_arrays(proxy, port):
    """Every array of an output port (points, cells, point/cell/field data) by name."""
    proxy.UpdatePipeline()
    data = servermanager.Fetch(proxy, idx=port) if port else servermanager.Fetch(proxy)
    out = {"points": np.asarray(dsa.WrapDataObject(data).Points)
           if data.IsA("vtkPointSet") and data.GetPoints() is not None else None}
    if data.IsA("vtkDataSet"):
        out["cells"] = data.GetNumberOfCells()
    for kind, attributes in (("point", data.GetPointData() if data.IsA("vtkDataSet")
                              else None),
                             ("cell", data.GetCellData() if data.IsA("vtkDataSet")
                              else None),
                             ("field", data.GetFieldData())):
        if attributes is None:
            continue
        for i in range(attributes.GetNumberOfArrays()):
            array = attributes.GetAbstractArray(i)
            if array.GetName() in VOLATILE:
                continue
            if array.IsA("vtkStringArray"):
                values = [array.GetValue(k) for k in range(array.GetNumberOfValues())]
            else:
                values = numpy_support.vtk_to_numpy(array).copy()
            out["%s:%s" % (kind, array.GetName())] = values
    return out


def assert_same(a, b, label):
    assert a.keys() == b.keys(), "%s: %s vs %s" % (label, sorted(a), sorted(b))
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert np.array_equal(a[key], b[key]), "%s: %s differs" % (label, key)
        else:
            assert a[key] == b[key], "%s: %s differs" % (label, key)


def shared_count(proxy):
    """The number of shared triangulations, from the filter's PrintSelf."""
    text = str(proxy.GetClientSideObject())
    found = re.search(r"Shared triangulations: (\d+)", text)
    assert found, "PrintSelf does not say how many triangulations are shared"
    return int(found.group(1))


# ---- cases ---------------------------------------------------------------------------
def case_chain():
    filters = chain(tet_mesh())
    built = [triangulation_stage(f) for f in filters]
    assert built == ["triangulation", "triangulation (cached)",
                     "triangulation (cached)"], built
    # each filter alone, on a mesh of its own (the same values, other arrays): the same
    # outputs, port by port
    for index, shared in enumerate(filters):
        alone = chain(tet_mesh())[index]
        assert triangulation_stage(alone) == "triangulation"
        for port in range(shared.GetNumberOfOutputPorts()):
            assert_same(port_arrays(shared, port), port_arrays(alone, port),
                        "%s port %d" % (shared.GetXMLName(), port))
    print("chain: one triangulation for %d filters" % len(filters))


def grid_of(tets, points):
    grid = vtkUnstructuredGrid()
    vtk_points = vtkPoints()
    vtk_points.SetData(numpy_support.numpy_to_vtk(points, deep=1))
    grid.SetPoints(vtk_points)
    cells = vtkCellArray()
    offsets = numpy_support.numpy_to_vtkIdTypeArray(
        np.arange(0, 4 * len(tets) + 1, 4, dtype=np.int64), deep=1)
    connectivity = numpy_support.numpy_to_vtkIdTypeArray(
        tets.reshape(-1).astype(np.int64), deep=1)
    cells.SetData(offsets, connectivity)
    grid.SetCells(10, cells)  # VTK_TETRA
    values = numpy_support.numpy_to_vtk(points[:, 0] * 3 + points[:, 1] * 2 + points[:, 2])
    values.SetName("f")
    grid.GetPointData().SetScalars(values)
    return grid


def case_modified():
    # two tets sharing a face, then the second one moved (cells changed in place)
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]],
                      dtype=np.float64)
    grid = grid_of(np.array([[0, 1, 2, 3], [1, 2, 3, 4]]), points)
    source = TrivialProducer()
    source.GetClientSideObject().SetOutput(grid)
    cp = TopoGPUCriticalPoints(Input=source)
    assert triangulation_stage(cp) == "triangulation"
    source.GetClientSideObject().Modified()
    cp.MarkModified(cp)
    assert triangulation_stage(cp) == "triangulation (cached)"
    # the same cell array edited in place: its modification time moves on
    connectivity = grid.GetCells().GetConnectivityArray()
    connectivity.SetValue(4, 0)  # the second tet: 0 2 3 4
    connectivity.Modified()
    grid.GetCells().Modified()
    grid.Modified()
    source.GetClientSideObject().Modified()
    cp.MarkModified(cp)
    assert triangulation_stage(cp) == "triangulation", "stale triangulation reused"
    # the same as on a grid made with those cells from the start
    fresh = TrivialProducer()
    fresh.GetClientSideObject().SetOutput(
        grid_of(np.array([[0, 1, 2, 3], [0, 2, 3, 4]]), points))
    alone = TopoGPUCriticalPoints(Input=fresh)
    changed, expected = port_arrays(cp, 0), port_arrays(alone, 0)
    assert len(expected["points"]) > 0, "no critical point on the changed mesh"
    assert_same(changed, expected, "cells changed in place")
    print("modified: triangulated again")


def case_bounded():
    counts = []
    for _ in range(6):
        mesh = tet_mesh(3)
        cp = TopoGPUCriticalPoints(Input=mesh)
        assert triangulation_stage(cp) == "triangulation"
        counts.append(shared_count(cp))
        Delete(cp)
        Delete(mesh)
        del cp, mesh
        gc.collect()
    # each mesh's triangulation goes with it: never more than the live ones
    assert max(counts) <= 2, counts
    print("bounded: shared triangulations while meshes come and go: %s" % counts)


pv_helpers.run_case(globals(), CASE)
