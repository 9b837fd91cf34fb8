"""pvpython checks of the TopoGPU Geodesic Distance filter against exact distances:
Euclidean distance on flat triangulated squares (regular and jittered), great-circle
distance on icospheres (both meshes generated here in numpy), with first-order
convergence under refinement; the seed modes against a brute-force nearest vertex; the
speeds against the constant-speed scaling; stop distance, components and bad input.

Usage: pvpython geodesic_distance_test.py PLUGIN DATA_DIR CASE
Each CASE is one ctest; a failed check raises, so pvpython exits non-zero.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pv_helpers import Messages, documented_properties, fetch  # noqa: E402
import pv_helpers  # noqa: E402
from geodesic_oracle import automatic_exact_radius  # noqa: E402

from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.util import numpy_support  # noqa: E402
from vtkmodules.vtkCommonCore import vtkPoints  # noqa: E402
from vtkmodules.vtkCommonDataModel import (  # noqa: E402
    VTK_QUAD, VTK_TETRA, VTK_TRIANGLE, vtkCellArray, vtkPolyData, vtkUnstructuredGrid)

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())
SOLVERS = ("fmm", "fim", "fim-mt")


# ---------------------------------------------------------------- meshes (numpy) ----

def square_mesh(n, jitter=0.0, seed=0, offset=(0.0, 0.0)):
    """The unit square as an n x n grid of points, each cell split into two triangles
    (alternating diagonals); jitter moves the interior points by up to jitter * h."""
    h = 1.0 / (n - 1)
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    pts = np.stack([x.ravel(), y.ravel(), np.zeros(n * n)], axis=1)
    if jitter:
        rng = np.random.default_rng(seed)
        inner = (x.ravel() > 0) & (x.ravel() < 1) & (y.ravel() > 0) & (y.ravel() < 1)
        pts[inner, :2] += rng.uniform(-jitter * h, jitter * h, size=(inner.sum(), 2))
    pts[:, 0] += offset[0]
    pts[:, 1] += offset[1]
    tris = []
    for j in range(n - 1):
        for i in range(n - 1):
            a, b, c, d = j * n + i, j * n + i + 1, (j + 1) * n + i, (j + 1) * n + i + 1
            if (i + j) % 2:
                tris += [(a, b, d), (a, d, c)]
            else:
                tris += [(a, b, c), (b, d, c)]
    return pts, np.array(tris, dtype=np.int64), h


def icosphere(level):
    """The unit icosahedron, each triangle split in 4 `level` times, projected onto the
    unit sphere."""
    t = (1 + 5 ** 0.5) / 2
    pts = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
           (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    tris = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9),
            (5, 11, 4), (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2),
            (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10),
            (8, 6, 7), (9, 8, 1)]
    pts = [np.array(p, dtype=float) / np.linalg.norm(p) for p in pts]
    for _ in range(level):
        middle = {}

        def mid(a, b):
            key = (min(a, b), max(a, b))
            if key not in middle:
                m = pts[a] + pts[b]
                pts.append(m / np.linalg.norm(m))
                middle[key] = len(pts) - 1
            return middle[key]

        refined = []
        for a, b, c in tris:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            refined += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        tris = refined
    return np.array(pts), np.array(tris, dtype=np.int64)


def great_circle(pts, s):
    return np.arccos(np.clip(pts @ pts[s], -1.0, 1.0))


def to_vtk(pts, tris, point_arrays=None, cell_arrays=None, grid=False, cell_type=None):
    """A vtkPolyData (or vtkUnstructuredGrid) of the cells `tris` (rows of point ids)."""
    points = vtkPoints()
    points.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(pts, dtype=float), deep=1))
    cells = vtkCellArray()
    for row in tris:
        cells.InsertNextCell(len(row), [int(i) for i in row])
    if grid:
        data = vtkUnstructuredGrid()
        data.SetPoints(points)
        data.SetCells(cell_type or VTK_TRIANGLE, cells)
    else:
        data = vtkPolyData()
        data.SetPoints(points)
        data.SetPolys(cells)
    for name, values in (point_arrays or {}).items():
        a = numpy_support.numpy_to_vtk(np.ascontiguousarray(values), deep=1)
        a.SetName(name)
        data.GetPointData().AddArray(a)
    for name, values in (cell_arrays or {}).items():
        a = numpy_support.numpy_to_vtk(np.ascontiguousarray(values), deep=1)
        a.SetName(name)
        data.GetCellData().AddArray(a)
    return data


def source_of(data):
    producer = TrivialProducer()  # noqa: F405
    producer.GetClientSideObject().SetOutput(data)
    return producer


def geodesic(source, expect_errors=False, **properties):
    """Runs the filter; returns (output, distance, seed ids, messages)."""
    f = TopoGPUGeodesicDistance(Input=source)  # noqa: F405
    messages = Messages(f)
    for key, value in properties.items():
        setattr(f, key, value)
    out = fetch(f)
    if not expect_errors:
        assert not messages.errors, messages.errors
    if out.VTKObject.GetNumberOfPoints() == 0:
        return out, None, None, messages
    return (out, np.asarray(out.PointData["GeodesicDistance"]),
            np.asarray(out.PointData["SeedIdentifier"]), messages)


def field(out, name):
    return out.VTKObject.GetFieldData().GetAbstractArray(name).GetVariantValue(0).ToString()


# ------------------------------------------------------------------ exact meshes ----
# The solvers are first order, but a point source costs a log: the error near the seed
# is ~ h log(1/h) (the printed means halve h and shrink by ~0.65 on the square, as
# h log(1/h) predicts, not 0.5). The checks: max error below h, mean error below
# h log(1/h) / 4, and each refinement shrinking the mean by at least 10%.

def errors_on_square(n, jitter, solver):
    pts, tris, h = square_mesh(n, jitter, seed=n)
    seed = (n // 2) * n + n // 3  # an interior vertex
    _, d, ids, _ = geodesic(source_of(to_vtk(pts, tris)), SeedIds=[seed], Solver=solver,
                            DoublePrecision=1)
    exact = np.linalg.norm(pts - pts[seed], axis=1)
    assert d[seed] == 0 and np.all(ids == seed), "seed value or identifiers wrong"
    assert np.all(np.isfinite(d)), "unreached vertices on a connected square"
    # Paths along the mesh can only be longer than the straight line.
    assert np.all(d >= exact - 1e-9), "distance below the Euclidean distance by %g" % (
        (exact - d).max())
    return np.abs(d - exact).max(), np.abs(d - exact).mean(), h


def case_flat_square():
    for jitter in (0.0, 0.3):
        for solver in SOLVERS:
            previous = None
            for n in (17, 33, 65):
                worst, mean, h = errors_on_square(n, jitter, solver)
                print("square n=%d jitter=%.1f %s: max error %.4g mean %.4g (h %.4g)" % (
                    n, jitter, solver, worst, mean, h))
                assert worst < h and mean < h * np.log(1 / h) / 4, "error too large for h"
                if previous is not None:
                    assert mean < 0.9 * previous, "no convergence: %g then %g" % (
                        previous, mean)
                previous = mean


def case_icosphere():
    for solver in SOLVERS:
        previous = None
        for level in (2, 3, 4):
            pts, tris = icosphere(level)
            h = np.linalg.norm(pts[tris[:, 0]] - pts[tris[:, 1]], axis=1).mean()
            seed = 7
            _, d, _, _ = geodesic(source_of(to_vtk(pts, tris)), SeedIds=[seed],
                                  Solver=solver, DoublePrecision=1)
            exact = great_circle(pts, seed)
            err = np.abs(d - exact)
            print("icosphere level %d (%d vertices) %s: max error %.4g mean %.4g (h %.4g)"
                  % (level, len(pts), solver, err.max(), err.mean(), h))
            assert err.max() < h and err.mean() < h * np.log(1 / h) / 4, "error too large"
            if previous is not None:
                assert err.mean() < 0.9 * previous, "no convergence: %g then %g" % (
                    previous, err.mean())
            previous = err.mean()


def case_solvers_agree():
    pts, tris, h = square_mesh(41, 0.3, seed=5)
    results = {}
    for solver in SOLVERS:
        out, d, ids, _ = geodesic(source_of(to_vtk(pts, tris)), SeedIds=[3, 900],
                                  Solver=solver, DoublePrecision=1)
        assert field(out, "GeodesicSolver") == solver, field(out, "GeodesicSolver")
        assert float(field(out, "GeodesicLocalSolvesPerVertex")) > 0
        assert int(field(out, "GeodesicIterations")) > 0
        results[solver] = d
    # GeodesicSolver names the solver that ran: gpu and auto run patchFIM on a device,
    # else fim-mt (TopoGPUBackend says which processor ran).
    for requested in ("gpu", "auto"):
        out, d, _, _ = geodesic(source_of(to_vtk(pts, tris)), expect_errors=False,
                                SeedIds=[3, 900], Solver=requested, DoublePrecision=1)
        ran, backend = field(out, "GeodesicSolver"), field(out, "TopoGPUBackend")
        assert ran == ("gpu" if backend == "gpu" else "fim-mt"), (requested, ran, backend)
        gap = np.abs(d - results["fmm"]).max()
        assert gap < 1e-4 * h, "%s (ran %s) differs from fmm by %g" % (requested, ran, gap)
    # FIM stops at epsilon = 1e-6 of the mean edge time: agreement well inside that * 100.
    for solver in ("fim", "fim-mt"):
        gap = np.abs(results[solver] - results["fmm"]).max()
        assert gap < 1e-4 * h, "%s differs from fmm by %g" % (solver, gap)
    # Unstructured grid input: the same surface, the same distances.
    _, dg, _, _ = geodesic(source_of(to_vtk(pts, tris, grid=True)), SeedIds=[3, 900],
                           Solver="fmm", DoublePrecision=1)
    assert np.array_equal(dg, results["fmm"]), "unstructured grid differs from poly data"
    # float32 output = the float64 one rounded.
    _, d32, _, _ = geodesic(source_of(to_vtk(pts, tris)), SeedIds=[3, 900], Solver="fmm")
    assert d32.dtype == np.float32 and np.array_equal(d32, results["fmm"].astype(np.float32))
    print("solvers agree within %g; grid and float32 outputs consistent" % (1e-4 * h))


# ------------------------------------------------------------------------- seeds ----

def case_seed_modes():
    pts, tris, h = square_mesh(33, 0.3, seed=3)
    seeds = [100, 700]
    # FMM: the seed modes are compared bit for bit, and meshFIM-MT (auto without a GPU)
    # may differ between runs by rounding (docs: its stated tolerance).
    reference, d_ids, id_ids, _ = geodesic(source_of(to_vtk(pts, tris)), SeedIds=seeds,
                                           Solver="fmm", DoublePrecision=1)
    # The nearest seed: SeedIdentifier is one of the seeds and, away from the bisector
    # (where rounding may pick either), the Euclidean-nearest one.
    exact = np.stack([np.linalg.norm(pts - pts[s], axis=1) for s in seeds])
    nearest = np.array(seeds)[exact.argmin(axis=0)]
    clear = np.abs(exact[0] - exact[1]) > 2 * h
    assert set(np.unique(id_ids)) == set(seeds)
    assert np.array_equal(id_ids[clear], nearest[clear]), "SeedIdentifier not the nearest seed"
    assert np.abs(d_ids - exact.min(axis=0)).max() < h

    # Mask array: non-zero (any value, any type) = seed.
    mask = np.zeros(len(pts), dtype=np.int8)
    mask[seeds] = [1, -3]
    _, d_mask, id_mask, _ = geodesic(
        source_of(to_vtk(pts, tris, point_arrays={"m": mask})), SeedMode="Mask Array",
        SeedMaskArray=["POINTS", "m"], Solver="fmm", DoublePrecision=1)
    assert np.array_equal(d_mask, d_ids) and np.array_equal(id_mask, id_ids), "mask != ids"

    # Seed points: snapped to the nearest vertex (brute force here).
    rng = np.random.default_rng(1)
    targets = rng.uniform(0.05, 0.95, size=(3, 3))
    targets[:, 2] = rng.uniform(-0.2, 0.2, size=3)  # off the plane too
    snapped = [int(np.linalg.norm(pts - t, axis=1).argmin()) for t in targets]
    seed_data = vtkPolyData()
    seed_points = vtkPoints()
    for t in targets:
        seed_points.InsertNextPoint(*t)
    seed_data.SetPoints(seed_points)
    surface = source_of(to_vtk(pts, tris))
    _, d_snap, id_snap, _ = geodesic(surface, SeedMode="Seed Points",
                                     Seeds=source_of(seed_data), Solver="fmm",
                                     DoublePrecision=1)
    _, d_want, id_want, _ = geodesic(surface, SeedIds=snapped, Solver="fmm",
                                  DoublePrecision=1)
    assert np.array_equal(d_snap, d_want) and np.array_equal(id_snap, id_want), \
        "seed points not snapped to their nearest vertices %s" % snapped
    assert set(np.unique(id_snap)) == set(snapped)
    print("seed modes: ids, mask and snapped points %s agree" % snapped)


# ------------------------------------------------------------------------- speeds ---

def case_speeds():
    pts, tris, h = square_mesh(33, 0.3, seed=4)
    n_cells = len(tris)
    c = 2.5
    arrays = dict(point_arrays={"pc": np.full(len(pts), c), "pv": 1 + pts[:, 0]},
                  cell_arrays={"cc": np.full(n_cells, c, dtype=np.float32),
                               "cv": 1 + pts[tris].mean(axis=1)[:, 0]})
    surface = source_of(to_vtk(pts, tris, **arrays))
    for solver in SOLVERS:
        _, d1, _, _ = geodesic(surface, SeedIds=[5], Solver=solver, DoublePrecision=1)
        _, dc, _, _ = geodesic(surface, SeedIds=[5], Solver=solver, Speed=c,
                               DoublePrecision=1)
        # Travel time = distance / speed: scaling the speed scales every local solve.
        assert np.allclose(dc, d1 / c, rtol=1e-5, atol=1e-5 * h), "constant speed"
        for name, kind in (("pc", "POINTS"), ("cc", "CELLS")):
            _, da, _, _ = geodesic(surface, SeedIds=[5], Solver=solver, SpeedMode="Array",
                                   SpeedArray=[kind, name], DoublePrecision=1)
            assert np.allclose(da, dc, rtol=1e-5, atol=1e-5 * h), "%s array %s" % (kind, name)
        # A speed >= 1 everywhere (and > 1 off the seed) gives shorter times than
        # speed 1, and at least distance / max speed.
        for name, kind in (("pv", "POINTS"), ("cv", "CELLS")):
            _, dv, _, _ = geodesic(surface, SeedIds=[5], Solver=solver, SpeedMode="Array",
                                   SpeedArray=[kind, name], DoublePrecision=1)
            assert np.all(dv <= d1 + 1e-12) and np.all(dv >= d1 / 2.0 - 1e-12), name
            assert (dv < d1 - h / 10).sum() > len(pts) // 2, "variable speed has no effect"
    print("speeds: constant, point and cell arrays consistent")


def case_stop_distance():
    pts, tris, h = square_mesh(33)
    surface = source_of(to_vtk(pts, tris))
    _, full, full_ids, _ = geodesic(surface, SeedIds=[0], Solver="fmm", DoublePrecision=1)
    for solver in SOLVERS:
        _, d, ids, messages = geodesic(surface, SeedIds=[0], Solver=solver,
                                       UseStopDistance=1, StopDistance=0.5,
                                       DoublePrecision=1)
        inside = full <= 0.5 - 1e-6
        outside = full > 0.5 + 1e-6
        assert np.allclose(d[inside], full[inside], atol=1e-4 * h), "inside the stop distance"
        assert np.all(np.isinf(d[outside])) and np.all(ids[outside] == -1), "beyond it"
        assert np.all(d[np.isfinite(d)] <= 0.5)
        unreached = int(np.isinf(d).sum())
        text = " ".join(messages.warnings)
        assert ("%d of %d vertices are unreached" % (unreached, len(pts))) in text, text
    print("stop distance: %d vertices beyond 0.5 unreached" % unreached)


def case_components():
    a_pts, a_tris, _ = square_mesh(9)
    b_pts, b_tris, _ = square_mesh(7, offset=(3.0, 0.0))
    pts = np.vstack([a_pts, b_pts])
    tris = np.vstack([a_tris, b_tris + len(a_pts)])
    surface = source_of(to_vtk(pts, tris))
    for solver in SOLVERS:
        out, d, ids, messages = geodesic(surface, SeedIds=[4], Solver=solver)
        first = np.arange(len(pts)) < len(a_pts)
        assert np.all(np.isfinite(d[first])) and np.all(ids[first] == 4)
        assert np.all(np.isinf(d[~first])) and np.all(ids[~first] == -1)
        assert int(field(out, "GeodesicUnreachedVertices")) == len(b_pts)
        text = " ".join(messages.warnings)
        assert "%d of %d vertices are unreached" % (len(b_pts), len(pts)) in text, text
    # A seed on each component reaches everything.
    _, d, ids, messages = geodesic(surface, SeedIds=[4, len(a_pts) + 3])
    assert np.all(np.isfinite(d)) and not messages.warnings
    print("components: the unseeded one is +inf with a warning")


# --------------------------------------------------------------------- bad input ----

def case_bad_inputs():
    pts, tris, _ = square_mesh(5)
    quads = np.array([[0, 1, 6, 5], [1, 2, 7, 6]])
    mixed = vtkPolyData()
    mixed.DeepCopy(to_vtk(pts, tris))
    mixed.GetPolys().InsertNextCell(4, [10, 11, 16, 15])
    tet_pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    nan_speed = np.ones(len(pts))
    nan_speed[7] = np.nan
    zero_cells = np.ones(len(tris))
    zero_cells[3] = 0
    good = to_vtk(pts, tris, point_arrays={"nan": nan_speed, "zero": np.zeros(len(pts))},
                  cell_arrays={"zc": zero_cells})
    lonely = vtkPolyData()
    lonely.SetPoints(vtkPoints())
    cases = [
        (to_vtk(pts, quads), {}, "cells are not triangles"),
        (mixed, {}, "1 of the %d cells are not triangles" % (len(tris) + 1)),
        (to_vtk(tet_pts, [[0, 1, 2, 3]], grid=True, cell_type=VTK_TETRA), {},
         "not triangles"),
        (to_vtk(pts, quads, grid=True, cell_type=VTK_QUAD), {}, "not triangles"),
        (good, {"SeedIds": []}, "Seed Ids is empty"),
        (good, {"SeedIds": [25]}, "seed vertex 25 is out of range"),
        (good, {"SeedIds": [-1]}, "out of range"),
        (good, {"Speed": 0.0}, "speed must be finite and positive"),
        (good, {"Speed": float("nan")}, "speed must be finite and positive"),
        (good, {"SpeedMode": "Array", "SpeedArray": ["POINTS", "nan"]}, "finite and positive"),
        (good, {"SpeedMode": "Array", "SpeedArray": ["POINTS", "zero"]}, "finite and positive"),
        (good, {"SpeedMode": "Array", "SpeedArray": ["CELLS", "zc"]}, "finite and positive"),
        (good, {"SpeedMode": "Array", "SpeedArray": ["POINTS", "missing"]}, "Speed Array"),
        (good, {"SeedMode": "Mask Array", "SeedMaskArray": ["POINTS", "zero"]},
         "no non-zero value"),
        (good, {"SeedMode": "Mask Array", "SeedMaskArray": ["POINTS", "missing"]},
         "Seed Mask Array"),
        (good, {"SeedMode": "Seed Points"}, "nothing is connected to the Seeds input"),
        (good, {"SeedMode": "Seed Points", "Seeds": source_of(lonely)}, "no points"),
        (good, {"UseStopDistance": 1, "StopDistance": -1.0}, "stop distance must be >= 0"),
        (good, {"ExactStartRadius": float("nan")}, "exact start radius must be a number"),
        (lonely, {}, "the input is empty"),
    ]
    for data, settings, fragment in cases:
        out, _, _, messages = geodesic(source_of(data), expect_errors=True, **settings)
        assert out.VTKObject.GetNumberOfPoints() == 0, "output not empty for %r" % fragment
        text = " ".join(messages.errors)
        assert fragment.lower() in text.lower(), "error %r lacks %r" % (text, fragment)
        assert "TopoGPU Geodesic Distance" in text
        print("bad input: %s" % text.strip().splitlines()[-1])
    # The filter recovers once the input is fixed.
    _, d, _, _ = geodesic(source_of(good), SeedIds=[0])
    assert np.all(np.isfinite(d))


def case_progress_abort():
    """Progress rises during the run; aborting from a progress callback (what ParaView's
    abort button does) gives an empty output and no error; the next run is complete."""
    from paraview import servermanager
    pts, tris, _ = square_mesh(161)
    surface = source_of(to_vtk(pts, tris))
    for solver in SOLVERS:
        f = TopoGPUGeodesicDistance(Input=surface, SeedIds=[0], Solver=solver)  # noqa: F405
        pv_helpers.check_progress_and_abort(
            f, Messages(f), [0.3], lambda p: servermanager.Fetch(p).GetNumberOfPoints(),
            late=0.9)
        d = np.asarray(fetch(f).PointData["GeodesicDistance"])
        assert d.size == len(pts) and np.all(np.isfinite(d)), "run after abort incomplete"
    print("progress and abort: OK for %s" % ", ".join(SOLVERS))


def case_doc_example():
    """The python blocks of docs/filters/geodesic-distance.md, run as written (the plugin
    is already loaded here, as PV_PLUGIN_PATH loads it for users), and their results
    checked: the farthest vertex from the sphere's pole is half a great circle away."""
    import re
    doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                       "filters", "geodesic-distance.md")
    blocks = re.findall(r"```python\n(.*?)```", open(doc).read(), re.S)
    assert len(blocks) >= 2, "the page lost its examples"
    spaces = []
    for block in blocks:
        space = {"TopoGPUGeodesicDistance": TopoGPUGeodesicDistance}  # noqa: F405
        exec(compile(block, doc, "exec"), space)
        spaces.append(space)
    farthest = spaces[0]["farthest"]
    assert abs(farthest - np.pi * 0.5) < 0.01, farthest
    second = spaces[1]
    unreached = second["out"].GetFieldData().GetArray("GeodesicUnreachedVertices").GetValue(0)
    assert 0 < unreached < second["out"].GetNumberOfPoints()
    assert len(set(second["labels"].GetRange())) == 2, "two seeds, two labels"
    print("doc example: farthest %.4f, %d unreached" % (farthest, unreached))


def stages(out):
    names = out.VTKObject.GetFieldData().GetAbstractArray("TopoGPUTimingStages")
    return [names.GetValue(i) for i in range(names.GetNumberOfValues())]


def case_reuse():
    """The filter keeps its mesh setup between updates: a change of seeds, solver or stop
    distance reuses it ("mesh setup (cached)"), a change of points or speed rebuilds it;
    either way the output is a fresh filter's, bit for bit (FMM is deterministic)."""
    sphere = Sphere(ThetaResolution=40, PhiResolution=30)  # noqa: F405
    moved = Transform(Input=sphere)  # noqa: F405
    moved.Transform = "Transform"
    f = TopoGPUGeodesicDistance(Input=moved, SeedIds=[0], Solver="fmm",  # noqa: F405
                                DoublePrecision=1)
    steps = [("first run", {}, False),
             ("other seeds", {"SeedIds": [5, 400]}, True),
             ("a stop distance", {"UseStopDistance": 1, "StopDistance": 0.8}, True),
             ("another solver", {"Solver": "fim"}, True),
             ("a speed", {"Speed": 2.0}, False),
             ("seeds again", {"SeedIds": [1]}, True)]
    for what, settings, cached in steps + [("moved points", None, False)]:
        if settings is None:
            moved.Transform.Scale = [1.0, 2.0, 1.0]
            settings = {}
        for key, value in settings.items():
            setattr(f, key, value)
        out = fetch(f)
        names = stages(out)
        assert ("mesh setup (cached)" in names) == cached and \
            ("mesh setup" in names) != cached, (what, names)
        fresh = TopoGPUGeodesicDistance(Input=moved)  # noqa: F405
        for key in ("SeedIds", "Solver", "Speed", "UseStopDistance", "StopDistance",
                    "DoublePrecision"):
            setattr(fresh, key, f.GetPropertyValue(key))
        expected = fetch(fresh)
        d, e = np.asarray(out.PointData["GeodesicDistance"]), np.asarray(
            expected.PointData["GeodesicDistance"])
        if f.GetPropertyValue("Solver") == "fmm":
            assert np.array_equal(d, e), what
        else:  # meshFIM: within its epsilon-convergence
            assert np.allclose(d, e, rtol=0, atol=1e-6), what
        assert np.array_equal(out.PointData["SeedIdentifier"],
                              expected.PointData["SeedIdentifier"]), what
        Delete(fresh)  # noqa: F405
        print("reuse: %s -> %s" % (what, "cached" if cached else "rebuilt"))


def case_property_ranges():
    """The filter's properties take the ranges `topogpu geodesic` takes (docs/cli.md
    states them; cli.geodesic checks those against --help): the XML domains hold them,
    integer setters clamp to them, and a bad real is an error when the filter runs."""
    import re
    doc = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                            "docs", "cli.md")).read()
    doc = doc[doc.index("`geodesic` (geodesic distance"):]
    pts, tris, _ = square_mesh(9)
    surface = source_of(to_vtk(pts, tris))
    f = TopoGPUGeodesicDistance(Input=surface)  # noqa: F405
    algorithm = f.GetClientSideObject()
    for name, option in (("PatchSize", "--patch-size"),
                         ("InternalIterations", "--internal-iterations")):
        low, high, default = map(int, re.search(
            r"`%s N` \((\d+)-(\d+), default (\d+)\)" % option, doc).groups())
        domain = f.GetProperty(name).SMProperty.GetDomain("range")
        assert (domain.GetMinimum(0), domain.GetMaximum(0)) == (low, high), name
        assert int(f.GetPropertyValue(name)) == default, name
        for value, clamped in ((low - 1, low), (high + 1, high), (-50, low)):
            setattr(f, name, value)
            f.UpdateVTKObjects()
            # (the plugin's classes have no Python wrapping: read the value PrintSelf
            # writes)
            got = int(re.search(r"\n\s*%s: (-?\d+)" % name, str(algorithm)).group(1))
            assert got == clamped, "%s = %d gave %d, not %d" % (name, value, got, clamped)
        setattr(f, name, default)
    # Reals: > 0 (band width, speed) and >= 0 (stop distance), as the CLI.
    for name in ("BandWidth", "Speed", "StopDistance"):
        domain = f.GetProperty(name).SMProperty.GetDomain("range")
        assert domain is not None and domain.GetMinimumExists(0) and \
            domain.GetMinimum(0) == 0 and not domain.GetMaximumExists(0), name
    assert "`--band-width B` (> 0 or `inf`, default 1)" in doc
    assert float(f.GetPropertyValue("BandWidth")) == 1.0
    assert "`--partition bfs|metis` (default bfs)" in doc
    assert f.GetPropertyValue("Partition") == "bfs"
    assert list(f.GetProperty("Partition").Available) == ["bfs", "metis"]
    for bad in (0.0, -1.0, float("nan")):
        out, _, _, messages = geodesic(surface, expect_errors=True, SeedIds=[0],
                                       BandWidth=bad)
        text = " ".join(messages.errors)
        assert "band width must be > 0" in text and out.VTKObject.GetNumberOfPoints() == 0, (
            bad, text)
    # +inf (no band), the extreme patch sizes and METIS run (patchFIM's parameters are
    # checked whatever solver runs).
    _, d, _, _ = geodesic(surface, SeedIds=[0], Solver="fmm", DoublePrecision=1)
    for settings in ({"BandWidth": float("inf")}, {"PatchSize": 4, "InternalIterations": 1},
                     {"PatchSize": 512, "InternalIterations": 1000, "Partition": "metis"}):
        _, d2, _, _ = geodesic(surface, SeedIds=[0], Solver="fmm", DoublePrecision=1,
                               **settings)
        assert np.array_equal(d, d2), settings
    # A solver value outside the table (C++ callers): an error naming the choices.
    f = TopoGPUGeodesicDistance(Input=surface)  # noqa: F405
    messages = Messages(f)
    f.GetProperty("Solver").SMProperty.SetElement(0, 9)  # past pvpython's enum check
    f.UpdateVTKObjects()
    out = fetch(f)
    assert "unknown Solver value 9" in " ".join(messages.errors), messages.errors
    assert out.VTKObject.GetNumberOfPoints() == 0
    print("property ranges: the CLI's, clamped or refused")


def case_float32_range():
    """A float32 output that float cannot hold (a jittered square scaled by 1e200) is an
    error naming the vertex, with an empty output; Double Precision gives the distances
    times 1e200 (the unscaled run, scaled in numpy)."""
    pts, tris, _ = square_mesh(21, 0.3, seed=4)
    seed = 10 * 21 + 7
    big = source_of(to_vtk(pts * 1e200, tris))
    out, _, _, messages = geodesic(big, expect_errors=True, SeedIds=[seed], Solver="fmm")
    text = " ".join(messages.errors)
    assert "outside float32's range" in text and out.VTKObject.GetNumberOfPoints() == 0, text
    _, d, _, _ = geodesic(big, SeedIds=[seed], Solver="fmm", DoublePrecision=1)
    _, unscaled, _, _ = geodesic(source_of(to_vtk(pts, tris)), SeedIds=[seed], Solver="fmm",
                                 DoublePrecision=1)
    assert np.allclose(d, unscaled * 1e200, rtol=1e-9, atol=0), "1e200: not scaled"
    print("float32 beyond its range: %s" % text.strip().splitlines()[-1])


def case_exact_start():
    """The exact start near the seeds (Exact Start Radius, field data
    GeodesicExactVertices / GeodesicExactRadius) on a flat jittered square, whose geodesic
    distance is the Euclidean one (numpy): the automatic radius is sqrt(mean edge x
    sqrt(area)) (geodesic_oracle.py), the vertices within the radius are exactly those the
    field data counts and carry the Euclidean distance to rounding; 0 leaves the seed
    alone."""
    pts, tris, _ = square_mesh(41, 0.3, seed=4)
    seed = 20 * 41 + 13
    exact = np.linalg.norm(pts - pts[seed], axis=1)
    surface = source_of(to_vtk(pts, tris))
    for settings, radius in (({}, automatic_exact_radius(pts, tris)),
                             ({"ExactStartRadius": 0.31}, 0.31),
                             ({"ExactStartRadius": 0.0}, 0.0)):
        out, d, _, _ = geodesic(surface, SeedIds=[seed], Solver="fim-mt", DoublePrecision=1,
                                **settings)
        fd = out.VTKObject.GetFieldData()
        count = fd.GetArray("GeodesicExactVertices").GetValue(0)
        reported = fd.GetArray("GeodesicExactRadius").GetValue(0)
        inside = exact <= radius
        assert abs(reported - radius) <= 1e-12, (settings, reported, radius)
        assert count == inside.sum(), (settings, count, inside.sum())
        assert np.abs(d[inside] - exact[inside]).max() <= 1e-12, settings
        assert "exact start" in stages(out), stages(out)
        print("exact start %s: %d vertices within %.4f exact" % (settings, count, radius))


def case_documentation():
    names = documented_properties(TopoGPUGeodesicDistance(Input=Sphere()))  # noqa: F405
    assert {"Input", "Seeds", "SeedMode", "SeedIds", "SeedMaskArray", "SpeedMode", "Speed",
            "SpeedArray", "UseStopDistance", "StopDistance", "Solver",
            "DoublePrecision", "PatchSize", "InternalIterations", "BandWidth",
            "Partition", "ExactStartRadius"} <= set(names), names
    print("documentation: filter and %d properties documented" % len(names))


pv_helpers.run_case(globals(), CASE)
