"""pvpython checks of the TopoGPU Morse-Smale Complex filter.

Two oracles: the CLI (`topogpu msc --details`, a separate front end of the core: its
critical cells, boundary maxima, arcs with multiplicities and labels, as refined-grid
ids) and numpy checks written here from the definitions: cell positions give refined
coordinates, consecutive polyline cells are faces of each other (refined distance 1),
V-path values are monotone (a cell's value is its largest vertex value, computed here
from the image), endpoints are the critical cells named by SourceId/DestinationId,
every vertex is labelled, ManifoldSize is the labels' histogram, MorseSmaleManifold is
one id per (ascending, descending) pair, Euler's relation on the critical cells.

Usage: pvpython morse_smale_complex_test.py PLUGIN DATA_DIR CASE  (TOPOGPU_CLI: the CLI)
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pv_helpers  # noqa: E402
from paraview import servermanager  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa  # noqa: E402

PLUGIN, DATA, CASE = pv_helpers.load_plugin(globals())
CLI = os.environ.get("TOPOGPU_CLI", "")
PORTS = ("critical points", "1-separatrices", "2-separatrices", "segmentation")


image = pv_helpers.image_source


def outputs(msc):
    msc.UpdatePipeline()
    return [dsa.WrapDataObject(servermanager.Fetch(msc, idx=p)) for p in range(4)]


def refined(points, img):
    """Refined-grid coordinates (2x the vertex index: odd along the axes a cell spans)
    of cell centres, on the squeezed grid (axes of one vertex dropped)."""
    origin, spacing = np.array(img.GetOrigin()), np.array(img.GetSpacing())
    exact = 2 * (np.asarray(points) - origin) / spacing - 2 * np.array(img.GetExtent()[0::2])
    coords = np.rint(exact).astype(np.int64)
    assert np.allclose(coords, exact), "off-grid point"
    keep = [a for a in range(3) if img.GetDimensions()[a] > 1]
    out = np.zeros_like(coords)
    out[:, :len(keep)] = coords[:, keep]
    return out


def on_boundary(coords, n):
    """Cells on an extreme plane of an axis they do not span."""
    hit = np.zeros(len(coords), dtype=bool)
    for a in range(3):
        if n[a] > 1:
            hit |= (coords[:, a] % 2 == 0) & ((coords[:, a] == 0) | (coords[:, a] == 2 * n[a] - 2))
    return hit


def squeezed_dims(img):
    n = [d for d in img.GetDimensions() if d > 1]
    return n + [1] * (3 - len(n))


def refined_id(coords, n):
    r = [2 * k - 1 for k in n]
    return coords[:, 0] + r[0] * (coords[:, 1] + r[1] * coords[:, 2])


def cell_values(coords, values, n):
    """The lower-star value of each cell: the largest of its vertices'."""
    v = np.asarray(values, dtype=np.float64).reshape(n[2], n[1], n[0])
    best = np.full(len(coords), -np.inf)
    for corner in range(8):
        idx = [(coords[:, a] + ((corner >> a) & 1)) // 2 for a in range(3)]
        best = np.maximum(best, v[idx[2], idx[1], idx[0]])
    return best


def check(msc, img, values, name="s"):
    """The numpy checks; returns the outputs and the critical cells as refined ids."""
    cp, sep, sep2, seg = outputs(msc)
    n = squeezed_dims(img)
    dimension = 3 if n[2] > 1 else 2
    nv = img.GetNumberOfPoints()
    # Port 0.
    dims = np.asarray(cp.PointData["CellDimension"])
    bmax = np.asarray(cp.PointData["IsBoundaryMaximum"]).astype(bool)
    coords = refined(cp.Points, img)
    assert np.array_equal(dims, (coords % 2).sum(axis=1)), "CellDimension vs position"
    counts = [int(np.sum((dims == k) & ~bmax)) for k in range(4)]
    assert counts == list(np.asarray(cp.FieldData["CriticalCellCounts"])), counts
    assert counts[0] - counts[1] + counts[2] - counts[3] == 1, "Euler: %s" % counts
    assert np.all(dims[bmax] == dimension - 1), "a boundary maximum is not a facet"
    assert int(bmax.sum()) == int(np.asarray(cp.FieldData["BoundaryMaximumCount"])[0])
    assert np.allclose(np.asarray(cp.PointData[name]), cell_values(coords, values, n)), \
        "critical point values"
    ids = refined_id(coords, n)
    # Port 3: every vertex labelled, sizes, the Morse-Smale ids.
    asc = np.asarray(seg.PointData["DescendingManifold"])
    desc = np.asarray(seg.PointData["AscendingManifold"])
    ms = np.asarray(seg.PointData["MorseSmaleManifold"])
    minima = np.flatnonzero(dims == 0)
    maxima = np.concatenate([np.flatnonzero((dims == dimension) & ~bmax), np.flatnonzero(bmax)])
    assert asc.min() >= 0 and asc.max() < len(minima), "unlabelled or bad ascending labels"
    assert desc.min() >= 0 and desc.max() < len(maxima), "unlabelled or bad descending labels"
    cdesc = np.asarray(seg.CellData["AscendingManifold"])
    assert len(cdesc) == img.GetNumberOfCells() and cdesc.min() >= 0 and cdesc.max() < len(maxima)
    assert list(np.asarray(cp.FieldData["UnlabelledVertices"])) == [0, 0]
    size = np.asarray(cp.PointData["ManifoldSize"])
    assert np.array_equal(size[minima], np.bincount(asc, minlength=len(minima))), "ManifoldSize"
    assert np.array_equal(size[maxima], np.bincount(desc, minlength=len(maxima))), "ManifoldSize"
    # a minimum flows to itself
    min_vertex = (coords[minima, 0] // 2 + n[0] * (coords[minima, 1] // 2 + n[1] *
                                                   (coords[minima, 2] // 2)))
    assert np.array_equal(asc[min_vertex], np.arange(len(minima))), "minimum not in its manifold"
    pairs = asc * (len(maxima) + 1) + desc
    _, first, inverse = np.unique(pairs, return_index=True, return_inverse=True)
    assert len(np.unique(ms)) == len(first) and np.array_equal(ms, ms[first][inverse]), \
        "MorseSmaleManifold is not one id per (ascending, descending) pair"
    assert len(np.unique(ms[first])) == len(first)
    assert sep2.VTKObject.GetNumberOfPoints() == 0, "2-separatrices are off by default"
    # Port 1: TTK's line cells along V-paths, endpoints named by SourceId/DestinationId.
    poly = sep.VTKObject
    pc = refined(sep.Points, img)
    pv = cell_values(pc, values, n)
    pdim, pid = np.asarray(sep.PointData["CellDimension"]), np.asarray(sep.PointData["CellId"])
    assert np.array_equal(pdim, (pc % 2).sum(axis=1))
    types = np.asarray(sep.CellData["SeparatrixType"])
    source, dest = np.asarray(sep.CellData["SourceId"]), np.asarray(sep.CellData["DestinationId"])
    fmin = np.asarray(sep.CellData["SeparatrixFunctionMinimum"])
    fmax = np.asarray(sep.CellData["SeparatrixFunctionMaximum"])
    fdiff = np.asarray(sep.CellData["SeparatrixFunctionDifference"])
    critical = set(ids.tolist())
    arcs, keys = {}, {}
    for c, p in pv_helpers.separatrix_paths(poly):
        assert len(p) >= 2
        step = np.abs(np.diff(pc[p], axis=0)).sum(axis=1)
        # V-path steps join a face and a coface; where an ascending path has left the
        # box it goes on over boundary facets that share a ridge (refined distance 2).
        facet = (pdim[p] == dimension - 1) & on_boundary(pc[p], n)
        ridge = (step == 2) & facet[:-1] & facet[1:]
        assert np.all((step == 1) | ridge), \
            "separatrix at line %d: consecutive cells are not adjacent: %s" % (
                c, pc[p].tolist())
        v = pv[p]
        descending = types[c] == 0
        assert types[c] in (0, dimension - 1)
        assert np.all(np.diff(v) <= 0) if descending else np.all(np.diff(v) >= 0), \
            "separatrix at line %d is not monotone" % c
        assert pdim[p[0]] == (1 if descending else dimension - 1) and pid[p[0]] == source[c]
        assert pid[p[-1]] == dest[c]
        assert pdim[p[-1]] == 0 if descending else pdim[p[-1]] >= dimension - 1
        saddle, extremum = refined_id(pc[p[[0, -1]]], n)
        assert saddle in critical and extremum in critical, "endpoint not a critical point"
        assert np.isclose(fmin[c], v.min()) and np.isclose(fmax[c], v.max())
        assert np.isclose(fdiff[c], v.max() - v.min())
        key = (int(descending), int(saddle), int(extremum))
        arcs[key] = arcs.get(key, 0) + 1
        keys[c] = key
    mult = np.asarray(sep.CellData["Multiplicity"])
    # each V-path its own separatrix; Multiplicity: its saddle's paths to that extremum
    assert all(mult[c] == arcs[key] for c, key in keys.items()), "Multiplicity"
    return cp, sep, seg, ids, dims, bmax, arcs, mult


def cli_details(values, dims, dtype):
    assert CLI, "TOPOGPU_CLI is not set"
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "field.raw")
        np.ascontiguousarray(values).astype(dtype).tofile(raw)
        details = os.path.join(tmp, "details.json")
        subprocess.run([CLI, "msc", "--complex", "cubical", "--raw", raw, "--dims",
                        ",".join(map(str, dims)),
                        "--type", {np.uint8: "uint8", np.float32: "float32"}[dtype],
                        "--backend", "cpu", "--details", details],
                       check=True, stdout=subprocess.DEVNULL)
        with open(details) as f:
            return json.load(f)


def compare_with_cli(values, dims, dtype):
    source, img = image(dims, values.astype(dtype))
    msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical")
    messages = pv_helpers.Messages(msc)
    cp, sep, seg, ids, dims_, bmax, arcs, mult = check(msc, img, values.astype(dtype))
    assert not messages.errors, messages.errors
    ref = cli_details(values, dims, dtype)
    for k in range(4):
        got = sorted(ids[(dims_ == k) & ~bmax].tolist())
        assert got == sorted(ref["critical_cells"][k]), "critical %d-cells differ" % k
    assert sorted(ids[bmax].tolist()) == sorted(ref["maxima"][len(ref["critical_cells"][
        ref["dimension"]]):]), "boundary maxima differ"
    for name in ("DescendingManifold", "AscendingManifold"):
        assert np.array_equal(np.asarray(seg.PointData[name]), ref[name]), name
    assert np.array_equal(np.asarray(seg.CellData["AscendingManifold"]),
                          ref["CellAscendingManifold"])
    expected = {}
    for descending, kind in ((1, "saddle1_minimum"), (0, "saddle_maximum")):
        for saddle, extremum, m in ref[kind]:
            expected[(descending, saddle, extremum)] = m
    assert arcs == expected, "arcs differ from the CLI's: %d vs %d" % (len(arcs), len(expected))
    field = np.asarray(cp.FieldData["ArcMultiplicitySums"])
    assert field[0] == sum(m for (d, _, _), m in arcs.items() if d == 1)
    assert field[1] == sum(m for (d, _, _), m in arcs.items() if d == 0)
    assert np.all(np.isin(mult, (1, 2)))
    print("%s: %s critical cells, %d arcs, as the CLI" %
          (dims, [int(np.sum((dims_ == k) & ~bmax)) for k in range(4)], len(arcs)))


# ---- cases ---------------------------------------------------------------------------
def case_random():
    rng = np.random.default_rng(6)
    for dims in ((9, 7, 6), (12, 10, 1), (1, 8, 9)):
        # few values: massive ties, broken by the vertex order
        compare_with_cli(rng.integers(0, 6, size=int(np.prod(dims))), dims, np.uint8)
    compare_with_cli(rng.normal(size=11 * 8 * 7), (11, 8, 7), np.float32)


def case_volume():
    path = os.path.join(DATA, "volumes", "fuel_64x64x64_uint8.raw")
    values = np.fromfile(path, dtype=np.uint8)
    compare_with_cli(values, (64, 64, 64), np.uint8)


def case_analytic():
    # A double well, (x^2 - 1)^2 + y^2 + z^2 (+ a slight tilt against ties), rising
    # towards every face of the box: two minima near x = -1 and x = 1, one 1-saddle
    # between them at the origin whose two paths reach both, no 2-saddle, no maximum
    # (the sublevel sets are balls), so every descending path ends on the boundary.
    z, y, x = np.meshgrid(np.linspace(-1, 1, 13), np.linspace(-1, 1, 15), np.linspace(-2, 2, 41),
                          indexing="ij")
    f = (x * x - 1) ** 2 + y * y + z * z + 0.01 * x
    source, img = image((41, 15, 13), f.ravel(), spacing=(0.1, 1 / 7, 1 / 6), origin=(-2, -1, -1))
    msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical")
    cp, sep, seg, ids, dims, bmax, arcs, mult = check(msc, img, f.ravel())
    counts = [int(np.sum((dims == k) & ~bmax)) for k in range(4)]
    assert counts == [2, 1, 0, 0], counts
    pts = np.asarray(cp.Points)
    assert np.allclose(sorted(pts[dims == 0][:, 0]), (-1, 1), atol=0.11), pts[dims == 0]
    assert np.allclose(pts[(dims == 1) & ~bmax], 0, atol=0.2), pts[dims == 1]
    descending = [(s, e) for (d, s, e) in arcs if d == 1]
    assert len(descending) == 2 and len({e for _, e in descending}) == 2, arcs
    asc = np.asarray(seg.PointData["DescendingManifold"])
    left = int(np.argmin(pts[dims == 0][:, 0]))
    assert np.all(asc[x.ravel() < -0.15] == left) and np.all(asc[x.ravel() > 0.15] == 1 - left)
    print("analytic: %s, the saddle's paths reach both wells" % counts)


def case_switches():
    source = Wavelet()
    img = dsa.WrapDataObject(servermanager.Fetch(source)).VTKObject
    values = np.asarray(dsa.WrapDataObject(img).PointData["RTData"])
    full = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical")
    cp, sep, seg, *_ = check(full, img, values, "RTData")
    types = np.asarray(sep.CellData["SeparatrixType"])
    assert set(types.tolist()) == {0, 2}, set(types.tolist())
    for prop, port, what in (("ComputeCriticalPoints", 0, None),
                             ("ComputeDescendingSeparatrices1", 1, 0),
                             ("ComputeAscendingSeparatrices1", 1, 2),
                             ("ComputeAscendingSegmentation", 3, "AscendingManifold"),
                             ("ComputeDescendingSegmentation", 3, "DescendingManifold"),
                             ("ComputeFinalSegmentation", 3, "MorseSmaleManifold")):
        # the array named: paraview.simple fills defaults from the active source first
        msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical", SelectInputScalars=["POINTS", "RTData"])
        setattr(msc, prop, 0)
        out = outputs(msc)
        if what is None:
            assert out[port].VTKObject.GetNumberOfPoints() == 0, prop
        elif isinstance(what, int):
            left = np.asarray(out[1].CellData["SeparatrixType"])
            assert what not in left and len(left) == np.sum(types != what), prop
        else:
            pd = out[3].VTKObject.GetPointData()
            assert pd.GetArray(what) is None and pd.GetArray("RTData") is not None, prop
            for name in ("DescendingManifold", "AscendingManifold", "MorseSmaleManifold"):
                assert (pd.GetArray(name) is None) == (name == what), (prop, name)
        for other in range(4):
            if other != port:
                assert out[other].VTKObject.GetNumberOfPoints() > 0 or other == 2, (prop, other)
    both = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical", SelectInputScalars=["POINTS", "RTData"],
                                    ComputeAscendingSeparatrices1=0,
                                    ComputeDescendingSeparatrices1=0)
    assert outputs(both)[1].VTKObject.GetNumberOfCells() == 0
    print("switches: each output and separatrix kind off alone")


def image_with(dims, arrays):
    """A TrivialProducer of an image of dims with the given point arrays (name: numpy
    array, (n,) or (n, components)); the first is the active scalars."""
    from vtkmodules.util import numpy_support
    from vtkmodules.vtkCommonDataModel import vtkImageData
    img = vtkImageData()
    img.SetDimensions(*dims)
    for k, (name, values) in enumerate(arrays.items()):
        a = numpy_support.numpy_to_vtk(np.ascontiguousarray(values), deep=1)
        a.SetName(name)
        img.GetPointData().AddArray(a)
        if k == 0:
            img.GetPointData().SetActiveScalars(name)
    source = TrivialProducer()  # noqa: F405
    source.GetClientSideObject().SetOutput(img)
    return source


def case_bad_inputs():
    values = np.arange(5 * 4 * 3, dtype=np.float32)
    values[7] = np.inf
    nan = np.arange(5 * 4 * 3, dtype=np.float64)
    nan[59] = np.nan
    vectors = np.arange(5 * 4 * 3 * 3, dtype=np.float32).reshape(-1, 3)
    cases = ((image((5, 4, 3), values)[0], None, "NaN or infinite value at vertex 7"),
             (image((5, 4, 3), -values)[0], None, "NaN or infinite value at vertex 7"),
             (image((5, 4, 3), nan)[0], None, "NaN or infinite value at vertex 59"),
             (image((6, 1, 1), np.arange(6.0))[0], None, "2D or 3D grid"),
             (image((1, 6, 1), np.arange(6.0))[0], None, "2D or 3D grid"),
             (image((1, 1, 6), np.arange(6.0))[0], None, "2D or 3D grid"),
             (image((1, 1, 1), np.arange(1.0))[0], None, "2D or 3D grid"),
             # a vector array named explicitly: the filter needs one component
             (image_with((5, 4, 3), {"s": np.zeros(60), "v": vectors}), "v",
              "'v' has 3 components"),
             (image_with((5, 4, 3), {"v": vectors}), None, "no numeric one-component"),
             (image((0, 0, 0), np.zeros(0))[0], None, "empty"))
    for source, array, fragment in cases:
        msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical")  # noqa: F405
        if array:
            msc.SelectInputScalars = ["POINTS", array]
        messages = pv_helpers.Messages(msc)
        out = outputs(msc)
        assert all(o.VTKObject.GetNumberOfPoints() == 0 for o in out), "outputs not empty"
        text = " ".join(messages.errors)
        assert fragment.lower() in text.lower(), "error %r lacks %r" % (text, fragment)
        print("bad input: %s" % text.strip().splitlines()[-1])
    # a constant field is handled: one minimum, the rest paired
    source, img = image((4, 3, 3), np.zeros(36, dtype=np.int32))
    cp, *_ = check(TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical"), img, np.zeros(36))  # noqa: F405
    assert list(np.asarray(cp.FieldData["CriticalCellCounts"])) == [1, 0, 0, 0]
    # Every VTK scalar type gives the complex of the vertex order only: the same outputs
    # as the ranks as int32, also for 64-bit values that doubles cannot tell apart.
    rng = np.random.default_rng(11)
    dims = (6, 5, 4)
    ranks = rng.permutation(np.arange(120) % 7)

    def segmentation_and_points(values):
        source, _ = image(dims, values)
        msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical")  # noqa: F405
        messages = pv_helpers.Messages(msc)
        cp, _, _, seg = outputs(msc)
        assert not messages.errors, messages.errors
        return ([np.asarray(seg.PointData[n]) for n in
                 ("DescendingManifold", "AscendingManifold", "MorseSmaleManifold")] +
                [np.asarray(cp.Points), np.asarray(cp.PointData["CellDimension"])])

    reference = segmentation_and_points(ranks.astype(np.int32))
    for dtype, offset in ((np.int8, -100), (np.uint8, 3), (np.int16, -30000),
                          (np.uint16, 60000), (np.uint32, 4000000000), (np.int64, -2 ** 62),
                          (np.uint64, 2 ** 63), (np.float32, 0.5), (np.float64, 1e12)):
        typed = np.array(offset, dtype=dtype) + ranks.astype(dtype)
        assert np.all(np.diff(typed[np.argsort(ranks, kind="stable")].astype(object)) >= 0)
        got = segmentation_and_points(typed)
        assert all(np.array_equal(a, b) for a, b in zip(got, reference)), \
            "%s: the complex differs from the int32 ranks'" % np.dtype(dtype).name
    print("every scalar type: the complex of the order only")


def case_documentation():
    msc = TopoGPUMorseSmaleComplex(Input=Wavelet())
    names = pv_helpers.documented_properties(msc)
    # The panel's text (long help at the top, description) is true for every input: port
    # 2 is computed (the separatrices2 case checks its walls), and meshes run on their
    # simplices, not on "the image's cubical complex".
    doc = msc.SMProxy.GetDocumentation()
    for text in (doc.GetLongHelp(), doc.GetDescription(), doc.GetShortHelp()):
        for false in ("empty for now", "not computed yet", "on the image's cubical complex"):
            assert false not in " ".join(text.split()), "help says %r: %s" % (false, text)
    assert "mesh" in doc.GetLongHelp() and "simplices" in doc.GetLongHelp(), doc.GetLongHelp()
    # port 1 holds TTK's line cells (one per V-path step), not one polyline per separatrix
    for name in (None, "ComputeAscendingSeparatrices1", "ComputeDescendingSeparatrices1",
                 "ComputeSaddleConnectors"):
        d = doc if name is None else msc.SMProxy.GetProperty(name).GetDocumentation()
        text = " ".join((d.GetLongHelp() + " " + d.GetDescription()).split())
        assert "polyline" not in text and "line cell" in text, (name, text)
    gradient = TopoGPUDiscreteGradient(Input=Wavelet()).SMProxy.GetDocumentation()
    assert "on the image's cubical complex" not in gradient.GetLongHelp() and \
        "mesh" in gradient.GetLongHelp(), gradient.GetLongHelp()
    expected = {"Input", "SelectInputScalars", "Backend", "ComputeCriticalPoints",
                "ComputeAscendingSeparatrices1", "ComputeDescendingSeparatrices1",
                "ComputeSaddleConnectors", "ComputeAscendingSeparatrices2",
                "ComputeDescendingSeparatrices2", "ComputeAscendingSegmentation",
                "ComputeDescendingSegmentation", "ComputeFinalSegmentation", "Complex",
                "Triangulation"}
    assert expected <= set(names), expected - set(names)
    doc = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "filters",
                            "morse-smale-complex.md")).read()
    missing = [n for n in expected if n not in doc]
    assert not missing, "not in docs/filters/morse-smale-complex.md: %s" % missing
    run_documented_examples()


def run_documented_examples():
    """The pvpython examples of this filter's page and the discrete gradient's, run as
    written (fresh pvpython, PV_PLUGIN_PATH set, as the docs tell users); the Morse-Smale
    complex's also under `mpiexec -n 2 pvbatch --mpi` (but those marked "# serial
    only"), where it must print what the serial run prints (the whole domain's complex, not per-piece fragments)."""
    import re
    import shutil
    # without this process's own MPI singleton settings, which a nested mpiexec rejects
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "PMI_", "OPAL_", "HYDRA_"))}
    env["PV_PLUGIN_PATH"] = os.path.dirname(os.path.abspath(PLUGIN))
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    block = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
    pvpython, pvbatch, mpiexec = (shutil.which(p) for p in ("pvpython", "pvbatch", "mpiexec"))
    assert pvpython, "no pvpython on PATH"

    def run(command, script):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "example.py")
            with open(path, "w") as f:
                f.write(script)
            done = subprocess.run(command + [path], cwd=root, env=env, timeout=150,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True)
        assert done.returncode == 0 and "Traceback" not in done.stdout, \
            "%s failed (exit %d):\n%s" % (" ".join(command), done.returncode,
                                          done.stdout[-3000:])
        return [line for line in done.stdout.splitlines()
                if line.startswith(("minima,", "1-separatrices:", "critical cells",
                                    "segmentation:"))]

    for page in ("morse-smale-complex.md", "discrete-gradient.md"):
        with open(os.path.join(root, "docs", "filters", page)) as f:
            scripts = block.findall(f.read())
        assert scripts, "no python example in docs/filters/" + page
        for script in scripts:
            serial = run([pvpython], script)
            print("docs/filters/%s example ran: %s" % (page, serial))
            # (an example that cannot run distributed says "# serial only"; the mesh
            # example runs distributed too: its pieces are gathered and welded)
            if (page == "morse-smale-complex.md" and pvbatch and mpiexec
                    and "# serial only" not in script):
                distributed = run([mpiexec, "-n", "2", "--allow-run-as-root",
                                   "--oversubscribe", pvbatch, "--mpi"], script)
                assert serial and distributed == serial, (distributed, serial)
                print("  and under 2 MPI ranks, the same:", distributed)


def case_saddle_connectors():
    """Port 1's saddle-saddle arcs (SeparatrixType 1) against the CLI's --details: the same
    (1-saddle, 2-saddle) pairs with the same multiplicities (which the unit tests check
    against a brute-force V-path count), each drawn as a path of adjacent cells from the
    2-saddle down to the 1-saddle; -1 in the field data when switched off."""
    rng = np.random.default_rng(8)
    for dims, values, dtype in (((9, 7, 6), rng.integers(0, 6, size=9 * 7 * 6), np.uint8),
                                ((11, 8, 7), rng.normal(size=11 * 8 * 7), np.float32)):
        source, img = image(dims, values.astype(dtype))
        msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical")
        msc.SelectInputScalars = ["POINTS", "s"]
        cp, sep, _, _ = outputs(msc)
        assert int(np.asarray(cp.FieldData["ArcCounts"])[2]) == -1, "off: not computed"
        assert not np.any(np.asarray(sep.CellData["SeparatrixType"]) == 1)
        msc.ComputeSaddleConnectors = 1
        cp, sep, _, _ = outputs(msc)
        ref = cli_details(values, dims, dtype)
        expected = {(a, b): m for a, b, m in ref["saddle1_saddle2"]}
        n = squeezed_dims(img)
        coords = refined(sep.Points, img)
        ids = refined_id(coords, n)
        types = np.asarray(sep.CellData["SeparatrixType"])
        multiplicity = np.asarray(sep.CellData["Multiplicity"])
        got = {}
        for c, pts in pv_helpers.separatrix_paths(sep.VTKObject):
            if types[c] != 1:
                continue
            steps = np.abs(np.diff(coords[pts], axis=0)).sum(axis=1)
            assert np.all(steps == 1), "saddle connector jumps between cells"
            dims_along = (coords[pts] % 2).sum(axis=1)
            assert dims_along[0] == 2 and dims_along[-1] == 1, "not 2-saddle -> 1-saddle"
            key = (int(ids[pts[-1]]), int(ids[pts[0]]))
            assert key not in got, "pair drawn twice"
            got[key] = int(multiplicity[c])
        assert got == expected, "saddle connectors differ from the CLI's (%d vs %d)" % (
            len(got), len(expected))
        assert int(np.asarray(cp.FieldData["ArcCounts"])[2]) == len(expected)
        assert int(np.asarray(cp.FieldData["ArcMultiplicitySums"])[2]) == sum(
            expected.values())
        print("%s: %d saddle connectors, multiplicity sum %d, as the CLI" %
              (dims, len(got), sum(got.values())))


def coords_from_ids(ids, n):
    """Refined coordinates of refined ids (the inverse of refined_id)."""
    ids = np.asarray(ids, dtype=np.int64)
    r = [2 * k - 1 for k in n]
    return np.stack([ids % r[0], ids // r[0] % r[1], ids // (r[0] * r[1])], axis=1)


def polygons(poly):
    """Point ids of each cell of a vtkPolyData."""
    return [[poly.GetCell(c).GetPointId(i) for i in range(poly.GetCell(c).GetNumberOfPoints())]
            for c in range(poly.GetNumberOfCells())]


def wall_cell(corners):
    """The wall cell a port-2 polygon draws, from its corners' refined coordinates: a quad
    (type 2) has its 4 vertices as corners; an edge (type 1) is perpendicular to the plane
    of its dual quad, whose corners are voxel centres, clipped to the box on the boundary:
    along each axis of the plane the edge sits at the even coordinate in the corners'
    range."""
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    return np.where(hi - lo == 2, lo + 1, np.where(lo % 2 == 0, lo, hi))


def wall_checks(msc, img, values, name="s"):
    """Port 2 against port 0 and the image (numpy, from the definitions): array names and
    TTK 1.2 types; each polygon 4 corners, cyclic, planar and axis-aligned, drawing a quad
    (type 2) or an edge (type 1); one SeparatrixId per saddle, every critical quad
    (descending) and critical edge (ascending) has a wall holding it, the other cells of a
    wall are not critical; walls connected (quads through shared edges, edges through
    shared quads); values never above (descending) / below (ascending) the saddle's;
    SeparatrixFunction* the extremes over the wall's cells and the critical cells on its
    border, NumberOfCriticalPointsOnBoundary the saddle plus the border saddles on the
    box's boundary. Returns {(type, saddle refined id): set of wall cell refined ids}."""
    cp, _, sep2, _ = outputs(msc)
    n = squeezed_dims(img)
    poly = sep2.VTKObject
    assert poly.IsA("vtkPolyData"), poly.GetClassName()
    cd = poly.GetCellData()
    types = {"SourceId": "vtkIdTypeArray", "SeparatrixId": "vtkIdTypeArray",
             "SeparatrixType": "vtkSignedCharArray",
             "SeparatrixFunctionMaximum": "vtkDoubleArray",
             "SeparatrixFunctionMinimum": "vtkDoubleArray",
             "SeparatrixFunctionDifference": "vtkDoubleArray",
             "NumberOfCriticalPointsOnBoundary": "vtkSignedCharArray"}
    for array, cls in types.items():
        assert cd.GetArray(array) is not None and cd.GetArray(array).GetClassName() == cls, array
    dims = np.asarray(cp.PointData["CellDimension"])
    bmax = np.asarray(cp.PointData["IsBoundaryMaximum"]).astype(bool)
    ccoords = refined(cp.Points, img)
    cids = np.asarray(cp.PointData["CellId"])
    critical = {int(r): c for r, c in zip(refined_id(ccoords, n)[~bmax], ccoords[~bmax])}
    saddle_of = {(k, int(i)): int(r) for k, i, r in
                 zip(dims[~bmax], cids[~bmax], refined_id(ccoords, n)[~bmax]) if k in (1, 2)}
    corners = refined(sep2.Points, img)
    stype = np.asarray(sep2.CellData["SeparatrixType"])
    source = np.asarray(sep2.CellData["SourceId"])
    sid = np.asarray(sep2.CellData["SeparatrixId"])
    walls, ids = {}, {}
    for c, p in enumerate(polygons(poly)):
        assert len(p) == 4, "polygon %d has %d corners" % (c, len(p))
        q = corners[p]
        steps = (q != np.roll(q, -1, axis=0)).sum(axis=1)
        assert np.all(steps == 1), "polygon %d is not a cyclic axis-aligned quad" % c
        flat = [a for a in range(3) if len(set(q[:, a])) == 1]
        assert len(flat) == 1, "polygon %d is not planar in an axis plane" % c
        cell = wall_cell(q)
        kind = int(stype[c])
        assert kind in (1, 2)
        if kind == 2:
            assert np.all(q % 2 == 0) and np.all(cell % 2 == [int(a != flat[0]) for a in range(3)])
        else:
            assert np.all(cell % 2 == [int(a == flat[0]) for a in range(3)]), "not an edge"
        saddle = saddle_of[(kind, int(source[c]))]  # a critical cell of port 0
        key = (kind, saddle)
        walls.setdefault(key, set()).add(int(refined_id(cell[None, :], n)[0]))
        assert ids.setdefault(key, int(sid[c])) == int(sid[c]), "two SeparatrixIds for a wall"
    assert len(set(ids.values())) == len(ids), "a SeparatrixId shared by two walls"
    for k in (1, 2):
        got = sorted(s for (kind, s) in walls if kind == k)
        want = sorted(r for r, c in critical.items() if (c % 2).sum() == k)
        assert got == want, "walls of the %d-saddles: %d of %d" % (k, len(got), len(want))
    r = [2 * a - 1 for a in n]

    def coords_of(ids_):
        return coords_from_ids(sorted(ids_), n)

    def neighbours(c, d):
        out = []
        for a in range(3):
            for s_ in (-1, 1):
                m = c.copy()
                m[a] += s_
                if 0 <= m[a] < r[a] and (m % 2).sum() == d:
                    out.append(int(refined_id(m[None, :], n)[0]))
        return out

    fmax = np.asarray(sep2.CellData["SeparatrixFunctionMaximum"])
    fmin = np.asarray(sep2.CellData["SeparatrixFunctionMinimum"])
    fdiff = np.asarray(sep2.CellData["SeparatrixFunctionDifference"])
    onb = np.asarray(sep2.CellData["NumberOfCriticalPointsOnBoundary"])
    for (kind, saddle), cells in walls.items():
        assert saddle in cells, "a wall without its saddle"
        d, other = (2, 1) if kind == 2 else (1, 2)
        cc = coords_of(cells)
        others = [c for c in cells if c != saddle]
        assert not set(others) & set(critical), "a critical cell inside a wall"
        v = cell_values(cc, values, n)
        sv = cell_values(coords_of([saddle]), values, n)[0]
        assert np.all(v <= sv) if kind == 2 else np.all(v >= sv), "wall values vs saddle"
        # connected: cells sharing a face (descending) or a coface (ascending)
        links = {c: set(neighbours(x, other)) for c, x in zip(sorted(cells), cc)}
        seen, todo = {saddle}, [saddle]
        while todo:
            c = todo.pop()
            for m in cells:
                if m not in seen and links[c] & links[m]:
                    seen.add(m)
                    todo.append(m)
        assert seen == cells, "wall of %d not connected" % saddle
        border = sorted({b for c in cells for b in links[c] if b in critical})
        extremes = np.concatenate([v, cell_values(coords_of(border), values, n)]) if border \
            else v
        rows = np.flatnonzero(sid == ids[(kind, saddle)])
        assert len(rows) == len(cells), "a wall cell drawn twice"
        assert np.allclose(fmax[rows], extremes.max()) and np.allclose(fmin[rows], extremes.min())
        assert np.allclose(fdiff[rows], extremes.max() - extremes.min())
        bc = coords_of(border + [saddle])
        assert np.all(onb[rows] == on_boundary(bc, n).sum()), "NumberOfCriticalPointsOnBoundary"
    return walls


def case_separatrices2():
    """Port 2: the walls, structural checks on random fields (wall_checks), two fields
    whose walls are known (an index-2 and an index-1 saddle whose walls are the grid's
    middle plane), 2D (none), one kind at a time, the memory limit (a warning, port 2
    empty, the other ports kept)."""
    rng = np.random.default_rng(12)
    for dims, values, dtype in (((7, 6, 5), rng.integers(0, 4, size=7 * 6 * 5), np.uint8),
                                ((8, 7, 6), rng.normal(size=8 * 7 * 6), np.float32)):
        source, img = image(dims, values.astype(dtype))
        msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical", SelectInputScalars=["POINTS", "s"],
                                       ComputeAscendingSeparatrices2=1,
                                       ComputeDescendingSeparatrices2=1)
        messages = pv_helpers.Messages(msc)
        walls = wall_checks(msc, img, values.astype(dtype))
        assert not messages.errors and not messages.warnings, messages.errors + messages.warnings
        assert sum(len(c) > 1 for c in walls.values()) > 5, "walls too trivial to test"
        for prop, kind in (("ComputeAscendingSeparatrices2", 1),
                           ("ComputeDescendingSeparatrices2", 2)):
            setattr(msc, prop, 0)
            left = np.asarray(outputs(msc)[2].CellData["SeparatrixType"])
            assert len(left) == sum(len(c) for (k, _), c in walls.items() if k != kind), prop
            setattr(msc, prop, 1)
        print("%s: %d walls, %d polygons" % (dims, len(walls), sum(map(len, walls.values()))))
    # -x^2 - 1.1 y^2 + 100 z^2: off the middle plane every vertex is higher, so the
    # middle plane's cells pair among themselves, its one maximum (a critical quad) is
    # the only 2-saddle inside and its wall is the whole plane; x^2 + 1.1 y^2 - 100 z^2:
    # one 1-saddle, a z edge, whose wall is every z edge between its two planes.
    nx, ny, nz = 9, 7, 5
    z, y, x = np.meshgrid(np.arange(nz) - 2, np.arange(ny) - 3, np.arange(nx) - 4, indexing="ij")
    for sign, kind in ((-1, 2), (1, 1)):
        f = (sign * (x * x + 1.1 * y * y + 0.01 * x + 0.003 * y - 100.0 * z * z)).ravel()
        source, img = image((nx, ny, nz), f)
        msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical", ComputeAscendingSeparatrices2=1,
                                       ComputeDescendingSeparatrices2=1)
        walls = wall_checks(msc, img, f)
        inner = [(s, c) for (k, s), c in walls.items() if k == kind and
                 not on_boundary(coords_from_ids([s], (nx, ny, nz)), (nx, ny, nz))[0]]
        assert len(inner) == 1, inner
        saddle, cells = inner[0]
        zc = int(coords_from_ids([saddle], (nx, ny, nz))[0, 2])
        if kind == 2:
            want = {xx + 17 * (yy + 13 * 4) for xx in range(1, 17, 2) for yy in range(1, 13, 2)}
        else:
            want = {xx + 17 * (yy + 13 * zc) for xx in range(0, 17, 2) for yy in range(0, 13, 2)}
        assert zc % 2 == (0 if kind == 2 else 1) and cells == want, (kind, saddle, len(cells))
        print("analytic %s: the saddle's wall is the %d cells of its plane" % (
            "descending" if kind == 2 else "ascending", len(want)))
    # 2D: no walls, no error
    source, img = image((9, 8, 1), rng.normal(size=72))
    msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical", ComputeAscendingSeparatrices2=1,
                                   ComputeDescendingSeparatrices2=1)
    messages = pv_helpers.Messages(msc)
    out = outputs(msc)
    assert out[2].VTKObject.GetNumberOfCells() == 0 and out[0].VTKObject.GetNumberOfPoints()
    assert not messages.errors
    # the limit: a warning naming it, port 2 empty, ports 0 1 3 as before
    source, img = image((8, 7, 6), rng.normal(size=8 * 7 * 6))
    os.environ["TOPOGPU_SEPARATRICES2_MAX_CELLS"] = "20"
    try:
        msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Cubical", ComputeAscendingSeparatrices2=1,
                                       ComputeDescendingSeparatrices2=1)
        messages = pv_helpers.Messages(msc)
        out = outputs(msc)
    finally:
        del os.environ["TOPOGPU_SEPARATRICES2_MAX_CELLS"]
    assert out[2].VTKObject.GetNumberOfCells() == 0, "port 2 not empty beyond the limit"
    assert out[0].VTKObject.GetNumberOfPoints() > 0 and out[1].VTKObject.GetNumberOfCells() > 0
    assert any("limit of 20 cells" in w for w in messages.warnings), messages.warnings
    assert not messages.errors, messages.errors
    print("limit: %s" % messages.warnings[0].strip().splitlines()[-1][:100])


pv_helpers.run_case(globals(), CASE)
