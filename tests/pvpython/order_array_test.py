"""TTK's vertex order arrays (`<field>_Order`) read by the filters and the CLI.

A tie-heavy field (three distinct values) carries an order array that breaks its ties by
a hidden random field, not by vertex id. With it:

  * the Critical Points filter and `topogpu critical-points` equal a brute-force lower /
    upper link count (tests/pvpython/cp_oracle.py) on the order's ranks;
  * the Persistence Diagram filter and `topogpu persistence` equal GUDHI's lower-star
    persistence (tests/oracles/simplicial_persistence.py) with the ranks as the
    filtration: every pair's two vertices, its type, and its Birth / Death read from the
    field at those vertices;
  * the Discrete Gradient (simplicial, cubical) and Morse-Smale Complex filters' critical
    vertices are the order's minima (the brute force; on the cubical complex, an empty
    lower link among the axis neighbours);
  * all differ from the run without the order array (ties by vertex id), so the test
    cannot pass by ignoring it;
  * bad order arrays (a rank twice, a rank out of range, the wrong size, a float array,
    ranks against the values) give an error naming the array and the problem, and an
    empty output, in the filters and in the CLI (exit 1; a short array cannot be
    written to a .vti).

Usage: pvpython order_array_test.py PLUGIN DATA_DIR CASE  (TOPOGPU_CLI: the CLI)
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from paraview import servermanager
from vtkmodules.util import numpy_support
from vtkmodules.vtkCommonDataModel import vtkImageData
from vtkmodules.vtkIOXML import vtkXMLImageDataWriter, vtkXMLUnstructuredGridReader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import cp_oracle  # noqa: E402
import pv_helpers  # noqa: E402
from pv_helpers import Messages  # noqa: E402
import simplicial_persistence as persistence_oracle  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())
from paraview.simple import TrivialProducer  # noqa: E402

CLI = os.environ.get("TOPOGPU_CLI", "")
SHAPES = {"3d": (6, 7, 8), "2d": (1, 11, 13)}  # [z, y, x]


def tie_heavy(shape, seed):
    """Values with three levels and the ranks of (value, hidden random field)."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 3, shape).astype(np.float32).ravel()
    hidden = rng.permutation(values.size)
    order = np.lexsort((hidden, values))
    ranks = np.empty(values.size, dtype=np.int64)
    ranks[order] = np.arange(values.size)
    return values, ranks


def image(shape, values, ranks=None, order_name="f_Order", order_type=np.int64):
    img = vtkImageData()
    img.SetDimensions(shape[2], shape[1], shape[0])
    a = numpy_support.numpy_to_vtk(np.ascontiguousarray(values), deep=1)
    a.SetName("f")
    img.GetPointData().AddArray(a)
    img.GetPointData().SetActiveScalars("f")
    if ranks is not None:
        o = numpy_support.numpy_to_vtk(np.ascontiguousarray(ranks, dtype=order_type), deep=1)
        o.SetName(order_name)
        img.GetPointData().AddArray(o)
    return img


def producer(data):
    source = TrivialProducer()
    source.GetClientSideObject().SetOutput(data)
    return source


def dims_of(shape):
    return (shape[2], shape[1], shape[0])


def oracle_types(shape, ranks):
    """The brute-force critical vertices and types on the ranks (all distinct)."""
    ref = cp_oracle.classify(ranks, cp_oracle.grid_cells(dims_of(shape)), ranks.size)
    return ref.critical, ref.types[ref.critical], ref.counts


def gudhi_vertex_pairs(shape, ranks):
    """GUDHI's pairs of the ranks' lower-star filtration, as vertices (Counters)."""
    nz, ny, nx = shape
    finite, essential = persistence_oracle.gudhi_vertex_pairs(
        persistence_oracle.grid_simplices(nx, ny, nz), ranks)
    return collections.Counter(finite), collections.Counter(essential)


def critical_points(data):
    f = TopoGPUCriticalPoints(Input=producer(data), Backend="CPU")  # noqa: F405
    messages = Messages(f)
    f.UpdatePipeline()
    out = servermanager.Fetch(f)
    return out, messages


def diagram(data):
    f = TopoGPUPersistenceDiagram(Input=producer(data), ScalarField=["POINTS", "f"],  # noqa: F405
                                  Backend="CPU")
    messages = Messages(f)
    f.UpdatePipeline()
    return servermanager.Fetch(f, idx=0), messages


def order_taken(out):
    a = out.GetFieldData().GetAbstractArray("TopoGPUOrderArray")
    return a.GetValue(0) if a is not None else None


def cli(data, command, *options, expect_ok=True):
    """`topogpu COMMAND` on data written as a .vti; the JSON and, for persistence, the
    diagram read back."""
    assert CLI and os.path.exists(CLI), "TOPOGPU_CLI is not set"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "in.vti")
        writer = vtkXMLImageDataWriter()
        writer.SetFileName(path)
        writer.SetInputData(data)
        assert writer.Write() == 1
        out = os.path.join(tmp, "d.vtu")
        extra = ["--out", out] if command == "persistence" else []
        run = subprocess.run([CLI, command, "--mesh", path, "--array", "f", "--backend",
                              "cpu", "--json", *extra, *options],
                             capture_output=True, text=True, timeout=300)
        if not expect_ok:
            assert run.returncode == 1, (run.returncode, run.stdout, run.stderr)
            return json.loads(run.stdout)["error"], run.stderr
        assert run.returncode == 0, run.stderr
        result = json.loads(run.stdout)
        grid = None
        if command == "persistence":
            reader = vtkXMLUnstructuredGridReader()
            reader.SetFileName(out)
            reader.Update()
            grid = reader.GetOutput()
        return result, grid


def case_critical_points():
    for name, shape in SHAPES.items():
        values, ranks = tie_heavy(shape, 11)
        ids, types, counts = oracle_types(shape, ranks)
        out, messages = critical_points(image(shape, values, ranks))
        assert not messages.errors, messages.errors
        assert order_taken(out) == "f_Order", order_taken(out)
        got_ids = numpy_support.vtk_to_numpy(out.GetPointData().GetArray("ttkVertexScalarField"))
        got_types = numpy_support.vtk_to_numpy(out.GetPointData().GetArray("CriticalType"))
        assert np.array_equal(got_ids, ids), (name, got_ids[:10], ids[:10])
        assert np.array_equal(got_types, types), name
        plain, _ = critical_points(image(shape, values))
        plain_ids = numpy_support.vtk_to_numpy(
            plain.GetPointData().GetArray("ttkVertexScalarField"))
        assert order_taken(plain) is None
        assert not np.array_equal(plain_ids, ids), "%s: the order changes nothing" % name
        # the CLI: the same counts, and it says which array it took
        result, _ = cli(image(shape, values, ranks), "critical-points")
        assert result["order_array"] == "f_Order", result
        keys = ("minimum", "saddle1", "saddle2", "maximum", "degenerate", "regular")
        expect = {key: int(counts[t]) for t, key in enumerate(keys)}
        assert result["counts"] == expect, (name, result["counts"], expect)
        print("%s: %d critical points as the brute force, the CLI's counts too %s" % (
            name, len(ids), expect))
        plain_result, _ = cli(image(shape, values), "critical-points")
        assert "order_array" not in plain_result
        assert plain_result["counts"] != result["counts"], name


def case_persistence():
    for name, shape in SHAPES.items():
        values, ranks = tie_heavy(shape, 12)
        pairs, classes = gudhi_vertex_pairs(shape, ranks)
        out, messages = diagram(image(shape, values, ranks))
        assert not messages.errors, messages.errors
        ours, ours_classes = pv_helpers.diagram_vertex_pairs(out, values)
        assert ours == pairs, "%s: ours-GUDHI %s, GUDHI-ours %s" % (
            name, list((ours - pairs).items())[:5], list((pairs - ours).items())[:5])
        assert ours_classes == classes, (name, ours_classes, classes)
        plain, _ = diagram(image(shape, values))
        assert pv_helpers.diagram_vertex_pairs(plain, values)[0] != pairs, \
            "%s: the order changes nothing" % name
        # the CLI, with the automatic `f_Order` and with --order-array
        result, grid = cli(image(shape, values, ranks), "persistence")
        assert result["order_array"] == "f_Order", result
        assert pv_helpers.diagram_vertex_pairs(grid, values) == (pairs, classes), name
        result, grid = cli(image(shape, values, ranks, order_name="hidden"), "persistence",
                           "--order-array", "hidden")
        assert result["order_array"] == "hidden", result
        assert pv_helpers.diagram_vertex_pairs(grid, values) == (pairs, classes), name
        print("%s: %d pairs as GUDHI's on the ranks (filter, CLI, --order-array)" % (
            name, sum(pairs.values())))


def cubical_minima(shape, ranks):
    """Vertices ranked below each of their axis neighbours: the cubical complex's
    critical 0-cells (an empty lower link)."""
    r = ranks.reshape(shape)
    lowest = np.ones(shape, dtype=bool)
    for axis in range(3):
        if shape[axis] < 2:
            continue
        a = [slice(None)] * 3
        b = [slice(None)] * 3
        a[axis], b[axis] = slice(1, None), slice(None, -1)
        lowest[tuple(a)] &= r[tuple(a)] < r[tuple(b)]
        lowest[tuple(b)] &= r[tuple(b)] < r[tuple(a)]
    return np.flatnonzero(lowest.ravel())


def minima_of(proxy, port, id_array):
    out = servermanager.Fetch(proxy, idx=port)
    pd = out.GetPointData()
    dims = numpy_support.vtk_to_numpy(pd.GetArray("CellDimension"))
    ids = numpy_support.vtk_to_numpy(pd.GetArray(id_array))
    return np.sort(ids[dims == 0]), out


def case_gradient():
    """The Discrete Gradient (simplicial and cubical) and the Morse-Smale Complex
    (simplicial) filters: their critical vertices are the minima of the given order
    (the brute force's on TTK's tets; an empty axis-neighbour lower link on the cubical
    complex), not those of the vertex ids."""
    shape = SHAPES["3d"]
    values, ranks = tie_heavy(shape, 15)
    simplicial = np.sort(ids_of_type(shape, ranks, cp_oracle.MINIMUM))
    cubical = cubical_minima(shape, ranks)
    for name, make, expect in (
            ("gradient simplicial", lambda d: TopoGPUDiscreteGradient(  # noqa: F405
                Input=producer(d), Complex="Simplicial", Backend="CPU"), simplicial),
            ("gradient cubical", lambda d: TopoGPUDiscreteGradient(  # noqa: F405
                Input=producer(d), Complex="Cubical", Backend="CPU"), cubical),
            ("msc simplicial", lambda d: TopoGPUMorseSmaleComplex(  # noqa: F405
                Input=producer(d), Backend="CPU", PersistenceThreshold=0), simplicial)):
        id_array = "CellId" if name.startswith("msc") else "ttkVertexScalarField"
        got, out = minima_of(make(image(shape, values, ranks)), 0, id_array)
        assert np.array_equal(got, expect), (name, got[:10], expect[:10])
        assert order_taken(out) == "f_Order", name
        plain, _ = minima_of(make(image(shape, values)), 0, id_array)
        assert not np.array_equal(plain, expect), "%s: the order changes nothing" % name
        print("%s: %d minima, the order's" % (name, len(got)))


def ids_of_type(shape, ranks, kind):
    ref = cp_oracle.classify(ranks, cp_oracle.grid_cells(dims_of(shape)), ranks.size)
    return np.flatnonzero(ref.types == kind)


def case_stale_order():
    """The smoother replaces the field: its output drops the field's order array (which
    ranks the old values), so the critical points after it run on the smoothed field."""
    shape = SHAPES["3d"]
    values, ranks = tie_heavy(shape, 16)
    smooth = TopoGPUScalarFieldSmoother(Input=producer(image(shape, values, ranks)),  # noqa: F405
                                        NumberOfIterations=2, Backend="CPU")
    assert servermanager.Fetch(smooth).GetPointData().GetArray("f_Order") is None
    points = TopoGPUCriticalPoints(Input=smooth, Backend="CPU")  # noqa: F405
    messages = Messages(points)
    points.UpdatePipeline()
    assert not messages.errors, messages.errors
    out = servermanager.Fetch(points)
    assert out.GetNumberOfPoints() > 0 and order_taken(out) is None
    print("stale_order: the smoother's output has no f_Order; %d critical points after it"
          % out.GetNumberOfPoints())


def bad_orders():
    shape = SHAPES["3d"]
    values, ranks = tie_heavy(shape, 13)
    twice = ranks.copy()
    twice[ranks == 7] = 8  # rank 8 twice, 7 missing
    outside = ranks.copy()
    outside[ranks == 0] = ranks.size
    low, high = int(np.argmax(values == 0)), int(np.argmax(values == 2))
    against = ranks.copy()
    against[low], against[high] = ranks[high], ranks[low]
    short = image(shape, values)
    o = numpy_support.numpy_to_vtk(ranks[:-1].copy(), deep=1)
    o.SetName("f_Order")
    short.GetPointData().AddArray(o)
    return [(image(shape, values, twice), "is not a permutation: rank 8 appears twice"),
            (image(shape, values, outside), "is outside 0..%d" % (ranks.size - 1)),
            (image(shape, values, against), "is not consistent with 'f'"),
            (image(shape, values, ranks, order_type=np.float64), "has the type double"),
            (short, "has %d values for %d points" % (ranks.size - 1, ranks.size))]


def case_bad_orders():
    for data, needle in bad_orders():
        for run in (critical_points, diagram):
            out, messages = run(data)
            assert any("'f_Order'" in e and needle in e for e in messages.errors), \
                (needle, messages.errors)
            assert out.GetNumberOfPoints() == 0, needle
        for command in ("critical-points", "persistence"):
            if needle.startswith("has %d values" % (data.GetNumberOfPoints() - 1)):
                continue  # VTK's writer and reader refuse the short array themselves
            error, stderr = cli(data, command, expect_ok=False)
            assert needle in error and "f_Order" in error, (needle, error)
        print("bad order %r: %s" % (needle, messages.errors[0].strip().splitlines()[-1][:160]))
    # --order-array naming a missing array, and on a file without VTK's arrays
    values, ranks = tie_heavy(SHAPES["2d"], 14)
    error, _ = cli(image(SHAPES["2d"], values, ranks), "critical-points", "--order-array",
                   "nothing", expect_ok=False)
    assert "no point array 'nothing'" in error, error


pv_helpers.run_case(globals(), CASE)
