"""pvpython checks of the Morse-Smale Complex filter's mesh path (issue 9).

Oracles: the implicit grid (the filter on an image with Complex = Simplicial: no mesh
is stored, a separate triangulation backend) against a tet mesh built here in numpy from
TTK's documented Freudenthal split; the CLI (`topogpu msc --mesh`, a separate front end)
on the same mesh written to disk; Euler's relation against V - E + F - T counted here
from the cells; numpy checks of the outputs: every vertex labelled, each minimum in its
own region, ManifoldSize = the labels' histogram, polylines from a saddle to an
extremum at the simplices' barycentres.

Usage: pvpython msc_mesh_test.py PLUGIN DATA_DIR CASE  (TOPOGPU_CLI: the CLI)
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
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkUnstructuredGrid  # noqa: E402
from vtkmodules.vtkCommonCore import vtkPoints  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())
CLI = os.environ.get("TOPOGPU_CLI", "")


def mesh_source(points, cells, values, cell_type=10):
    ug = vtkUnstructuredGrid()
    pts = vtkPoints()
    pts.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(points, dtype=np.float64),
                                           deep=1))
    ug.SetPoints(pts)
    k = cells.shape[1]
    flat = np.hstack([np.full((len(cells), 1), k), cells]).astype(np.int64).ravel()
    ca = vtkCellArray()
    ca.ImportLegacyFormat(numpy_support.numpy_to_vtkIdTypeArray(flat, deep=1))
    ug.SetCells(cell_type, ca)
    return pv_helpers.scalar_producer(ug, np.asarray(values, dtype=np.float64)), ug


def euler(cells):
    faces = [set() for _ in range(cells.shape[1])]
    for c in cells:
        for k in range(1, cells.shape[1] + 1):
            faces[k - 1].update(itertools.combinations(sorted(c), k))
    return sum((-1) ** k * len(f) for k, f in enumerate(faces))


def run(source, **properties):
    # The checks below (every vertex labelled, labels equal across triangulations) are
    # those of the rule through the boundary; TTK's rule (the default) labels a vertex by
    # its first star cell, which differs between an image and its tets
    # (cli.msc_ttk_segmentation checks it).
    # the whole complex (PersistenceThreshold 0: tests/pvpython/
    # msc_persistence_threshold_test.py checks the thresholded one)
    msc = TopoGPUMorseSmaleComplex(Input=source, AscendingThroughBoundary=1,
                                   PersistenceThreshold=0)
    messages = Messages(msc)
    msc.SelectInputScalars = ["POINTS", "s"]
    for key, value in properties.items():
        setattr(msc, key, value)
    msc.UpdatePipeline()
    out = [dsa.WrapDataObject(servermanager.Fetch(msc, idx=p)) for p in range(4)]
    assert not messages.errors, messages.errors
    Delete(msc)
    return out, messages


def canonical(out, top):
    """Critical points as (dimension, rounded barycentre) and each vertex's labels as
    the positions of its extrema: comparable across triangulations."""
    cp, seg = out[0], out[3]
    dim = np.asarray(cp.PointData["CellDimension"])
    boundary = np.asarray(cp.PointData["IsBoundaryMaximum"])
    pos = [tuple(np.round(p, 6)) for p in np.asarray(cp.Points)]
    minima = [pos[i] for i in range(len(pos)) if dim[i] == 0]
    maxima = ([pos[i] for i in range(len(pos)) if dim[i] == top and not boundary[i]]
              + [pos[i] for i in range(len(pos)) if boundary[i]])
    asc = [minima[l] for l in np.asarray(seg.PointData["DescendingManifold"])]
    desc = [maxima[l] for l in np.asarray(seg.PointData["AscendingManifold"])]
    points = sorted(zip(dim.tolist(), pos))
    counts = np.asarray(cp.FieldData["CriticalCellCounts"]).tolist()
    return counts, points, asc, desc


def check_outputs(out, top, nv, chi, edges):
    cp, sep, _, seg = out
    counts = np.asarray(cp.FieldData["CriticalCellCounts"])
    assert counts[0] - counts[1] + counts[2] - counts[3] == chi, (counts, chi)
    asc = np.asarray(seg.PointData["DescendingManifold"])
    desc = np.asarray(seg.PointData["AscendingManifold"])
    ms = np.asarray(seg.PointData["MorseSmaleManifold"])
    assert len(asc) == nv and asc.min() >= 0 and desc.min() >= 0 and ms.min() >= 0, \
        "a vertex is unlabelled"
    dim = np.asarray(cp.PointData["CellDimension"])
    size = np.asarray(cp.PointData["ManifoldSize"])
    boundary = np.asarray(cp.PointData["IsBoundaryMaximum"])
    n_min = int((dim == 0).sum())
    n_max = int(((dim == top) & (boundary == 0)).sum() + boundary.sum())
    assert len(np.unique(asc)) == n_min and asc.max() == n_min - 1, "a minimum has no region"
    assert np.array_equal(size[dim == 0], np.bincount(asc, minlength=n_min))
    assert desc.max() < n_max
    # minimum regions are connected: union-find over the edges inside a region
    parent = np.arange(nv)

    def find(v):
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v
    for a, b in edges:
        if asc[a] == asc[b]:
            parent[find(a)] = find(b)
    roots = {find(v) for v in range(nv)}
    assert len(roots) == n_min, "%d connected pieces for %d minima" % (len(roots), n_min)
    # separatrices: from a saddle to an extremum of the right dimension
    types = np.asarray(sep.CellData["SeparatrixType"])
    pdim = np.asarray(sep.PointData["CellDimension"])
    paths = pv_helpers.separatrix_paths(sep.VTKObject)
    assert len(paths) > 0
    for i, ids in paths:
        t = types[i]
        first, last = pdim[ids[0]], pdim[ids[-1]]
        if t == 0:
            assert first == 1 and last == 0, (t, first, last)
        elif t == top - 1:
            assert first == top - 1 and last in (top, top - 1), (t, first, last)
        else:
            assert t == 1 and first == 2 and last == 1, (t, first, last)
    return counts


def case_freudenthal():
    """A tet mesh of TTK's split of a grid: the same complex as the image's implicit
    simplicial path, through Auto (explicit), Explicit and GALE (CPU producers)."""
    rng = np.random.default_rng(5)
    dims = (9, 8, 7)
    values = rng.integers(0, 15, np.prod(dims)).astype(np.float64)  # ties on purpose
    points = np.array([(x, y, z) for z in range(dims[2]) for y in range(dims[1])
                       for x in range(dims[0])], dtype=np.float64)
    tets = np.array(freudenthal_tets(*dims), dtype=np.int64)
    edges = {e for t in tets for e in itertools.combinations(sorted(t), 2)}
    image, _ = pv_helpers.image_source(dims, values)
    grid, _ = run(image, Complex="Simplicial", ComputeSaddleConnectors=1)
    expected = canonical(grid, 3)
    mesh, _ = mesh_source(points, tets, values)
    chi = euler(tets)
    for choice in ("Auto", "Explicit", "GALE (CPU producers)"):
        out, _ = run(mesh, Triangulation=choice, ComputeSaddleConnectors=1)
        counts = check_outputs(out, 3, len(points), chi, edges)
        got = canonical(out, 3)
        for name, a, b in zip(("counts", "critical points", "DescendingManifold",
                               "AscendingManifold"), got, expected):
            assert a == b, "%s: %s differs from the implicit grid's" % (choice, name)
        arcs = np.asarray(out[0].FieldData["ArcCounts"]).tolist()
        assert arcs == np.asarray(grid[0].FieldData["ArcCounts"]).tolist(), (choice, arcs)
    # an image stored as tets (Triangulation = Explicit) is simplicial too
    stored, _ = run(image, Triangulation="Explicit")
    assert canonical(stored, 3)[:2] == expected[:2]
    print("freudenthal: %s critical cells, chi %d, identical on implicit, explicit and "
          "GALE" % (counts.tolist(), chi))


def case_cli():
    """ParaView's Tetrahedralize of an image (its own split), the filter against the CLI
    on the same mesh written to a .vtu."""
    rng = np.random.default_rng(9)
    image, _ = pv_helpers.image_source((10, 9, 8), rng.random(720))
    tets = Tetrahedralize(Input=image)
    out, _ = run(tets, ComputeSaddleConnectors=1)
    ug = servermanager.Fetch(tets)
    cells = numpy_support.vtk_to_numpy(ug.GetCells().GetConnectivityArray()).reshape(-1, 4)
    edges = {e for t in cells for e in itertools.combinations(sorted(t), 2)}
    check_outputs(out, 3, ug.GetNumberOfPoints(), euler(cells), edges)
    if not CLI:
        print("cli: no TOPOGPU_CLI, the CLI comparison skipped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tets.vtu")
        SaveData(path, proxy=tets)
        r = subprocess.run([CLI, "msc", "--mesh", path, "--array", "s", "--json"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        cli = json.loads(r.stdout)
    fd = out[0].FieldData
    assert np.asarray(fd["CriticalCellCounts"]).tolist() == cli["critical_cells"]
    a = cli["arcs"]
    assert np.asarray(fd["ArcCounts"]).tolist() == [a["saddle1_minimum"], a["saddle2_maximum"],
                                                    a["saddle1_saddle2"]]
    assert np.asarray(fd["ArcMultiplicitySums"]).tolist() == [
        a["saddle1_minimum_multiplicity_sum"], a["saddle2_maximum_multiplicity_sum"],
        a["saddle1_saddle2_multiplicity_sum"]]
    assert int(np.asarray(fd["BoundaryMaximumCount"])[0]) == cli["boundary_maxima"]
    print("cli: %s, arcs %s as the CLI's" % (cli["critical_cells"], a))


def case_shared_mesh():
    """A shared tet mesh and a triangle surface: explicit and GALE identical outputs."""
    sources = [(LegacyVTKReader(FileNames=[os.path.join(DATA, "tets", "vtk_post_lox.vtk")]),
                "Pressure", 3),
               (Elevation(Input=Sphere(ThetaResolution=32, PhiResolution=24),
                          LowPoint=[0, 0, -0.5], HighPoint=[0, 0, 0.5]), "Elevation", 2)]
    for source, array, top in sources:
        calc = Calculator(Input=source, ResultArrayName="s", Function=array)
        results = [canonical(run(calc, Triangulation=choice)[0], top)
                   for choice in ("Auto", "GALE (CPU producers)")]
        assert results[0] == results[1], array
        counts = results[0][0]
        if top == 2:
            assert counts[0] - counts[1] + counts[2] == 2, counts  # a sphere
        print("shared_mesh: %s %s identical with explicit and GALE" % (array, counts))


def case_bad_inputs():
    """Bad meshes: a clear error naming the problem and empty outputs."""
    points = np.array([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)], dtype=float)
    tets = np.array([(0, 1, 2, 3), (1, 2, 3, 4)])
    nan = np.array([0, 1, np.nan, 3, 4])
    cases = ((mesh_source(points, tets, nan)[0], "NaN or infinite value at vertex 2"),
             (Elevation(Input=Line()), "triangle"),
             (mesh_source(points[:0], tets[:0], nan[:0])[0], "empty"))
    for source, fragment in cases:
        msc = TopoGPUMorseSmaleComplex(Input=source)
        messages = Messages(msc)
        msc.UpdatePipeline()
        out = [servermanager.Fetch(msc, idx=p) for p in range(4)]
        assert all(o.GetNumberOfPoints() == 0 for o in out), "outputs not empty"
        text = " ".join(messages.errors)
        assert fragment.lower() in text.lower(), "error %r lacks %r" % (text, fragment)
        print("bad input: %s" % text.strip().splitlines()[-1])
        Delete(msc)


def case_progress_abort():
    rng = np.random.default_rng(3)
    image, _ = pv_helpers.image_source((30, 30, 30), rng.random(27000))
    tets = Tetrahedralize(Input=image)
    msc = TopoGPUMorseSmaleComplex(Input=tets)
    msc.SelectInputScalars = ["POINTS", "s"]
    inner, full = pv_helpers.check_progress_and_abort(
        msc, Messages(msc), [0.3],
        lambda p: servermanager.Fetch(p, idx=0).GetNumberOfPoints())
    assert full > 0, "no critical points"
    print("progress_abort: %d steps, abort honoured" % len(set(inner)))


pv_helpers.run_case(globals(), CASE)
