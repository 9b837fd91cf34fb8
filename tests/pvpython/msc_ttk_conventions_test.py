"""pvpython checks that the Morse-Smale Complex filter's ports 0-2 follow TTK 1.2's
conventions: output types (ports 0-2 vtkPolyData, port 3 the input's type) and, per
port, TTK 1.2's array names and VTK types (written here from TTK 1.2's
ttkMorseSmaleComplex.cpp: CellDimension / IsOnBoundary / SeparatrixType /
NumberOfCriticalPointsOnBoundary / ttkMaskScalarField signed char, the separatrices'
SeparatrixFunctionMaximum/Minimum/Difference double, the ids TTK's SimplexId arrays,
the critical points' value array named and typed as the input scalar); and that the
function range of each separatrix is the input field's values at its two ends; and that
`topogpu msc --separatrices-out` writes what port 1 holds.

Oracle for the values: the input's own cells, in numpy. Each separatrix's first and last
points are located among the barycentres of the input's simplices (a tet mesh whose
points are jittered, so barycentres are distinct) or the centres of the grid's cubical
cells, and the end's value is the largest input value over that cell's vertices.

Usage: pvpython msc_ttk_conventions_test.py PLUGIN DATA_DIR CASE  (TOPOGPU_CLI: the CLI)
"""
import itertools
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402
from pv_helpers import Messages  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
from freudenthal import freudenthal_tets  # noqa: E402
from paraview import servermanager  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa  # noqa: E402
from vtkmodules.util import numpy_support  # noqa: E402
from vtkmodules.vtkCommonCore import (VTK_CHAR, VTK_DOUBLE, VTK_FLOAT, VTK_INT,  # noqa: E402
                                       VTK_SIGNED_CHAR, vtkPoints)
from vtkmodules.vtkCommonDataModel import (VTK_LINE, vtkCellArray,  # noqa: E402
                                            vtkUnstructuredGrid)
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())

# TTK 1.2's arrays per port: name -> VTK class ("SimplexId": TTK's id array, an integer
# array; "input": the input scalar's class).
TTK_POINTS0 = {"CellDimension": "vtkSignedCharArray", "CellId": "SimplexId",
               "s": "input", "IsOnBoundary": "vtkSignedCharArray",
               "ttkVertexScalarField": "SimplexId", "ManifoldSize": "SimplexId"}
TTK_POINTS1 = {"ttkMaskScalarField": "vtkSignedCharArray",
               "CellDimension": "vtkSignedCharArray", "CellId": "SimplexId"}
TTK_CELLS1 = {"SourceId": "SimplexId", "DestinationId": "SimplexId",
              "SeparatrixId": "SimplexId", "SeparatrixType": "vtkSignedCharArray",
              "SeparatrixFunctionMaximum": "vtkDoubleArray",
              "SeparatrixFunctionMinimum": "vtkDoubleArray",
              "SeparatrixFunctionDifference": "vtkDoubleArray",
              "NumberOfCriticalPointsOnBoundary": "vtkSignedCharArray"}
TTK_CELLS2 = {"SourceId": "SimplexId", "SeparatrixId": "SimplexId",
              "SeparatrixType": "vtkSignedCharArray",
              "SeparatrixFunctionMaximum": "vtkDoubleArray",
              "SeparatrixFunctionMinimum": "vtkDoubleArray",
              "SeparatrixFunctionDifference": "vtkDoubleArray",
              "NumberOfCriticalPointsOnBoundary": "vtkSignedCharArray"}
INTEGER_ARRAYS = ("vtkIdTypeArray", "vtkIntArray", "vtkLongArray", "vtkLongLongArray")


def run(source, **properties):
    # the whole complex (PersistenceThreshold 0), as TTK's and the CLI's
    msc = TopoGPUMorseSmaleComplex(Input=source, PersistenceThreshold=0)  # noqa: F405
    messages = Messages(msc)
    msc.SelectInputScalars = ["POINTS", "s"]
    for key, value in properties.items():
        setattr(msc, key, value)
    msc.UpdatePipeline()
    out = [servermanager.Fetch(msc, idx=p) for p in range(4)]
    assert not messages.errors, messages.errors
    Delete(msc)  # noqa: F405
    return out


def check_arrays(attributes, expected, input_class, where):
    for name, kind in expected.items():
        array = attributes.GetArray(name)
        assert array is not None, "%s: no array %s" % (where, name)
        got = array.GetClassName()
        if kind == "SimplexId":
            assert got in INTEGER_ARRAYS, (where, name, got)
        elif kind == "input":
            assert array.GetDataType() == input_class, (where, name, got, input_class)
        else:
            assert got == kind, (where, name, got, kind)
        assert array.GetNumberOfComponents() == 1, (where, name)


def check_types(out, input_type, port3_class, walls):
    """input_type: the input scalar's VTK data type (VTK_FLOAT, ...)."""
    input_class = input_type
    for port in range(3):
        assert out[port].GetClassName() == "vtkPolyData", (port, out[port].GetClassName())
    assert out[3].GetClassName() == port3_class, out[3].GetClassName()
    check_arrays(out[0].GetPointData(), TTK_POINTS0, input_class, "port 0 points")
    assert out[0].GetNumberOfVerts() == out[0].GetNumberOfPoints() > 0
    check_arrays(out[1].GetPointData(), TTK_POINTS1, input_class, "port 1 points")
    check_arrays(out[1].GetCellData(), TTK_CELLS1, input_class, "port 1 cells")
    # TTK's 1-separatrices: a VTK_LINE of two points per V-path step, the separatrix's
    # cell data on each line (pv_helpers.separatrix_paths checks the rest of the layout)
    assert out[1].GetNumberOfLines() == out[1].GetNumberOfCells() > 0
    assert all(out[1].GetCellType(c) == VTK_LINE for c in range(out[1].GetNumberOfCells()))
    paths = pv_helpers.separatrix_paths(out[1])
    assert len(paths) < out[1].GetNumberOfCells(), "no separatrix of several steps"
    if walls:
        check_arrays(out[2].GetCellData(), TTK_CELLS2, input_class, "port 2 cells")
        assert out[2].GetNumberOfPolys() == out[2].GetNumberOfCells() > 0


def check_ranges(out, value_at):
    """SeparatrixFunctionMaximum/Minimum/Difference against value_at(point) of each
    separatrix's two ends; the critical points' value array against value_at too."""
    sep = dsa.WrapDataObject(out[1])
    points = np.asarray(sep.Points)
    mask = np.asarray(sep.PointData["ttkMaskScalarField"])
    high = np.asarray(sep.CellData["SeparatrixFunctionMaximum"])
    low = np.asarray(sep.CellData["SeparatrixFunctionMinimum"])
    diff = np.asarray(sep.CellData["SeparatrixFunctionDifference"])
    lines = pv_helpers.separatrix_paths(out[1])
    assert len(lines) > 0
    for i, ids in lines:
        a, b = value_at(points[ids[0]]), value_at(points[ids[-1]])
        assert high[i] == max(a, b) and low[i] == min(a, b), (i, high[i], low[i], a, b)
        assert diff[i] == high[i] - low[i], i
        assert mask[ids[0]] == 0 and mask[ids[-1]] == 0 and np.all(mask[ids[1:-1]] == 1), i
    cp = dsa.WrapDataObject(out[0])
    values = np.asarray(cp.PointData["s"])
    for i, p in enumerate(np.asarray(cp.Points)):
        assert values[i] == value_at(p), (i, values[i], value_at(p))


def jittered_mesh(n, seed):
    rng = np.random.default_rng(seed)
    xyz = np.array([(x, y, z) for z in range(n) for y in range(n) for x in range(n)], float)
    xyz += rng.uniform(-0.2, 0.2, xyz.shape)
    tets = np.asarray(freudenthal_tets(n, n, n), dtype=np.int64)
    values = rng.permutation(len(xyz)).astype(np.float64)
    ug = vtkUnstructuredGrid()
    pts = vtkPoints()
    pts.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(xyz), deep=1))
    ug.SetPoints(pts)
    flat = np.hstack([np.full((len(tets), 1), 4), tets]).ravel()
    cells = vtkCellArray()
    cells.ImportLegacyFormat(numpy_support.numpy_to_vtkIdTypeArray(flat, deep=1))
    ug.SetCells(10, cells)
    return pv_helpers.scalar_producer(ug, values), xyz, tets, values


def case_mesh():
    """A tet mesh: simplicial complex, TTK's types; ranges at the simplices' ends."""
    source, xyz, tets, values = jittered_mesh(6, 3)
    out = run(source, ComputeSaddleConnectors=1)
    check_types(out, VTK_DOUBLE, "vtkUnstructuredGrid", walls=False)
    # every face of every tet, keyed by its barycentre
    table = {}
    for tet in tets:
        for k in range(1, 5):
            for face in itertools.combinations(sorted(tet), k):
                key = tuple(np.round(xyz[list(face)].mean(axis=0), 6))
                assert table.setdefault(key, face) == face, "barycentres collide"

    def value_at(p):
        return max(values[v] for v in table[tuple(np.round(p, 6))])
    check_ranges(out, value_at)
    # ttkVertexScalarField: the critical simplex's vertex that carries its value
    cp = dsa.WrapDataObject(out[0])
    vertex = np.asarray(cp.PointData["ttkVertexScalarField"])
    for i, p in enumerate(np.asarray(cp.Points)):
        face = table[tuple(np.round(p, 6))]
        assert vertex[i] in face and values[vertex[i]] == value_at(p), (i, vertex[i], face)


def case_cubical_image():
    """A 3D image on the cubical complex with its walls: TTK's types on ports 0-2 (port 2
    included), ranges at the cells' ends (a cell's vertices: the grid points around its
    centre)."""
    dims = (7, 6, 5)
    rng = np.random.default_rng(11)
    values = rng.standard_normal(dims[0] * dims[1] * dims[2]).astype(np.float32)
    source, _ = pv_helpers.image_source(dims, values)
    out = run(source, Complex="Cubical", ComputeSaddleConnectors=1,
              ComputeAscendingSeparatrices2=1, ComputeDescendingSeparatrices2=1)
    check_types(out, VTK_FLOAT, "vtkImageData", walls=True)
    grid = values.reshape(dims[::-1])  # z, y, x

    def value_at(p):
        lo, hi = np.floor(p).astype(int), np.ceil(p).astype(int)
        return grid[lo[2]:hi[2] + 1, lo[1]:hi[1] + 1, lo[0]:hi[0] + 1].max()
    check_ranges(out, value_at)
    # port 2: each wall's range covers its polygons' corners that are grid vertices
    walls = dsa.WrapDataObject(out[2])
    high = np.asarray(walls.CellData["SeparatrixFunctionMaximum"])
    low = np.asarray(walls.CellData["SeparatrixFunctionMinimum"])
    assert np.all(low <= high)


def case_simplicial_image():
    """A 2D image on the simplicial complex (the default): TTK's types, and the
    saddle-extremum ranges against the triangles' vertices found geometrically (the
    ends' cells are the grid points within the unit square around their barycentre whose
    mean is the barycentre, taken along the triangulation's diagonals)."""
    dims = (9, 8, 1)
    rng = np.random.default_rng(5)
    values = rng.permutation(dims[0] * dims[1]).astype(np.int32)
    source, _ = pv_helpers.image_source(dims, values)
    out = run(source, Complex="Simplicial")
    check_types(out, VTK_INT, "vtkImageData", walls=False)
    grid = values.reshape(dims[1], dims[0])
    corners = [np.array(c) for c in itertools.product((0, 1), repeat=2)]

    def value_at(p):
        base = np.floor(p[:2] - 1e-9).astype(int)
        base = np.clip(base, 0, [dims[0] - 2, dims[1] - 2])
        candidates = []
        for k in range(1, 4):
            for subset in itertools.combinations(corners, k):
                pts = np.array([base + c for c in subset])
                if np.allclose(pts.mean(axis=0), p[:2]):
                    candidates.append(max(grid[q[1], q[0]] for q in pts))
        # an edge's midpoint on a square's centre is one of the two diagonals: both
        # share nothing, so only the triangulation knows; skip such a point
        return candidates[0] if len(set(candidates)) == 1 else None
    sep = dsa.WrapDataObject(out[1])
    points = np.asarray(sep.Points)
    high = np.asarray(sep.CellData["SeparatrixFunctionMaximum"])
    low = np.asarray(sep.CellData["SeparatrixFunctionMinimum"])
    checked = 0
    paths = pv_helpers.separatrix_paths(out[1])
    for i, ids in paths:
        a, b = value_at(points[ids[0]]), value_at(points[ids[-1]])
        if a is None or b is None:
            continue
        assert high[i] == max(a, b) and low[i] == min(a, b), (i, high[i], low[i], a, b)
        checked += 1
    assert checked > len(paths) // 2, (checked, len(paths))


def case_cli():
    """The CLI's --separatrices-out file (a separate front end, written from the core's
    records) equals port 1 on the same field, both complexes: counts, every cell array,
    the line cells and their points; and its .vtp file, read back by VTK, holds port 1's
    arrays with their types."""
    cli = os.environ.get("TOPOGPU_CLI", "")
    if not cli:
        print("cli: no TOPOGPU_CLI, skipped")
        return
    dims = (8, 7, 6)
    values = np.random.default_rng(2).integers(0, 5, dims[0] * dims[1] * dims[2])
    values = values.astype(np.uint8)
    source, _ = pv_helpers.image_source(dims, values)
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "f.raw")
        values.tofile(raw)
        for complex_ in ("Simplicial", "Cubical"):
            def write(path):
                r = subprocess.run([cli, "msc", "--raw", raw, "--dims", "8,7,6", "--type",
                                    "uint8", "--complex", complex_.lower(),
                                    "--separatrices-out", path], capture_output=True,
                                   text=True, timeout=120)
                assert r.returncode == 0, r.stderr
            path = os.path.join(tmp, complex_ + ".json")
            write(path)
            with open(path) as f:
                sep = json.load(f)
            out = run(source, Complex=complex_, ComputeSaddleConnectors=1)
            poly = dsa.WrapDataObject(out[1])
            assert sep["count"] == out[1].GetNumberOfLines() > 0, complex_
            assert sep["separatrices"] == len(pv_helpers.separatrix_paths(out[1])), complex_
            for name, values_ in sep["cell_data"].items():
                assert np.array_equal(np.asarray(poly.CellData[name]), values_), name
            for name, values_ in sep["point_data"].items():
                assert np.array_equal(np.asarray(poly.PointData[name]), values_), name
            lines = out[1].GetLines()
            assert np.array_equal(numpy_support.vtk_to_numpy(lines.GetConnectivityArray()),
                                  sep["connectivity"])
            assert np.allclose(np.asarray(poly.Points).ravel(), sep["points"])
            # the .vtp file: port 1 itself, read back by VTK's reader
            vtp = os.path.join(tmp, complex_ + ".vtp")
            write(vtp)
            reader = vtkXMLPolyDataReader()
            reader.SetFileName(vtp)
            reader.Update()
            read = reader.GetOutput()
            assert read.GetNumberOfLines() == out[1].GetNumberOfLines()
            for data, theirs in ((read.GetCellData(), out[1].GetCellData()),
                                 (read.GetPointData(), out[1].GetPointData())):
                assert data.GetNumberOfArrays() == theirs.GetNumberOfArrays()
                for k in range(theirs.GetNumberOfArrays()):
                    a = theirs.GetArray(k)
                    b = data.GetArray(a.GetName())
                    # (VTK's XML reader gives signed char back as char: same bytes)
                    assert b is not None and b.GetDataTypeSize() == a.GetDataTypeSize() \
                        and (a.GetDataType() in (VTK_CHAR, VTK_SIGNED_CHAR)
                             or b.GetDataType() == a.GetDataType()), a.GetName()
                    assert np.array_equal(numpy_support.vtk_to_numpy(a),
                                          numpy_support.vtk_to_numpy(b)), a.GetName()


def case_segmentation_rule():
    """Port 3 on the simplicial complex follows TTK 1.2's rule by default: the point and
    cell AscendingManifold, DescendingManifold and MorseSmaleManifold equal the CLI's
    --details (which cli.msc_ttk_segmentation checks against a brute force of TTK's
    rule), UnlabelledVertices counts the -1s (some); AscendingThroughBoundary labels
    every vertex and leaves ports 0 and 1 and DescendingManifold as they were."""
    cli = os.environ.get("TOPOGPU_CLI", "")
    if not cli:
        print("segmentation_rule: no TOPOGPU_CLI, skipped")
        return
    dims = (7, 6, 5)
    values = np.random.default_rng(11).integers(0, 6, int(np.prod(dims))).astype(np.uint8)
    source, _ = pv_helpers.image_source(dims, values)
    with tempfile.TemporaryDirectory() as tmp:
        raw, path = os.path.join(tmp, "f.raw"), os.path.join(tmp, "details.json")
        values.tofile(raw)
        r = subprocess.run([cli, "msc", "--raw", raw, "--dims", "7,6,5", "--type", "uint8",
                            "--details", path], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        with open(path) as f:
            details = json.load(f)
    ttk = run(source)
    seg = dsa.WrapDataObject(ttk[3])
    for name in ("AscendingManifold", "DescendingManifold", "MorseSmaleManifold"):
        assert np.array_equal(np.asarray(seg.PointData[name]), details[name]), name
    ascending = np.asarray(seg.PointData["AscendingManifold"])
    unlabelled = int(np.asarray(dsa.WrapDataObject(ttk[0]).FieldData["UnlabelledVertices"])[0])
    assert unlabelled == int((ascending < 0).sum()) > 0, unlabelled
    assert np.asarray(seg.PointData["MorseSmaleManifold"]).min() >= 0
    wide = run(source, AscendingThroughBoundary=1)
    wide_seg = dsa.WrapDataObject(wide[3])
    assert np.asarray(wide_seg.PointData["AscendingManifold"]).min() >= 0
    assert np.array_equal(np.asarray(wide_seg.PointData["DescendingManifold"]),
                          details["DescendingManifold"])
    for port in (0, 1):
        a, b = dsa.WrapDataObject(ttk[port]), dsa.WrapDataObject(wide[port])
        assert np.array_equal(np.asarray(a.Points), np.asarray(b.Points)), port
        for name in ("CellDimension", "CellId"):
            assert np.array_equal(np.asarray(a.PointData[name]),
                                  np.asarray(b.PointData[name])), (port, name)
    print("segmentation_rule: %d of %d vertices unlabelled (TTK's rule), as the CLI"
          % (unlabelled, len(ascending)))


pv_helpers.run_case(globals(), CASE)
