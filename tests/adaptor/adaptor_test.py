"""pvpython checks of the VTK adaptor's mesh path, through the filter and the CLI.

Usage: pvpython adaptor_test.py PLUGIN TOPOGPU_CLI CASE
  malformed_cells: a VTK_TETRA with 3 or 5 point ids, a VTK_TRIANGLE with 4 (alone or in
      a tet mesh) must be rejected with an error naming the cell and its type, never
      re-cut into cells the file does not have.
  zero_copy: a pure tet or triangle mesh (viewed in place, 32- and 64-bit cell storage)
      and the same mesh with extra skipped cells (copied) give the oracle's answer.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pvpython"))
import cp_oracle as oracle  # noqa: E402

from paraview import servermanager  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa  # noqa: E402
from vtkmodules.util import numpy_support  # noqa: E402
from vtkmodules.util.misc import calldata_type  # noqa: E402
from vtkmodules.util.vtkConstants import VTK_STRING  # noqa: E402
from vtkmodules.vtkCommonCore import vtkPoints  # noqa: E402
from vtkmodules.vtkCommonDataModel import (  # noqa: E402
    VTK_TETRA, VTK_TRIANGLE, VTK_VERTEX, vtkCellArray, vtkPolyData, vtkUnstructuredGrid)
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridWriter  # noqa: E402

PLUGIN, CLI, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
LoadPlugin(PLUGIN, remote=False, ns=globals())


def run_filter(data):
    source = TrivialProducer()
    source.GetClientSideObject().SetOutput(data)
    cp = TopoGPUCriticalPoints(Input=source)
    errors = []

    @calldata_type(VTK_STRING)
    def on_error(_obj, _event, text):
        errors.append(text)

    cp.GetClientSideObject().AddObserver("ErrorEvent", on_error)
    cp.SelectInputScalars = ["POINTS", "s"]
    cp.UpdatePipeline()
    return dsa.WrapDataObject(servermanager.Fetch(cp)), errors


def points(n, seed):
    rng = np.random.default_rng(seed)
    pts = vtkPoints()
    pts.SetData(numpy_support.numpy_to_vtk(rng.random((n, 3)), deep=1))
    return pts


def add_scalar(data, values):
    arr = numpy_support.numpy_to_vtk(np.ascontiguousarray(values, dtype=np.float64), deep=1)
    arr.SetName("s")
    data.GetPointData().AddArray(arr)


def grid_of(cells, n=8, seed=1):
    grid = vtkUnstructuredGrid()
    grid.SetPoints(points(n, seed))
    for cell_type, ids in cells:
        grid.InsertNextCell(cell_type, len(ids), [int(i) for i in ids])
    add_scalar(grid, np.random.default_rng(seed + 1).random(n))
    return grid


def case_malformed_cells():
    tet = (VTK_TETRA, [0, 1, 2, 3])
    bad = [
        ([tet, (VTK_TETRA, [1, 2, 3, 4, 5])], 1, "VTK_TETRA with 5 point ids"),
        ([tet, tet[:1] + ([4, 5, 6],)], 1, "VTK_TETRA with 3 point ids"),
        ([(VTK_TRIANGLE, [0, 1, 2]), (VTK_TRIANGLE, [1, 2, 3, 4])], 1,
         "VTK_TRIANGLE with 4 point ids"),
        # a malformed triangle is named even where the tets would win
        ([tet, (VTK_TETRA, [1, 2, 3, 4]), (VTK_TRIANGLE, [4, 5, 6, 7])], 2,
         "VTK_TRIANGLE with 4 point ids"),
        # the first bad cell after good ones of both kinds
        ([(VTK_TRIANGLE, [0, 1, 2]), tet, (VTK_TETRA, [2, 3, 4, 5, 6]),
          (VTK_TETRA, [1, 2])], 2, "VTK_TETRA with 5 point ids"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for k, (cells, cell_id, words) in enumerate(bad):
            expected = "cell %d is a %s" % (cell_id, words)
            out, errors = run_filter(grid_of(cells))
            text = " ".join(errors)
            assert out.VTKObject.GetNumberOfPoints() == 0, "filter produced output"
            assert expected in text, "filter error %r lacks %r" % (text, expected)
            path = os.path.join(tmp, "bad%d.vtu" % k)
            writer = vtkXMLUnstructuredGridWriter()
            writer.SetFileName(path)
            writer.SetInputData(grid_of(cells))
            assert writer.Write() == 1
            run = subprocess.run([CLI, "critical-points", "--mesh", path, "--array", "s"],
                                 capture_output=True, text=True)
            assert run.returncode == 1, (run.returncode, run.stdout, run.stderr)
            assert expected in run.stderr, "CLI error %r lacks %r" % (run.stderr, expected)
            assert "Segmentation" not in run.stderr
            print("case %d: %s" % (k, expected))


def check(data, cells, label):
    out, errors = run_filter(data)
    assert not errors, (label, errors)
    values = numpy_support.vtk_to_numpy(data.GetPointData().GetArray("s"))
    ref = oracle.classify(values, cells, data.GetNumberOfPoints())
    ids = np.asarray(out.PointData["ttkVertexScalarField"])
    types = np.asarray(out.PointData["CriticalType"])
    assert np.array_equal(ids, ref.critical), (label, ids[:10], ref.critical[:10])
    assert np.array_equal(types, ref.types[ids]), label
    assert np.array_equal(np.asarray(out.PointData["IsOnBoundary"]).astype(bool),
                          ref.on_boundary[ids]), label
    print("%s: %d critical points as the oracle" % (label, len(ids)))


def case_zero_copy():
    dims = (6, 5, 4)
    n = dims[0] * dims[1] * dims[2]
    rng = np.random.default_rng(3)
    values = rng.random(n)
    for dimension in (3, 2):
        d = dims if dimension == 3 else (dims[0], dims[1], 1)
        count = d[0] * d[1] * d[2]
        cells = np.asarray(oracle.grid_cells(d), dtype=np.int64)
        # shuffled vertex order inside each cell: orientation is the input's business
        cells = np.array([rng.permutation(c) for c in cells])
        cell_type = VTK_TETRA if dimension == 3 else VTK_TRIANGLE
        for storage in ("32", "64"):
            for extra in (False, True):
                grid = vtkUnstructuredGrid()
                grid.SetPoints(points(count, 5))
                array = vtkCellArray()
                if storage == "64":
                    array.Use64BitStorage()
                else:
                    array.Use32BitStorage()
                for c in cells:
                    array.InsertNextCell(len(c), [int(i) for i in c])
                types = [cell_type] * len(cells)
                if extra:  # a vertex cell: skipped, so the cells are copied
                    array.InsertNextCell(1, [0])
                    types.append(VTK_VERTEX)
                grid.SetCells(types, array)
                add_scalar(grid, values[:count])
                check(grid, cells, "%dD ugrid %s-bit%s" % (dimension, storage,
                                                           " + vertex cell" if extra else ""))
        poly = vtkPolyData()
        if dimension == 2:
            poly.SetPoints(points(count, 5))
            array = vtkCellArray()
            for c in cells:
                array.InsertNextCell(3, [int(i) for i in c])
            poly.SetPolys(array)
            add_scalar(poly, values[:count])
            check(poly, cells, "2D poly data")


globals()["case_" + CASE]()
print("%s: ok" % CASE)
