"""`topogpu simplify` (topological simplification, core/topological_simplification)
against oracles written without the project's code (tests/oracles/simplicial_persistence.py:
GUDHI's lower-star persistence on the same simplices, TTK's Freudenthal split of grids):

  1. the output's extrema (empty lower link; interior vertices with an empty upper link,
     from the output's <field>_Order, by numpy) are exactly the kept ones: the birth
     vertices of GUDHI's 0-dimensional pairs of persistence >= T and the essential
     minima, the death vertices of GUDHI's (d-1)-dimensional pairs of persistence >= T
     (and a closed surface's essential maximum), and the global maximum when it is an
     interior maximum of the input (TTK keeps the global extrema);
  2. every kept extremum pair whose two end vertices keep their value appears in the
     output's diagram (GUDHI on the output order, read with the output values) with its
     exact birth and death;
  3. per dimension, the bottleneck distance (gudhi.bottleneck_distance) between the
     output's diagram and the input's minus the removed extremum pairs is < T;
  4. a vertex whose sublevel component (at its own rank) holds a kept minimum and whose
     superlevel component holds a kept maximum or the boundary (a union-find here) keeps
     its value bit for bit, and these vertices keep their relative order; the output
     order sorts the output values;
  5. the output array has the input's type.
Constraint mode with the thresholded diagram gives the threshold's output; bad input.

    python3 test_simplify.py TOPOGPU_BINARY SHARED_DATA_DIR
"""
import itertools
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles"))
import cli_helpers  # noqa: E402
import simplicial_persistence as oracle  # noqa: E402
from cli_helpers import check, np  # noqa: E402
from mesh_cases import TYPES, torus, write_vtk  # noqa: E402

try:
    import gudhi
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
except ImportError:
    print("SKIP: gudhi or vtk is not available to this python")
    sys.exit(77)

TOPOGPU, DATA = cli_helpers.arguments()


def read_output(path, name):
    reader = vtk.vtkXMLGenericDataObjectReader()
    reader.SetFileName(path)
    reader.Update()
    pd = reader.GetOutput().GetPointData()
    return vtk_to_numpy(pd.GetArray(name)), vtk_to_numpy(pd.GetArray(name + "_Order"))


def complex_of(tops, n):
    """Vertex neighbours and boundary vertices (faces of one top simplex only)."""
    tops = np.sort(np.asarray(tops, dtype=np.int64), axis=1)
    k = tops.shape[1]
    edges = np.unique(np.concatenate([tops[:, [a, b]] for a, b in
                                      itertools.combinations(range(k), 2)]), axis=0)
    neighbours = [[] for _ in range(n)]
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    facets = np.concatenate([tops[:, list(c)] for c in itertools.combinations(range(k), k - 1)])
    uniq, count = np.unique(facets, axis=0, return_counts=True)
    boundary = np.zeros(n, dtype=bool)
    boundary[np.unique(uniq[count == 1])] = True
    return neighbours, boundary


def extrema(neighbours, boundary, rank):
    minima = {v for v, nb in enumerate(neighbours) if all(rank[u] > rank[v] for u in nb)}
    maxima = {v for v, nb in enumerate(neighbours)
              if not boundary[v] and all(rank[u] < rank[v] for u in nb)}
    return minima, maxima


def kept_extrema(finite, essential, values, d, threshold):
    kmin = {b for t, b, e in finite if t == 0 and values[e] - values[b] >= threshold}
    kmin |= {b for t, b in essential if t == 0}
    kmax = {e for t, b, e in finite if t == d - 1 and values[e] - values[b] >= threshold}
    kmax |= {b for t, b in essential if t == d}
    return kmin, kmax


def sourced(neighbours, rank, sources, extra=None):
    """Per vertex: whether its component of {u : rank(u) <= rank(v)} holds a source (a
    union-find in rank order); extra: vertices joined to a virtual source (boundary)."""
    n = len(rank)
    parent = list(range(n + 1))
    has = [False] * (n + 1)
    has[n] = True

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    out = np.zeros(n, dtype=bool)
    added = np.zeros(n, dtype=bool)
    for v in np.argsort(rank):
        added[v] = True
        has[v] = v in sources
        roots = {find(u) for u in neighbours[v] if added[u]} | {v}
        if extra is not None and extra[v]:
            roots.add(find(n))
        r = max(roots)  # keep the virtual node as a root when present
        for x in roots:
            parent[x] = r
            has[r] = has[r] or has[x]
        out[v] = has[find(v)]
    return out


def diagram_values(tops, order, values, d):
    finite, essential = oracle.gudhi_vertex_pairs(tops, order)
    per_dim = {k: [(float(values[b]), float(values[e])) for t, b, e in finite if t == k]
               for k in range(d)}
    return per_dim, finite, essential


def run(tmp, name, domain, *extra, out_ext=".vti"):
    out = os.path.join(tmp, name + "_out" + out_ext)
    backend = () if "--backend" in extra else ("--backend", "cpu")
    result = cli_helpers.topogpu("simplify", *domain, *backend, "--out", out, "--json",
                                 *extra, timeout=300, memory=None)
    if result.returncode != 0:
        check(False, f"{name}: rc {result.returncode}: {result.stderr.strip()[-300:]}")
        return None, None
    return json.loads(result.stdout), out


def verify(name, tops, values, simplified, order, threshold, d, report):
    n = len(values)
    values = np.asarray(values)
    check(simplified.dtype == values.dtype, f"{name}: output type {simplified.dtype} "
          f"!= input {values.dtype}")
    neighbours, boundary = complex_of(tops, n)
    rank = oracle.vertex_ranks(values)
    f64, s64 = values.astype(np.float64), simplified.astype(np.float64)
    finite, essential = oracle.gudhi_vertex_pairs(tops, rank)
    kmin, kmax = kept_extrema(finite, essential, f64, d, threshold)
    # the global maximum stays whatever its pair's persistence (TTK keeps the global
    # extrema), when it is a maximum of the input
    top = int(np.argmax(rank))
    if top in extrema(neighbours, boundary, rank)[1]:
        kmax.add(top)
    # (1) the output's extrema are the kept ones
    check(sorted(order) == list(range(n)), f"{name}: the order is not a permutation")
    check(np.all(np.diff(s64[np.argsort(order)]) >= 0),
          f"{name}: the output order does not sort the output values")
    minima, maxima = extrema(neighbours, boundary, order)
    check(minima == kmin, f"{name}: output minima {sorted(minima - kmin)[:5]} not kept, "
          f"kept {sorted(kmin - minima)[:5]} lost ({len(minima)} vs {len(kmin)})")
    check(maxima == kmax, f"{name}: output maxima {sorted(maxima - kmax)[:5]} not kept, "
          f"kept {sorted(kmax - maxima)[:5]} lost ({len(maxima)} vs {len(kmax)})")
    # (2) kept extremum pairs with unchanged ends keep their birth and death
    out_dims, out_finite, out_essential = diagram_values(tops, order, s64, d)
    unchanged = values == simplified
    for k in range(d):
        theirs = [(f64[b], f64[e]) for t, b, e in finite if t == k and
                  (k == 0 and b in kmin or k == d - 1 and e in kmax) and
                  unchanged[b] and unchanged[e]]
        ours = list(out_dims[k])
        missing = []
        for p in theirs:
            if p in ours:
                ours.remove(p)
            else:
                missing.append(p)
        check(not missing, f"{name}: kept pairs of dimension {k} with unchanged ends "
              f"missing from the output diagram: {missing[:5]}")
    # (3) bottleneck to the input minus the removed pairs
    for k in range(d):
        rest = [(f64[b], f64[e]) for t, b, e in finite if t == k and not
                (k == 0 and b not in kmin or k == d - 1 and e not in kmax)]
        distance = gudhi.bottleneck_distance(np.array(rest).reshape(-1, 2),
                                             np.array(out_dims[k]).reshape(-1, 2))
        check(distance < threshold or (distance == 0 and threshold == 0),
              f"{name}: bottleneck distance {distance} >= threshold {threshold} in "
              f"dimension {k}")
    # (4) vertices outside the removed regions keep value and relative order
    low = sourced(neighbours, rank, kmin)
    high = sourced(neighbours, n - 1 - rank, kmax, boundary)
    fixed = np.flatnonzero(low & high)
    check(np.array_equal(values[fixed].view(np.uint8), simplified[fixed].view(np.uint8)),
          f"{name}: {int(np.sum(values[fixed] != simplified[fixed]))} vertices outside the "
          "removed regions changed value")
    check(np.array_equal(np.argsort(rank[fixed]), np.argsort(order[fixed])),
          f"{name}: vertices outside the removed regions changed their relative order")
    check(report["kept_minima"] == len(kmin) and report["kept_maxima"] == len(kmax),
          f"{name}: JSON kept counts {report['kept_minima']}, {report['kept_maxima']} != "
          f"{len(kmin)}, {len(kmax)}")
    return kmin, kmax


def between_persistence(values, tops, fraction):
    """A threshold strictly between two persistence values (no pair sits on it)."""
    finite, _ = oracle.gudhi_vertex_pairs(tops, oracle.vertex_ranks(values))
    p = np.unique([float(values[e]) - float(values[b]) for _, b, e in finite])
    p = p[p > 0]
    i = min(max(int(len(p) * fraction), 1), len(p) - 1)
    return float((p[i - 1] + p[i]) / 2)


def grid_case(tmp, name, values, fraction, constraint=False):
    nz, ny, nx = values.shape
    path = cli_helpers.raw_case(tmp, name, values, values.dtype)
    domain = ("--raw", path, "--dims", f"{nx},{ny},{nz}", "--type", TYPES[values.dtype.type])
    tops = oracle.grid_simplices(nx, ny, nz)
    flat = values.ravel()
    threshold = between_persistence(flat.astype(np.float64), tops, fraction)
    report, out = run(tmp, name, domain, "--threshold", repr(threshold))
    if report is None:
        return
    simplified, order = read_output(out, "Scalars")
    verify(name, tops, flat, simplified, order, threshold, 3 if nz > 1 else 2, report)
    if constraint:
        constraint_case(tmp, name, domain, threshold, simplified, order)


def constraint_case(tmp, name, domain, threshold, simplified, order):
    """The thresholded diagram as constraints gives the threshold's output."""
    csv_path = os.path.join(tmp, name + "_diagram.csv")
    r = cli_helpers.topogpu("persistence", *domain, "--backend", "cpu", "--out", csv_path)
    check(r.returncode == 0, f"{name}: persistence failed {r.stderr[-200:]}")
    with open(csv_path) as f:
        lines = f.read().splitlines()
    header = lines[0].split(",")
    col = {h: i for i, h in enumerate(header)}
    kept = [line for line in lines[1:] if line.split(",")[col["IsFinite"]] == "0" or
            float(line.split(",")[col["Persistence"]]) >= threshold]
    cpath = cli_helpers.write(tmp, name + "_kept.csv", "\n".join([lines[0]] + kept) + "\n")
    # TTK's layout: the diagram .vtu thresholded on Persistence by VTK (the diagonal,
    # whose ends name no vertex, passes too)
    vtu_path = os.path.join(tmp, name + "_diagram.vtu")
    r = cli_helpers.topogpu("persistence", *domain, "--backend", "cpu", "--out", vtu_path)
    check(r.returncode == 0, f"{name}: persistence .vtu failed {r.stderr[-200:]}")
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(vtu_path)
    cut = vtk.vtkThreshold()
    cut.SetInputConnection(reader.GetOutputPort())
    cut.SetInputArrayToProcess(0, 0, 0, vtk.vtkDataObject.FIELD_ASSOCIATION_CELLS,
                               "Persistence")
    cut.SetThresholdFunction(vtk.vtkThreshold.THRESHOLD_UPPER)
    cut.SetUpperThreshold(threshold)
    writer = vtk.vtkXMLUnstructuredGridWriter()
    writer.SetInputConnection(cut.GetOutputPort())
    vpath = os.path.join(tmp, name + "_kept.vtu")
    writer.SetFileName(vpath)
    writer.Write()
    for label, constraints in (("csv", cpath), ("vtu", vpath)):
        report, out = run(tmp, f"{name}_constraints_{label}", domain, "--constraints",
                          constraints)
        if report is None:
            continue
        s2, o2 = read_output(out, "Scalars")
        check(np.array_equal(s2.view(np.uint8), simplified.view(np.uint8)) and
              np.array_equal(o2, order),
              f"{name}: constraint mode ({label}) differs from the threshold")


def mesh_case(tmp, name, points, cells, values, fraction):
    path = os.path.join(tmp, name + ".vtk")
    write_vtk(path, points, cells, values)
    threshold = between_persistence(np.asarray(values, dtype=np.float64), cells, fraction)
    report, out = run(tmp, name, ("--mesh", path, "--array", "f"), "--threshold",
                      repr(threshold), out_ext=".vtu")
    if report is None:
        return
    simplified, order = read_output(out, "f")
    verify(name, cells, np.asarray(values, dtype=np.float64), simplified, order, threshold,
           len(cells[0]) - 1, report)


def input_read_once(tmp):
    """--out writes the simplified field into the input's data set as read for the run:
    the input file is opened no more often than by the same run without --out (inotify
    counts the opens, the checking read in a child process included)."""
    points, triangles = torus(8, 6)
    values = np.random.default_rng(3).random(len(points))
    legacy = os.path.join(tmp, "once.vtk")
    write_vtk(legacy, points, triangles, values)
    reader = vtk.vtkUnstructuredGridReader()
    reader.SetFileName(legacy)
    writer = vtk.vtkXMLUnstructuredGridWriter()
    writer.SetInputConnection(reader.GetOutputPort())
    writer.SetFileName(os.path.join(tmp, "once.vtu"))
    writer.Write()
    for ext in (".vtk", ".vtu"):
        path = os.path.join(tmp, "once" + ext)
        domain = ("simplify", "--mesh", path, "--array", "f", "--threshold", "0.2",
                  "--backend", "cpu")
        plain, opened = cli_helpers.opens_during(path, *domain)
        out = os.path.join(tmp, "once_out.vtu")
        written, opened_out = cli_helpers.opens_during(path, *domain, "--out", out)
        if opened is None:
            print("note: no inotify here, the input's reads are not counted")
            continue
        check(plain.returncode == 0 and written.returncode == 0 and os.path.exists(out),
              f"read once {ext}: rc {plain.returncode}/{written.returncode} "
              f"{written.stderr[-300:]}")
        check(opened > 0 and opened_out == opened,
              f"read once {ext}: the input was opened {opened} times without --out, "
              f"{opened_out} with --out")


def bad_input(tmp):
    values = np.random.default_rng(5).random((6, 7)).astype(np.float32)
    path = cli_helpers.raw_case(tmp, "bad", values, np.float32)
    grid = ("--raw", path, "--dims", "7,6,1", "--type", "float32", "--json")
    nan = values.copy()
    nan.flat[17] = np.nan
    nan_path = cli_helpers.raw_case(tmp, "nan", nan, np.float32)
    out = os.path.join(tmp, "bad_out.vti")
    cli_helpers.expect_error("NaN", ("simplify", "--raw", nan_path, "--dims", "7,6,1",
                                     "--type", "float32", "--threshold", "0.1", "--out", out,
                                     "--json"), "vertex 17")
    check(not os.path.exists(out), "NaN: an output file was written")
    cli_helpers.expect_error("negative threshold", ("simplify", *grid, "--threshold", "-1"),
                             "threshold")
    cli_helpers.expect_error("NaN threshold", ("simplify", *grid, "--threshold", "nan"),
                             "threshold")
    cli_helpers.expect_error("no threshold", ("simplify", *grid), "--threshold")
    cli_helpers.expect_error("both", ("simplify", *grid, "--threshold", "1", "--constraints",
                                      path), "either")
    header = ("PairIdentifier,PairType,IsFinite,Birth,Death,Persistence,BirthVertex,"
              "DeathVertex,BirthCriticalType,DeathCriticalType\n")
    far = cli_helpers.write(tmp, "far.csv", header + "0,0,1,0,1,1,3,99,0,1\n")
    cli_helpers.expect_error("constraint out of range", ("simplify", *grid, "--constraints",
                                                         far), "99")
    broken = cli_helpers.write(tmp, "broken.csv", "a,b\n1,2\n")
    cli_helpers.expect_error("constraint file without columns",
                             ("simplify", *grid, "--constraints", broken), "BirthVertex")
    # a constraint that is not an extremum: a warning, and the run goes on
    rank = oracle.vertex_ranks(values.ravel())
    neighbours, boundary = complex_of(oracle.grid_simplices(7, 6, 1), 42)
    minima, maxima = extrema(neighbours, boundary, rank)
    regular = next(v for v in range(42) if v not in minima and v not in maxima)
    plain = cli_helpers.write(tmp, "plain.csv", header + f"0,0,1,0,1,1,{regular},{regular},0,3\n")
    r = cli_helpers.topogpu("simplify", *grid, "--constraints", plain)
    check(r.returncode == 0 and "constraint_ignored" in json.loads(r.stdout)["warning_codes"],
          f"non-extremum constraint: rc {r.returncode} {r.stdout[-300:]}")
    one = cli_helpers.raw_case(tmp, "one", np.array([1.0], dtype=np.float32), np.float32)
    cli_helpers.expect_error("one vertex", ("simplify", "--raw", one, "--dims", "1,1,1",
                                            "--type", "float32", "--threshold", "1",
                                            "--json"), "grid")


rng = np.random.default_rng(22)
with tempfile.TemporaryDirectory() as tmp:
    grid_case(tmp, "random2d", rng.random((14, 15)).astype(np.float32)[None], 0.5, True)
    grid_case(tmp, "random2d_most", rng.random((14, 15)).astype(np.float64)[None], 0.9)
    grid_case(tmp, "ties2d", rng.integers(0, 4, (13, 12)).astype(np.uint8)[None], 0.5, True)
    y, x = np.mgrid[0:16, 0:17]
    grid_case(tmp, "smooth2d", (np.sin(x / 2.0) * np.cos(y / 3.0) * 100).astype(np.int16)[None],
              0.5)
    grid_case(tmp, "random3d", rng.random((8, 9, 10)).astype(np.float32), 0.5, True)
    grid_case(tmp, "random3d_few", rng.random((8, 9, 10)).astype(np.float32), 0.2)
    grid_case(tmp, "ties3d", rng.integers(0, 5, (9, 8, 10)).astype(np.uint8), 0.6)
    z, y, x = np.mgrid[0:12, 0:11, 0:10]
    grid_case(tmp, "smooth3d", (np.sin(x / 2.0) * np.cos(y / 2.5) + np.sin(z / 3.0)
                                + 0.05 * rng.random((12, 11, 10))).astype(np.float32), 0.7)
    # meshes: a closed torus surface (essential maximum) and a tet mesh (a grid's tets
    # stored explicitly, values with a few big features)
    points, triangles = torus(12, 9)
    mesh_case(tmp, "torus", points, triangles, rng.random(len(points)), 0.5)
    nx, ny, nz = 6, 5, 7
    tets = oracle.grid_simplices(nx, ny, nz)
    pts = [(i, j, k) for k in range(nz) for j in range(ny) for i in range(nx)]
    mesh_case(tmp, "tets", pts, tets, rng.random(len(pts)), 0.5)
    input_read_once(tmp)
    bad_input(tmp)
cli_helpers.finish()
