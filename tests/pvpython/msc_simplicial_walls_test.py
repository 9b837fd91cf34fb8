"""pvpython checks of the Morse-Smale Complex filter's port 2 on the simplicial complex
(the 2-separatrices as TTK 1.2 draws them: a 2-saddle's descending wall as its triangles,
a 1-saddle's ascending wall as the dual polygons of its edges).

Oracle, written here apart from the core: the simplices of the tet mesh enumerated in
numpy (TTK's Freudenthal split, tests/oracles/freudenthal.py, for images), the gradient
pairs read from the Discrete Gradient filter's glyph port (each end's dimension and
barycentre, matched to the enumerated simplices), then one breadth-first search per
saddle over those pairs: triangle -> its edges -> the triangle an edge is paired with
(descending), edge -> its triangles -> the edge a triangle is paired with (ascending).
Port 2's polygons are mapped back to triangles (their corners are the input's vertices)
and to edges (their corners are tet barycentres: the edge the tets share), and compared
wall by wall: the cells, the function range (the values at the saddles' vertices), the
boundary counts, the polygon counts per type and each dual polygon's cyclic order.

Usage: pvpython msc_simplicial_walls_test.py PLUGIN DATA_DIR CASE
"""
import collections
import itertools
import os
import sys

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
# The whole complex (PersistenceThreshold 0): the oracles walk every saddle's wall.
WALLS = dict(ComputeAscendingSeparatrices2=1, ComputeDescendingSeparatrices2=1,
             PersistenceThreshold=0)


def mesh_source(points, tets, values):
    ug = vtkUnstructuredGrid()
    pts = vtkPoints()
    pts.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(points, dtype=np.float64),
                                           deep=1))
    ug.SetPoints(pts)
    flat = np.hstack([np.full((len(tets), 1), 4), tets]).astype(np.int64).ravel()
    ca = vtkCellArray()
    ca.ImportLegacyFormat(numpy_support.numpy_to_vtkIdTypeArray(flat, deep=1))
    ug.SetCells(10, ca)
    return pv_helpers.scalar_producer(ug, np.asarray(values, dtype=np.float64))


class Complex:
    """The simplices of a tet mesh (sorted vertex tuples) and their relations."""

    def __init__(self, points, tets):
        self.points = np.asarray(points, dtype=np.float64)
        self.tets = [tuple(sorted(t)) for t in tets]
        self.simplices = [sorted({tuple(sorted(f)) for t in self.tets
                                  for f in itertools.combinations(t, k + 1)})
                          for k in range(4)]
        self.edge_triangles = collections.defaultdict(list)
        self.edge_tets = collections.defaultdict(list)
        self.triangle_tets = collections.defaultdict(list)
        for t in self.simplices[2]:
            for e in itertools.combinations(t, 2):
                self.edge_triangles[e].append(t)
        for tet in self.tets:
            for e in itertools.combinations(tet, 2):
                self.edge_tets[e].append(tet)
            for f in itertools.combinations(tet, 3):
                self.triangle_tets[f].append(tet)
        boundary = [f for f in self.simplices[2] if len(self.triangle_tets[f]) == 1]
        self.boundary_triangles = set(boundary)
        self.boundary_edges = {e for f in boundary for e in itertools.combinations(f, 2)}

    def centre(self, s):
        return self.points[list(s)].mean(axis=0)

    def locate(self, dim, xyz):
        """The simplices of dimension dim whose barycentres are at xyz (float32 points)."""
        cells = self.simplices[dim] if dim < 3 else self.tets
        centres = np.array([self.centre(s) for s in cells])
        found = []
        for p in np.asarray(xyz, dtype=np.float64):
            d = np.linalg.norm(centres - p, axis=1)
            order = np.argsort(d)[:2]
            assert d[order[0]] < 1e-4 and (len(d) < 2 or d[order[1]] > 1e-3), (dim, p)
            found.append(cells[order[0]])
        return found


def gradient_pairs(source, cx, image):
    """The pairs of the Discrete Gradient filter's glyph port as {cell: partner}."""
    dg = TopoGPUDiscreteGradient(Input=source)
    dg.SelectInputScalars = ["POINTS", "s"]
    if image:
        dg.Complex = "Simplicial"
    dg.UpdatePipeline()
    glyphs = dsa.WrapDataObject(servermanager.Fetch(dg, idx=1))
    Delete(dg)
    dim = np.asarray(glyphs.PointData["CellDimension"]).astype(int)
    xyz = np.asarray(glyphs.Points)
    cells = [None] * len(dim)
    for k in range(4):
        at = np.nonzero(dim == k)[0]
        for i, s in zip(at, cx.locate(k, xyz[at])):
            cells[i] = s
    pairs = {}
    for i in range(0, len(cells), 2):
        lower, upper = cells[i], cells[i + 1]
        assert set(lower) < set(upper) and lower not in pairs and upper not in pairs
        pairs[lower], pairs[upper] = upper, lower
    return pairs


def oracle_walls(cx, pairs, values):
    """Per saddle: its wall's cells, reached saddles, function range, boundary count;
    descending walls of the critical triangles, ascending ones of the critical edges."""
    critical = [[s for s in cx.simplices[k] if s not in pairs] for k in range(4)]
    vmax = lambda s: max(values[v] for v in s)  # noqa: E731
    vmin = lambda s: min(values[v] for v in s)  # noqa: E731

    def bfs(source, step):
        wall, reached, queue = {source}, set(), collections.deque([source])
        while queue:
            for kind, cell in step(queue.popleft()):
                if kind == "reach":
                    reached.add(cell)
                elif cell not in wall:
                    wall.add(cell)
                    queue.append(cell)
        return wall, reached

    def down(t):
        for e in itertools.combinations(t, 2):
            if e not in pairs:
                yield "reach", e
            elif len(pairs[e]) == 3 and pairs[e] != t:
                yield "visit", pairs[e]

    def up(e):
        for t in cx.edge_triangles[e]:
            if t not in pairs:
                yield "reach", t
            elif len(pairs[t]) == 2 and pairs[t] != e:
                yield "visit", pairs[t]

    descending, ascending = [], []
    oracle_walls.cells = 0  # all walls' cells, drawn or not
    for t in critical[2]:
        wall, reached = bfs(t, down)
        oracle_walls.cells += len(wall)
        low = min(vmin(e) for e in reached) if reached else min(vmin(f) for f in wall)
        count = (t in cx.boundary_triangles) + sum(e in cx.boundary_edges for e in reached)
        descending.append((frozenset(wall), (vmax(t), low), count))
    for e in critical[1]:
        wall, reached = bfs(e, up)
        oracle_walls.cells += len(wall)
        high = max(vmax(t) for t in reached) if reached else max(vmax(f) for f in wall)
        count = (e in cx.boundary_edges) + sum(t in cx.boundary_triangles for t in reached)
        drawn = frozenset(f for f in wall if len(cx.edge_tets[f]) > 2)
        ascending.append((drawn, (high, vmin(e)), count))
    return descending, ascending


def port2_walls(cx, port2):
    """Port 2 per SeparatrixId: (type, cells, range, boundary count, polygons)."""
    poly = port2.VTKObject
    xyz = numpy_support.vtk_to_numpy(poly.GetPoints().GetData()).astype(np.float64)
    offsets = numpy_support.vtk_to_numpy(poly.GetPolys().GetOffsetsArray())
    conn = numpy_support.vtk_to_numpy(poly.GetPolys().GetConnectivityArray())
    cd = port2.CellData
    for name, wanted in (("SourceId", "idtype"), ("SeparatrixId", "idtype"),
                         ("SeparatrixType", "signed char"),
                         ("SeparatrixFunctionMaximum", "double"),
                         ("SeparatrixFunctionMinimum", "double"),
                         ("SeparatrixFunctionDifference", "double"),
                         ("NumberOfCriticalPointsOnBoundary", "signed char")):
        array = poly.GetCellData().GetArray(name)
        assert array is not None and array.GetDataTypeAsString() == wanted, (name, array)
    sid = np.asarray(cd["SeparatrixId"])
    kind = np.asarray(cd["SeparatrixType"]).astype(int)
    fmax, fmin = np.asarray(cd["SeparatrixFunctionMaximum"]), np.asarray(
        cd["SeparatrixFunctionMinimum"])
    assert np.allclose(np.asarray(cd["SeparatrixFunctionDifference"]), fmax - fmin)
    boundary = np.asarray(cd["NumberOfCriticalPointsOnBoundary"]).astype(int)
    # the input's vertices (descending corners) and tet barycentres (ascending ones)
    vertex_of = {tuple(np.round(p, 5)): v for v, p in enumerate(cx.points)}
    walls = collections.defaultdict(lambda: [None, set(), None, None, 0])
    for c in range(len(sid)):
        corners = conn[offsets[c]:offsets[c + 1]]
        w = walls[int(sid[c])]
        if w[0] is None:
            w[0], w[2], w[3] = kind[c], (fmax[c], fmin[c]), boundary[c]
        assert (w[0], w[2], w[3]) == (kind[c], (fmax[c], fmin[c]), boundary[c]), \
            "cell data differs within separatrix %d" % sid[c]
        if kind[c] == 2:
            assert len(corners) == 3, "a descending polygon is not a triangle"
            cell = tuple(sorted(vertex_of[tuple(np.round(xyz[p], 5))] for p in corners))
        else:
            tets = cx.locate(3, xyz[corners])
            shared = set(tets[0]).intersection(*map(set, tets[1:]))
            assert len(shared) == 2 and len(tets) > 2, "not a dual polygon: %s" % (tets,)
            cell = tuple(sorted(shared))
            assert sorted(tets) == sorted(cx.edge_tets[cell]), "not the edge's whole star"
            # cyclic order: consecutive tets share a triangle (open fan on the boundary)
            gaps = sum(len(set(a) & set(b)) != 3 for a, b in zip(tets, tets[1:] + tets[:1]))
            assert gaps <= (1 if cell in cx.boundary_edges else 0), ("order", tets)
        assert cell not in w[1], "a cell drawn twice in one wall"
        w[1].add(cell)
        w[4] += 1
    return walls


def check(source, cx, values, image, **properties):
    pairs = gradient_pairs(source, cx, image)
    descending, ascending = oracle_walls(cx, pairs, values)
    msc = TopoGPUMorseSmaleComplex(Input=source, **WALLS)
    msc.SelectInputScalars = ["POINTS", "s"]
    for key, value in properties.items():
        setattr(msc, key, value)
    messages = Messages(msc)
    msc.UpdatePipeline()
    port2 = dsa.WrapDataObject(servermanager.Fetch(msc, idx=2))
    Delete(msc)
    assert not messages.errors and not messages.warnings, (messages.errors,
                                                           messages.warnings)
    got = port2_walls(cx, port2)
    want = {2: sorted((sorted(w), r, c) for w, r, c in descending),
            1: sorted((sorted(w), r, c) for w, r, c in ascending if w)}
    for t in (2, 1):
        have = sorted((sorted(w[1]), w[2], w[3]) for w in got.values() if w[0] == t)
        assert have == want[t], "type %d walls differ from the BFS oracle" % t
    # descending walls are numbered first, then the ascending ones, one id per saddle
    # (TTK's order: an ascending wall with no polygon keeps its id, unseen)
    types = [got[i][0] for i in sorted(got)]
    assert types == sorted(types, reverse=True), types
    assert max(got) < len(descending) + len(ascending), "SeparatrixId beyond the saddles"
    assert all(got[i][0] == 2 for i in got if i < len(descending)), "ids of type 2 first"
    polygons = {t: sum(len(w) for w, _, _ in want[t]) for t in (2, 1)}
    assert polygons[2] + polygons[1] == port2.VTKObject.GetNumberOfCells()
    assert polygons[2] > 0 and polygons[1] > 0, polygons
    print("walls: %d descending (%d triangles), %d ascending (%d polygons)" % (
        len(want[2]), polygons[2], len(want[1]), polygons[1]))
    return port2


def grid(n, seed):
    rng = np.random.default_rng(seed)
    values = rng.random(n ** 3)
    pts = np.array([(x, y, z) for z in range(n) for y in range(n) for x in range(n)],
                   dtype=np.float64)
    return pts, freudenthal_tets(n, n, n), values


def case_mesh():
    """A tet mesh (explicit backend), its points moved off the lattice."""
    pts, tets, values = grid(5, 11)
    pts = pts + np.random.default_rng(5).uniform(-0.2, 0.2, pts.shape)
    cx = Complex(pts, tets)
    check(mesh_source(pts, np.array(tets), values), cx, values, False)


def case_image():
    """An image with Complex = Simplicial (implicit grid), then through GALE."""
    pts, tets, values = grid(6, 3)
    source, _ = pv_helpers.image_source((6, 6, 6), values)
    cx = Complex(pts, tets)
    check(source, cx, values, True, Complex="Simplicial")
    check(source, cx, values, True, Complex="Simplicial", Triangulation=3)


def case_switches():
    """Off (the default) gives an empty port 2; one kind at a time gives that kind."""
    pts, tets, values = grid(5, 8)
    source, _ = pv_helpers.image_source((5, 5, 5), values)
    counts = {}
    for asc, desc in ((0, 0), (1, 0), (0, 1)):
        msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Simplicial",
                                       ComputeAscendingSeparatrices2=asc,
                                       ComputeDescendingSeparatrices2=desc)
        msc.SelectInputScalars = ["POINTS", "s"]
        messages = Messages(msc)
        msc.UpdatePipeline()
        out = dsa.WrapDataObject(servermanager.Fetch(msc, idx=2))
        Delete(msc)
        assert not messages.warnings, messages.warnings
        types = set(np.asarray(out.CellData["SeparatrixType"]).astype(int).tolist()) \
            if out.VTKObject.GetNumberOfCells() else set()
        counts[(asc, desc)] = out.VTKObject.GetNumberOfCells()
        assert types == ({1} if asc else set()) | ({2} if desc else set()), (asc, desc, types)
    assert counts[(0, 0)] == 0 and counts[(1, 0)] > 0 and counts[(0, 1)] > 0, counts


def case_limit():
    """Walls beyond the cell limit: a warning naming the limit and the properties, port
    2 empty, the rest of the complex intact; a 2D image has no walls (empty, silent)."""
    pts, tets, values = grid(6, 4)
    source, _ = pv_helpers.image_source((6, 6, 6), values)
    oracle_walls(Complex(pts, tets), gradient_pairs(source, Complex(pts, tets), True),
                 values)
    os.environ["TOPOGPU_SEPARATRICES2_MAX_CELLS"] = "20"
    try:
        msc = TopoGPUMorseSmaleComplex(Input=source, Complex="Simplicial", **WALLS)
        msc.SelectInputScalars = ["POINTS", "s"]
        messages = Messages(msc)
        msc.UpdatePipeline()
        out = [dsa.WrapDataObject(servermanager.Fetch(msc, idx=p)) for p in range(3)]
        Delete(msc)
    finally:
        del os.environ["TOPOGPU_SEPARATRICES2_MAX_CELLS"]
    assert out[2].VTKObject.GetNumberOfCells() == 0, "port 2 not empty beyond the limit"
    assert out[0].VTKObject.GetNumberOfPoints() > 0 and out[1].VTKObject.GetNumberOfCells() > 0
    assert not messages.errors, messages.errors
    # the warning names the limit, the size asked for (the oracle's wall cells) and the
    # switches
    size = "they hold %d cells in all" % oracle_walls.cells
    assert any("limit of 20 cells" in w and size in w and "ComputeAscendingSeparatrices2" in w
               for w in messages.warnings), (size, messages.warnings)
    flat, _ = pv_helpers.image_source((8, 8, 1), np.random.default_rng(2).random(64))
    msc = TopoGPUMorseSmaleComplex(Input=flat, Complex="Simplicial", **WALLS)
    msc.SelectInputScalars = ["POINTS", "s"]
    messages = Messages(msc)
    msc.UpdatePipeline()
    assert servermanager.Fetch(msc, idx=2).GetNumberOfCells() == 0
    assert not messages.errors and not messages.warnings, messages.warnings
    Delete(msc)


pv_helpers.run_case(globals(), CASE)
