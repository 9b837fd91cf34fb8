"""The TopoGPU Persistence Diagram filter (TTK's PersistenceDiagram) against oracles:

  * the CLI, `topogpu persistence --out x.vtu` on the same file (a separate front end
    reading it itself): port 0 must equal its .vtu row for row, every point and cell
    array and the points, on a random 3D image, a 2D image, a tet mesh with a tunnel,
    and with Complex = Cubical (`--complex cubical`);
  * GUDHI's lower-star persistence of the same simplices (tests/oracles/
    simplicial_persistence.py, no project code): the multisets of finite pairs (PairType,
    Birth, Death) with Death > Birth and of essential classes (PairType, Birth);
  * port 1, TTK's persistence curves, against counts of GUDHI's pairs: at each
    positive Persistence the number of finite pairs of at least that persistence, per
    type and for all pairs;
  * bad input (NaN, a 3-component array, an empty image, a negative Memory Budget): an
    error naming the problem and empty outputs; the documentation.

Usage: pvpython persistence_diagram_test.py PLUGIN DATA_DIR CASE  (TOPOGPU_CLI: the CLI)
"""
import collections
import os
import subprocess
import sys
import tempfile

import numpy as np

from paraview import servermanager
from vtkmodules.util import numpy_support
from vtkmodules.vtkCommonDataModel import vtkImageData, vtkUnstructuredGrid
from vtkmodules.vtkIOXML import (vtkXMLImageDataWriter, vtkXMLUnstructuredGridReader,
                                 vtkXMLUnstructuredGridWriter)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import pv_helpers  # noqa: E402
from pv_helpers import Messages, documented_properties  # noqa: E402
import simplicial_persistence as oracle  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())
from paraview.simple import TrivialProducer  # noqa: E402

CLI = os.environ.get("TOPOGPU_CLI", "")
POINT_ARRAYS = ("ttkVertexScalarField", "CriticalType", "Coordinates")
CELL_ARRAYS = ("PairIdentifier", "PairType", "Persistence", "Birth", "Death", "IsFinite")


def arrays(grid):
    """The diagram's points and arrays as numpy arrays."""
    out = {"points": numpy_support.vtk_to_numpy(grid.GetPoints().GetData())}
    for names, data in ((POINT_ARRAYS, grid.GetPointData()), (CELL_ARRAYS, grid.GetCellData())):
        for name in names:
            array = data.GetArray(name)
            assert array is not None, "the diagram has no array %s" % name
            out[name] = numpy_support.vtk_to_numpy(array)
    conn = [[grid.GetCell(c).GetPointId(k) for k in range(2)]
            for c in range(grid.GetNumberOfCells())]
    out["cells"] = np.array(conn)
    return out


def producer(data):
    source = TrivialProducer()
    source.GetClientSideObject().SetOutput(data)
    return source


def image(values, spacing=(0.5, 1.0, 2.0), origin=(1.0, -2.0, 3.0)):
    """A vtkImageData of values ([z, y, x]) as the point scalar "f"."""
    img = vtkImageData()
    img.SetDimensions(values.shape[2], values.shape[1], values.shape[0])
    img.SetSpacing(*spacing)
    img.SetOrigin(*origin)
    a = numpy_support.numpy_to_vtk(np.ascontiguousarray(values.ravel()), deep=1)
    a.SetName("f")
    img.GetPointData().AddArray(a)
    img.GetPointData().SetActiveScalars("f")
    return img


def tet_mesh(values, nx, ny, nz, removed):
    """TTK's split of an nx x ny x nz grid without the voxels in removed ((x, y, z)):
    the tets as given to GUDHI, and the mesh."""
    tets = []
    for z in range(nz - 1):
        for y in range(ny - 1):
            for x in range(nx - 1):
                voxel = oracle.freudenthal_tets(2, 2, 2)
                if (x, y, z) in removed:
                    continue
                local = [(i & 1, (i >> 1) & 1, i >> 2) for i in range(8)]
                ids = [(x + a) + nx * ((y + b) + ny * (z + c)) for a, b, c in local]
                tets += [tuple(ids[v] for v in tet) for tet in voxel]
    mesh = vtkUnstructuredGrid()
    from vtkmodules.vtkCommonCore import vtkPoints
    points = vtkPoints()
    points.SetDataTypeToDouble()
    for z in range(nz):
        for y in range(ny):
            for x in range(nx):
                points.InsertNextPoint(x, y, 0.5 * z)
    mesh.SetPoints(points)
    for tet in tets:
        mesh.InsertNextCell(10, 4, tet)
    a = numpy_support.numpy_to_vtk(np.ascontiguousarray(values, dtype=np.float64), deep=1)
    a.SetName("f")
    mesh.GetPointData().AddArray(a)
    return tets, mesh


def write(data, path):
    writer = vtkXMLImageDataWriter() if isinstance(data, vtkImageData) \
        else vtkXMLUnstructuredGridWriter()
    writer.SetFileName(path)
    writer.SetInputData(data)
    assert writer.Write() == 1, path


def cli_diagram(data, *options):
    """`topogpu persistence` on data written to a file, its .vtu read back."""
    assert CLI and os.path.exists(CLI), "TOPOGPU_CLI is not set: the CLI comparison needs it"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "in.vti" if isinstance(data, vtkImageData) else "in.vtu")
        write(data, path)
        out = os.path.join(tmp, "d.vtu")
        run = subprocess.run([CLI, "persistence", "--mesh", path, "--array", "f",
                              "--backend", "cpu", "--out", out, *options],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        reader = vtkXMLUnstructuredGridReader()
        reader.SetFileName(out)
        reader.Update()
        return arrays(reader.GetOutput())


def run_filter(data, **properties):
    properties.setdefault("Backend", "CPU")
    f = TopoGPUPersistenceDiagram(Input=producer(data), ScalarField=["POINTS", "f"],  # noqa: F405
                                  **properties)
    messages = Messages(f)
    f.UpdatePipeline()
    assert not messages.errors, messages.errors
    diagram = servermanager.Fetch(f, idx=0)
    curves = servermanager.Fetch(f, idx=1)
    return arrays(diagram), curves, diagram


def same_as_cli(name, ours, theirs):
    for key in ("points", "cells") + POINT_ARRAYS + CELL_ARRAYS:
        assert ours[key].shape == theirs[key].shape and np.array_equal(ours[key], theirs[key]), \
            "%s: %s differs from the CLI's .vtu: %s vs %s" % (name, key, ours[key][:8],
                                                              theirs[key][:8])


def same_as_gudhi(name, ours, tops, values):
    finite, essential = oracle.gudhi_diagram(tops, values)
    rows = ours["PairIdentifier"] >= 0
    t, b, d, fin = (ours[k][rows] for k in ("PairType", "Birth", "Death", "IsFinite"))
    mine = collections.Counter((int(t[i]), b[i], d[i]) for i in range(len(t))
                               if fin[i] and d[i] > b[i])
    theirs = collections.Counter(finite)
    assert mine == theirs, "%s: finite pairs: ours-GUDHI %s, GUDHI-ours %s" % (
        name, list((mine - theirs).items())[:5], list((theirs - mine).items())[:5])
    mine_e = collections.Counter((int(t[i]), b[i]) for i in range(len(t)) if not fin[i])
    assert mine_e == collections.Counter(essential), (name, mine_e, essential)
    return finite


def curves_as_gudhi(name, curves, finite, dimension):
    """Port 1 against GUDHI's pairs: at each positive persistence p, the pairs of
    persistence >= p, per TTK curve."""
    column = lambda n: numpy_support.vtk_to_numpy(curves.GetColumnByName(n))  # noqa: E731
    p = column("Persistence")
    gudhi_p = np.array([dd - bb for _, bb, dd in finite])
    dims = np.array([k for k, _, _ in finite])
    assert set(p[p > 0]) == set(gudhi_p), "%s: the curve's values are not GUDHI's" % name
    wanted = {"minimum-saddle pairs": [0], "saddle-saddle pairs": [1] if dimension == 3 else [],
              "saddle-maximum pairs": [dimension - 1], "all pairs": list(range(dimension))}
    for label, ks in wanted.items():
        counts = column("Number Of Pairs (%s)" % label)
        sel = gudhi_p[np.isin(dims, ks)]
        expect = np.array([(sel >= x).sum() for x in p[p > 0]])
        assert np.array_equal(counts[p > 0], expect), (name, label, counts[p > 0], expect)


def image_case(name, values):
    data = image(values)
    ours, curves, _ = run_filter(data)
    same_as_cli(name, ours, cli_diagram(data))
    nz, ny, nx = values.shape
    finite = same_as_gudhi(name, ours, oracle.grid_simplices(nx, ny, nz),
                           values.ravel().astype(np.float64))
    curves_as_gudhi(name, curves, finite, 3 if nz > 1 else 2)
    # Coordinates: the vertex's position in the image
    v = ours["ttkVertexScalarField"][:-2]
    x, y, z = v % nx, (v // nx) % ny, v // (nx * ny)
    expect = np.c_[1.0 + 0.5 * x, -2.0 + 1.0 * y, 3.0 + 2.0 * z].astype(np.float32)
    assert np.array_equal(ours["Coordinates"][:-2], expect), name
    print("%s: %d pairs as the CLI's and GUDHI's" % (name, len(v) // 2))


def case_image3d():
    image_case("image3d", np.random.default_rng(3).random((5, 6, 7)).astype(np.float32))


def case_image2d():
    image_case("image2d", np.random.default_rng(4).random((1, 9, 11)).astype(np.float32))


def case_mesh():
    nx, ny, nz = 4, 4, 3
    values = np.random.default_rng(5).random(nx * ny * nz)
    tets, mesh = tet_mesh(values, nx, ny, nz, {(1, 1, 0), (1, 1, 1)})
    ours, curves, _ = run_filter(mesh)
    same_as_cli("mesh", ours, cli_diagram(mesh))
    finite = same_as_gudhi("mesh", ours, tets, values)
    curves_as_gudhi("mesh", curves, finite, 3)
    # the same diagram on every triangulation backend (GALE's cell ids differ; the
    # diagram names vertices only)
    for backend in ("Explicit", "GALE (CPU producers)"):
        other, _, _ = run_filter(mesh, Triangulation=backend)
        same_as_cli("mesh, %s" % backend, other, ours)
    essential = ours["PairType"][(ours["IsFinite"] == 0) & (ours["PairIdentifier"] >= 0)]
    assert sorted(essential) == [0, 1], "the tunnel's essential class: %s" % essential
    print("mesh: %d tets, the tunnel's essential 1-cycle" % len(tets))


def case_cubical():
    for shape in ((5, 6, 7), (1, 8, 9)):
        values = np.random.default_rng(6).integers(0, 6, shape).astype(np.uint8)
        data = image(values)
        ours, _, _ = run_filter(data, Complex="Cubical")
        same_as_cli("cubical %s" % (shape,), ours, cli_diagram(data, "--complex", "cubical"))
        simplicial, _, _ = run_filter(data)
        assert not np.array_equal(simplicial["PairType"], ours["PairType"]) or \
            not np.array_equal(simplicial["Birth"], ours["Birth"]), \
            "Complex = Cubical gave the simplicial diagram"
    print("cubical: as the CLI's --complex cubical, not the simplicial diagram")


def case_backends():
    """Backend Auto and GPU (on the device where there is one, else the CPU with a
    warning) give the CPU's diagram, both complexes; TopoGPUBackend names what ran."""
    data = image(np.random.default_rng(10).random((12, 13, 14)).astype(np.float32))
    for complex_ in ("Simplicial", "Cubical"):
        cpu, _, _ = run_filter(data, Complex=complex_)
        for backend in ("Auto", "GPU"):
            ours, _, grid = run_filter(data, Complex=complex_, Backend=backend)
            same_as_cli("%s %s" % (complex_, backend), ours, cpu)
            ran = grid.GetFieldData().GetAbstractArray("TopoGPUBackend").GetValue(0)
            print("%s, Backend %s: ran on %s, the CPU's diagram" % (complex_, backend, ran))


def case_bad_inputs():
    values = np.random.default_rng(7).random((3, 4, 5))
    nan = values.copy()
    nan[1, 2, 3] = np.nan
    vector = image(values)
    v3 = numpy_support.numpy_to_vtk(np.random.default_rng(8).random((60, 3)), deep=1)
    v3.SetName("v")
    vector.GetPointData().AddArray(v3)
    empty = vtkImageData()
    cases = [(image(nan), {"ScalarField": ["POINTS", "f"]}, "NaN"),
             (vector, {"ScalarField": ["POINTS", "v"]}, "'v'"),
             (empty, {}, "empty"),
             (image(values), {"MemoryBudget": -1.0}, "Memory Budget must be >= 0 MiB"),
             (image(values), {"MemoryBudget": 1e-6}, "budget")]
    for data, properties, needle in cases:
        f = TopoGPUPersistenceDiagram(Input=producer(data), **properties)  # noqa: F405
        messages = Messages(f)
        f.UpdatePipeline()
        assert any(needle in e for e in messages.errors), (needle, messages.errors)
        assert servermanager.Fetch(f, idx=0).GetNumberOfPoints() == 0, needle
        assert servermanager.Fetch(f, idx=1).GetNumberOfRows() == 0, needle
        print("bad input %r: %s" % (needle, messages.errors[0].strip().splitlines()[-1][:150]))


def case_progress_abort():
    """Progress rises through the run; an abort (at 0.3, in the Morse-Smale complex, and
    at 0.88, in the pairing: the core's 0.9 to 1 of the bar's 0.1 to 0.95) gives empty
    outputs and no error; the next run is whole again."""
    data = image(np.random.default_rng(9).random((30, 30, 30)).astype(np.float32))
    f = TopoGPUPersistenceDiagram(Input=producer(data), Backend="CPU")  # noqa: F405
    # the diagram's cells and the curve's rows: both empty after an abort
    inner, full = pv_helpers.check_progress_and_abort(
        f, Messages(f), [0.3, 0.88],
        lambda p: (servermanager.Fetch(p, idx=0).GetNumberOfCells(),
                   servermanager.Fetch(p, idx=1).GetNumberOfRows()))
    assert full[0] > 1, "no pairs"
    print("progress_abort: %d steps %s, aborts honoured" % (len(set(inner)),
                                                           sorted(set(inner))[-3:]))


def case_documentation():
    f = TopoGPUPersistenceDiagram(Input=producer(image(np.zeros((2, 2, 2)))))  # noqa: F405
    names = documented_properties(f)
    assert {"Input", "SelectInputScalars", "Complex", "Triangulation", "MemoryBudget",
            "Backend"} <= set(names), names
    doc = f.SMProxy.GetDocumentation()
    text = " ".join(doc.GetDescription().split())
    assert "TTK's PersistenceDiagram" in text and "topogpu persistence" in text, text
    for array in ("PairIdentifier", "PairType", "Persistence", "IsFinite",
                  "ttkVertexScalarField", "CriticalType", "Coordinates", "Number Of Pairs"):
        assert array in text, array
    # TTK's property name for the input array in pvpython
    assert f.ListProperties().count("ScalarField") == 1, f.ListProperties()
    complex_doc = f.GetProperty("Complex").SMProperty.GetDocumentation().GetDescription()
    assert "Simplicial" in complex_doc and "(default)" in complex_doc, complex_doc
    print("documentation: %d properties" % len(names))


pv_helpers.run_case(globals(), CASE)
