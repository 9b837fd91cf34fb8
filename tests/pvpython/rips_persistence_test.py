"""pvpython tests of TopoGPU Rips Persistence Diagram: the bars against Debian's `ripser`
and `topogpu rips` run by the test on the same cloud (a noisy circle as a table, a random
3D cloud as a point set, a distance matrix), TTK's diagram layout (two points per pair
at (b, b) and (b, d), the diagonal last, IsFinite), the table of bars, the cocycle edges
(BarId, the circle's loop crossing the long bar's cocycle once), bad input (error naming
the problem, empty outputs), progress and abort, the docs example, the documentation.

    pvpython rips_persistence_test.py PLUGIN DATA_DIR CASE
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from paraview import servermanager
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.util import numpy_support
from vtkmodules.vtkCommonCore import vtkPoints, vtkStringArray
from vtkmodules.vtkCommonDataModel import vtkPolyData, vtkTable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402
from pv_helpers import Messages, documented_properties  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import ripser_text  # noqa: E402
from ripser_text import parse  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())
from paraview.simple import TrivialProducer  # noqa: E402

RIPSER = shutil.which("ripser") or "/usr/bin/ripser"
CLI = os.environ.get("TOPOGPU_CLI")


def table_of(columns):
    """A TrivialProducer of a vtkTable with the named numpy columns."""
    table = vtkTable()
    for name, values in columns.items():
        if isinstance(values, list):  # strings
            array = vtkStringArray()
            for v in values:
                array.InsertNextValue(v)
        else:
            array = numpy_support.numpy_to_vtk(np.ascontiguousarray(values), deep=1)
        array.SetName(name)
        table.AddColumn(array)
    source = TrivialProducer()
    source.GetClientSideObject().SetOutput(table)
    return source


def cloud_table(points):
    return table_of({"c%d" % k: points[:, k].astype(np.float64) for k in range(points.shape[1])})


def point_set(points):
    vtk_points = vtkPoints()
    vtk_points.SetDataTypeToDouble()
    vtk_points.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(points), deep=1))
    poly = vtkPolyData()
    poly.SetPoints(vtk_points)
    source = TrivialProducer()
    source.GetClientSideObject().SetOutput(poly)
    return source


def reference(points=None, matrix=None, dim=1, threshold=None):
    """{dim: sorted bars} from Debian's ripser and from `topogpu rips` on a file written
    here (17 digits: the same numbers as the filter's input)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "input.txt")
        rows = points if points is not None else matrix
        np.savetxt(path, rows, fmt="%.17g")
        fmt = "point-cloud" if points is not None else "distance"
        extra = ["--threshold", repr(threshold)] if threshold else []
        out = {}
        for name, binary in (("ripser", RIPSER), ("topogpu", CLI)):
            if binary is None or not os.path.exists(binary):
                continue
            args = [binary] + (["rips"] if name == "topogpu" else [])
            args += ["--format", fmt, "--dim", str(dim)] + extra + [path]
            run = subprocess.run(args, capture_output=True, text=True, timeout=120)
            assert run.returncode == 0, run.stderr
            out[name] = {k: sorted(v) for k, v in parse(run.stdout).items()}
        assert "ripser" in out, "Debian's ripser is missing (scripts/setup.sh installs it)"
        return out


def same(ours, theirs, what):
    diff = ripser_text.barcode_difference(ours, theirs)
    assert diff == "", "%s: %s" % (what, diff)


def diagram_bars(f):
    """Checks TTK's layout of port 0 and the table of port 1; returns {dim: bars} with
    +inf deaths, from the table."""
    diagram = servermanager.Fetch(f, idx=0)
    d = dsa.WrapDataObject(diagram)
    table = servermanager.Fetch(f, idx=1)
    t = {table.GetColumnName(c): numpy_support.vtk_to_numpy(table.GetColumn(c))
         for c in range(table.GetNumberOfColumns())}
    cells = diagram.GetNumberOfCells()
    pairs = cells - 1
    assert table.GetNumberOfRows() == pairs, "one row per pair"
    assert diagram.GetNumberOfPoints() == 2 * pairs + 2
    pid = np.asarray(d.CellData["PairIdentifier"])
    ptype = np.asarray(d.CellData["PairType"])
    birth, death = np.asarray(d.CellData["Birth"]), np.asarray(d.CellData["Death"])
    pers, finite = np.asarray(d.CellData["Persistence"]), np.asarray(d.CellData["IsFinite"])
    pts = np.asarray(d.Points)
    infinite = d.FieldData["RipsInfiniteDeathValue"][0]
    assert pid[-1] == -1 and ptype[-1] == -1 and finite[-1] == 0, "diagonal last"
    assert np.array_equal(pid[:-1], np.arange(pairs)) and np.array_equal(t["PairIdentifier"], pid[:-1])
    for c in range(pairs):
        ids = [diagram.GetCell(c).GetPointId(j) for j in range(2)]
        assert ids == [2 * c, 2 * c + 1], "TTK's two points per pair"
        assert np.allclose(pts[2 * c], [birth[c], birth[c], 0]), "birth point (b, b, 0)"
        assert np.allclose(pts[2 * c + 1], [birth[c], death[c], 0]), "death point (b, d, 0)"
    assert np.allclose(pers[:-1], death[:-1] - birth[:-1], atol=1e-6)
    essential = np.isinf(t["Death"])
    assert np.array_equal(finite[:-1] == 0, essential), "IsFinite is the table's finite deaths"
    assert np.all(death[:-1][essential] == infinite), "essential drawn at the stated value"
    assert infinite > np.max(t["Death"][~essential], initial=0), "drawn above every finite death"
    assert np.array_equal(ptype[:-1], t["Dimension"]) and np.allclose(birth[:-1], t["Birth"])
    ct = np.asarray(d.PointData["CriticalType"])
    assert np.array_equal(ct[0:-2:2], np.minimum(ptype[:-1], 3))
    assert np.array_equal(ct[1:-2:2], np.minimum(ptype[:-1] + 1, 3))
    diag = pts[-2:]
    assert np.allclose(diag[:, 0], diag[:, 1]) and diag[1, 0] >= np.max(death[:-1]), "diagonal spans"
    bars = {}
    for k, b, dd in zip(t["Dimension"], t["Birth"], t["Death"]):
        bars.setdefault(int(k), []).append((float(b), float(dd)))
    return bars


def noisy_circle(n=80, seed=0):
    rng = np.random.default_rng(seed)
    a = np.sort(rng.uniform(0, 2 * np.pi, n))
    return np.c_[np.cos(a), np.sin(a)] + rng.normal(0, 0.05, (n, 2))


def case_noisy_circle():
    points = noisy_circle()
    f = TopoGPURipsPersistenceDiagram(Input=cloud_table(points), MaxDimension=2)  # noqa: F405
    messages = Messages(f)
    f.UpdatePipeline()
    assert not messages.errors, messages.errors
    bars = diagram_bars(f)
    ref = reference(points=points, dim=2)
    for name, theirs in ref.items():
        same(bars, theirs, "circle vs " + name)
    long_bars = [b for b in bars[1] if b[1] - b[0] > 1.0]
    assert len(long_bars) == 1, "one long loop: %s" % bars[1]
    fd = servermanager.Fetch(f).GetFieldData()
    assert fd.GetAbstractArray("TopoGPUBackend").GetValue(0) == "cpu"
    assert fd.GetArray("RipsApparentPairsPercent").GetNumberOfTuples() == 3
    print("circle: %d bars, equal to %s" % (sum(map(len, bars.values())), sorted(ref)))


def case_random_cloud():
    rng = np.random.default_rng(4)
    points = rng.random((70, 3))
    for threshold in (None, 0.35):
        f = TopoGPURipsPersistenceDiagram(Input=point_set(points), MaxDimension=2)  # noqa: F405
        if threshold:
            f.Threshold = threshold
        f.UpdatePipeline()
        bars = diagram_bars(f)
        for name, theirs in reference(points=points, dim=2, threshold=threshold).items():
            same(bars, theirs, "random cloud (threshold %s) vs %s" % (threshold, name))
        for mode in ("Dense", "Sparse"):
            g = TopoGPURipsPersistenceDiagram(Input=point_set(points), MaxDimension=2,  # noqa: F405
                                              SparseMode=mode, Threads=1)
            if threshold:
                g.Threshold = threshold
            g.UpdatePipeline()
            same(diagram_bars(g), bars, "sparse mode %s" % mode)
    print("random cloud: OK")


def case_distance_matrix():
    rng = np.random.default_rng(9)
    points = rng.random((40, 4))  # 4 columns: a Euclidean matrix of 4D points
    m = np.sqrt(((points[:, None] - points[None]) ** 2).sum(axis=2))
    f = TopoGPURipsPersistenceDiagram(  # noqa: F405
        Input=table_of({"d%d" % i: m[:, i] for i in range(len(m))}),
        InputMode="Distance Matrix", MaxDimension=2, ComputeCocycles=1)
    f.UpdatePipeline()
    bars = diagram_bars(f)
    for name, theirs in reference(matrix=m, dim=2).items():
        same(bars, theirs, "matrix vs " + name)
    # the same points as a 4-column table give the same bars
    g = TopoGPURipsPersistenceDiagram(Input=cloud_table(points), MaxDimension=2)  # noqa: F405
    g.UpdatePipeline()
    same(diagram_bars(g), bars, "table of 4D points vs its matrix")
    edges = servermanager.Fetch(f, idx=2)
    assert edges.GetNumberOfPoints() == 40, "one point per matrix row"
    print("distance matrix: OK")


def case_cocycles():
    points = noisy_circle(60, seed=2)
    f = TopoGPURipsPersistenceDiagram(Input=cloud_table(points), ComputeCocycles=1)  # noqa: F405
    f.UpdatePipeline()
    diagram = dsa.WrapDataObject(servermanager.Fetch(f))
    edges = servermanager.Fetch(f, idx=2)
    e = dsa.WrapDataObject(edges)
    assert edges.GetNumberOfPoints() == len(points)
    assert np.allclose(np.asarray(e.Points)[:, :2], points), "the cloud's points"
    bar = np.asarray(e.CellData["BarId"])
    ptype = np.asarray(diagram.CellData["PairType"])
    finite = np.asarray(diagram.CellData["IsFinite"])
    dim1 = set(np.nonzero((ptype == 1) & (finite == 1))[0].tolist())
    assert set(bar.tolist()) == dim1, "one cocycle per finite dim-1 bar: %s vs %s" % (
        set(bar.tolist()), dim1)
    pers = np.asarray(diagram.CellData["Persistence"])
    longest = max(dim1, key=lambda c: pers[c])
    lines = numpy_support.vtk_to_numpy(edges.GetLines().GetConnectivityArray()).reshape(-1, 2)
    mine = {tuple(sorted(l)) for l in lines[bar == longest].tolist()}
    loop = {tuple(sorted((i, (i + 1) % len(points)))) for i in range(len(points))}
    assert len(mine & loop) % 2 == 1, "the loop crosses the long bar's cocycle %d times" % len(
        mine & loop)
    # Diameter is the edge's length; Birth/Death the bar's
    length = np.linalg.norm(points[lines[:, 0]] - points[lines[:, 1]], axis=1)
    assert np.allclose(np.asarray(e.CellData["Diameter"]), length, rtol=1e-6)
    births = np.asarray(diagram.CellData["Birth"])
    assert np.allclose(np.asarray(e.CellData["Birth"]), births[bar])
    # off: port 2 empty
    f.ComputeCocycles = 0
    f.UpdatePipeline()
    assert servermanager.Fetch(f, idx=2).GetNumberOfCells() == 0
    print("cocycles: %d edges, the long bar's %d" % (len(lines), len(mine)))


def case_bad_inputs():
    rng = np.random.default_rng(1)
    good = rng.random((10, 2))
    nan = good.copy()
    nan[3, 1] = np.nan
    square = np.sqrt(((good[:, None] - good[None]) ** 2).sum(axis=2))
    asym = square.copy()
    asym[2, 5] += 0.5
    neg = square.copy()
    neg[1, 0] = neg[0, 1] = -1
    cases = [
        (table_of({"x": good[:, 0], "label": ["a"] * 10}), {}, "column 'label' is not numeric"),
        (cloud_table(nan), {}, "point 3 has a NaN"),
        (table_of({}), {}, "the input table is empty"),
        (table_of({"x": np.zeros(0)}), {}, "the input table is empty"),
        (cloud_table(good[:1]), {}, "single point"),
        (cloud_table(good[:3]), {"MaxDimension": 2}, "needs at least 4 points"),
        (cloud_table(good), {"Threshold": 0.0}, "Threshold must be > 0"),
        # the properties hold the CLI's ranges: outside them, an error naming them
        (cloud_table(good), {"Threshold": float("nan")},
         "Threshold must be > 0, or negative for the automatic threshold, got nan"),
        (cloud_table(good), {"MaxDimension": 100}, "Max Dimension must be between 0 and 64, got 100"),
        (cloud_table(good), {"MaxDimension": -1}, "Max Dimension must be between 0 and 64, got -1"),
        (cloud_table(good), {"Threads": -3},
         "Threads must be between 0 (all cores) and 4096, got -3"),
        (cloud_table(good), {"Threads": 5000},
         "Threads must be between 0 (all cores) and 4096, got 5000"),
        (cloud_table(good), {"MemoryBudget": -5.0}, "Memory Budget must be >= 0 MiB"),
        (cloud_table(good), {"SparseMode": 5},
         "Sparse Mode must be 0 (Auto), 1 (Dense) or 2 (Sparse), got 5"),
        (cloud_table(good), {"InputMode": 7},
         "Input Mode must be 0 (Point Cloud) or 1 (Distance Matrix), got 7"),
        (cloud_table(good), {"InputMode": "Distance Matrix"}, "not square"),
        (table_of({"d%d" % i: asym[:, i] for i in range(10)}), {"InputMode": "Distance Matrix"},
         "not symmetric"),
        (table_of({"d%d" % i: neg[:, i] for i in range(10)}), {"InputMode": "Distance Matrix"},
         "finite and >= 0"),
        (point_set(np.c_[good, np.zeros(10)]), {"InputMode": "Distance Matrix"},
         "a distance matrix comes as a vtkTable"),
        (point_set(np.zeros((0, 3))), {}, "the input is empty"),
    ]
    for source, props, needle in cases:
        f = TopoGPURipsPersistenceDiagram(Input=source, ComputeCocycles=1, **props)  # noqa: F405
        messages = Messages(f)
        f.UpdatePipeline()
        assert any(needle in e for e in messages.errors), "%s: %r" % (needle, messages.errors)
        assert servermanager.Fetch(f, idx=0).GetNumberOfPoints() == 0, needle
        assert servermanager.Fetch(f, idx=1).GetNumberOfRows() == 0, needle
        assert servermanager.Fetch(f, idx=2).GetNumberOfPoints() == 0, needle
    print("bad inputs: %d cases" % len(cases))


def case_memory_budget():
    """A run too large for the memory is refused before it starts: 2000 rows up to
    dimension 3 at the enclosing radius (an explicit threshold: the automatic one would
    be lowered to fit) with budgets of 4 and 1 GiB (the machine's own available memory,
    the default, is tested by cli.rips under a 3 GiB limit), the error naming the
    estimate and what fits."""
    points = np.random.default_rng(12).random((2000, 3))
    for budget in (4096, 1024):
        f = TopoGPURipsPersistenceDiagram(Input=cloud_table(points), MaxDimension=3,  # noqa: F405
                                          Threshold=10.0, MemoryBudget=budget)
        messages = Messages(f)
        f.UpdatePipeline()
        errors = " ".join(messages.errors)
        assert "up to dimension 3 would need about" in errors, errors
        assert re.search(r"2000 points; under the threshold [0-9.]+: \d+ edges, "
                         r"(at most )?[0-9.e+]+ triangles", errors), errors
        assert "fits with a threshold of at most" in errors, errors
        assert "more than the memory budget of %.1f GiB" % (budget / 1024) in errors, errors
        assert servermanager.Fetch(f, idx=0).GetNumberOfPoints() == 0
    t = float(re.search(r"fits with a threshold of at most ([0-9.e+-]+)", errors).group(1))
    assert 0 < t < 1.0, t
    print("memory budget: refused; dimension 3 fits below %g" % t)


def case_interactive_default():
    """The defaults stay interactive: on 5000 points (whose enclosing radius means about
    1e10 triangles, half a minute and more) Threshold -1 lowers the threshold to what a
    short run allows, with a warning giving the cost, and the bars equal ripser's at the
    threshold it names. An explicit threshold is kept, with the warning before the run,
    which the progress bar's abort stops."""
    import time
    points = np.random.default_rng(21).random((5000, 3))
    f = TopoGPURipsPersistenceDiagram(Input=cloud_table(points))  # noqa: F405
    messages = Messages(f)
    start = time.time()
    f.UpdatePipeline()
    seconds = time.time() - start
    warning = " ".join(messages.warnings)
    found = re.search(r"lowered it to ([0-9.e+-]+) to stay interactive", warning)
    assert found and "triangles" in warning and "may take minutes" in warning, warning
    fd = servermanager.Fetch(f).GetFieldData()
    used, radius = fd.GetArray("RipsThreshold").GetValue(0), fd.GetArray("RipsEnclosingRadius").GetValue(0)
    assert abs(used - float(found.group(1))) <= 1e-5 * used and used < radius, (used, radius)
    assert seconds < 40, "the default run took %.1f s" % seconds
    same(diagram_bars(f), reference(points=points, dim=1, threshold=used)["ripser"],
         "5000 points at the lowered threshold vs ripser")
    # An explicit threshold is the user's: kept, the cost said before the run, and the
    # run stops at an abort.
    g = TopoGPURipsPersistenceDiagram(Input=cloud_table(points), Threshold=10.0)  # noqa: F405
    messages = Messages(g)
    algorithm, seen, abort_at = pv_helpers.watch_progress(g)
    abort_at[0] = 0.3
    start = time.time()
    g.UpdatePipeline()
    assert any("may take minutes" in w and "Threshold 0.8" in w for w in messages.warnings), \
        messages.warnings
    assert servermanager.Fetch(g).GetNumberOfPoints() == 0 and not messages.errors
    print("interactive default: %.1f s, threshold %g of %g; explicit run aborted after %.1f s"
          % (seconds, used, radius, time.time() - start))


def case_extreme_scales():
    """Coordinates of 1e39 and distances of 1e-50 (beyond and below single precision,
    where ripser overflows or reads 0): the bars are ripser's on the unscaled input times
    the factor, one essential class for a connected set, the diagram's points finite."""
    points = noisy_circle(50, seed=7)
    unscaled = reference(points=points, dim=1)["ripser"]
    m = np.sqrt(((points[:, None] - points[None]) ** 2).sum(axis=2))
    for factor, source in ((1e39, cloud_table(points * 1e39)),
                           (1e-50, table_of({"d%d" % i: m[:, i] * 1e-50 for i in range(len(m))}))):
        f = TopoGPURipsPersistenceDiagram(Input=source)  # noqa: F405
        if factor < 1:
            f.InputMode = "Distance Matrix"
        messages = Messages(f)
        f.UpdatePipeline()
        assert not messages.errors, messages.errors
        bars = diagram_bars(f)
        want = {k: [(b * factor, d * factor) for b, d in v] for k, v in unscaled.items()}
        same(bars, want, "scaled by %g vs ripser unscaled" % factor)
        assert sum(1 for _, d in bars[0] if np.isinf(d)) == 1, "one component"
        assert np.all(np.isfinite(np.asarray(dsa.WrapDataObject(servermanager.Fetch(f)).Points)))
    print("extreme scales: OK")


def case_progress_abort():
    points = np.random.default_rng(3).random((120, 3))
    f = TopoGPURipsPersistenceDiagram(Input=cloud_table(points), MaxDimension=3)  # noqa: F405
    pv_helpers.check_progress_and_abort(
        f, Messages(f), [0.15], lambda p: servermanager.Fetch(p).GetNumberOfPoints(),
        min_steps=3)
    assert servermanager.Fetch(f).GetNumberOfCells() > 100, "run after abort incomplete"
    print("progress and abort: OK")


def case_doc_example():
    """The python blocks of docs/filters/rips-persistence.md, run as written (the plugin
    is loaded here as PV_PLUGIN_PATH loads it for users), and their results checked."""
    doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                       "filters", "rips-persistence.md")
    blocks = re.findall(r"```python\n(.*?)```", open(doc).read(), re.S)
    assert blocks, "the page lost its example"
    space = {"TopoGPURipsPersistenceDiagram": TopoGPURipsPersistenceDiagram}  # noqa: F405
    exec(compile(blocks[0], doc, "exec"), space)
    long_bars = space["long_bars"]
    assert len(long_bars) == 1 and long_bars[0][1] - long_bars[0][0] > 1.0, long_bars
    assert space["edges"].GetNumberOfCells() > 0
    print("doc example: the circle's bar", long_bars[0])


def case_documentation():
    # What the Backend help says is what the filter does: Auto runs the CPU backend (no
    # warning); GPU without a device runs the CPU with a warning saying why.
    f = TopoGPURipsPersistenceDiagram(Input=cloud_table(noisy_circle(30)))  # noqa: F405
    doc = f.GetProperty("Backend").SMProperty.GetDocumentation()
    texts = [" ".join(t.split()) for t in (doc.GetDescription(), doc.GetShortHelp(),
                                           doc.GetLongHelp())]
    for text in texts:
        assert "the GPU when" not in text and "faster than the GPU backend on every" not in text, text
        assert re.search(r"Auto \(default\) and CPU(:| run) the CPU backend", text), text
    for backend, warned in (("Auto", False), ("GPU", True)):
        f.Backend = backend
        messages = Messages(f)
        f.UpdatePipeline()
        fd = servermanager.Fetch(f).GetFieldData()
        ran = fd.GetAbstractArray("TopoGPUBackend").GetValue(0)
        gpu_warning = any("GPU requested" in w for w in messages.warnings)
        assert ran == "cpu" or (backend == "GPU" and ran == "gpu"), (backend, ran)
        assert gpu_warning == (warned and ran == "cpu"), (backend, messages.warnings)
    # The domains are the CLI's ranges: --dim and --threads accept their ends, not past.
    ranges = {}
    for name in ("MaxDimension", "Threads"):
        domain = f.GetProperty(name).SMProperty.GetDomain("range")
        ranges[name] = (domain.GetMinimum(0), domain.GetMaximum(0))
    assert ranges == {"MaxDimension": (0, 64), "Threads": (0, 4096)}, ranges
    if CLI and os.path.exists(CLI):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "two.txt")
            np.savetxt(path, np.eye(2))
            for option, (low, high) in (("--dim", ranges["MaxDimension"]),
                                        ("--threads", ranges["Threads"])):
                for value, accepted in ((low, True), (high, True), (low - 1, False),
                                        (high + 1, False)):
                    run = subprocess.run([CLI, "rips", "--format", "point-cloud", option,
                                          str(value), path], capture_output=True, text=True)
                    refused = ("option %s: %d is out of range" % (option, value)) in run.stderr
                    assert refused != accepted, (option, value, run.stderr)
    names = documented_properties(TopoGPURipsPersistenceDiagram(  # noqa: F405
        Input=cloud_table(np.zeros((3, 2)))))
    assert {"Input", "InputMode", "MaxDimension", "Threshold", "SparseMode", "Threads",
            "MemoryBudget", "ComputeCocycles", "Backend"} <= set(names), names


pv_helpers.run_case(globals(), CASE)
