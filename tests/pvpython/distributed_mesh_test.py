"""Distributed runs (pvbatch --mpi) of the critical points and the smoother on meshes:
whatever way the mesh is split, the pieces together must give the serial result, each
vertex once. Checked against numpy oracles on the serial mesh (cp_oracle.classify,
smoother_oracle.smooth), which the serial filter must match too.

Splits: RedistributeDataSet (no ghost cells, border points on both sides), D3 (border
points on both sides, ghost cells), a partitioned file written by this run and read
back (.pvtu, no ghost cells) and ParaView's Sphere source in pieces (vtkPolyData; the
pieces round their shared points apart) redistributed (points of two source pieces in
one piece), against the serial sphere.

    pvpython distributed_mesh_test.py PLUGIN DATA OUT prepare
    mpiexec -n N pvbatch --mpi distributed_mesh_test.py PLUGIN DATA OUT write
    pvpython distributed_mesh_test.py PLUGIN DATA OUT compare

DATA: the shared data folder (lucy.ply, 50k vertices, and the combustor's 47k-point tets),
or "-" for synthetic meshes (a Sphere source and a tetrahedralized Wavelet).

Without point global ids the pieces' points are matched by place, which cannot tell apart
two points of one cell at the same place (collapsed cells): such a mesh ("collapsed", the
tets with one collapsed tet added) must fail with a clear error on rank 0, every output
empty, and no hang.
"""
import glob
import os
import sys

import numpy as np

from paraview.simple import *  # noqa: F401,F403
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.util import numpy_support

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cp_oracle  # noqa: E402
import pv_helpers  # noqa: E402
import smoother_oracle  # noqa: E402

PLUGIN, DATA, OUT, MODE = sys.argv[1:5]
LoadPlugin(PLUGIN, remote=False, ns=globals())
SYNTHETIC = DATA == "-"
ITERATIONS = 3
# Mesh files written by prepare: (name, scalar); "ids" carries point global ids (its
# point order) and a field with ties, which they break as in the serial run;
# "places" is the same without the ids: ties broken by the points' coordinates, as the
# oracle on the points renumbered in that order (and a warning says so).
# "surface_int" holds 64-bit integers near 2^62, whose passes are exact (no double
# could hold them): the pieces must move them between ranks unrounded.
MESHES = (("surface", "f"), ("surface_ids", "t"), ("surface_places", "t"), ("tets", "f"),
          ("surface_int", "i"))
# The splits each mesh runs on ("source": the Sphere source in pieces, its own field).
SPLITS = {"surface": ("redistribute", "d3", "pvtu", "source"),
          "surface_ids": ("redistribute",), "surface_places": ("redistribute",),
          "tets": ("redistribute", "d3"), "surface_int": ("redistribute", "d3")}


def mdt_path(name):
    return os.path.join(OUT, name + (".vtu" if name == "tets" else ".vtp"))


SPHERE_FIELD = "sin(7*coordsX)*cos(5*coordsY)+coordsZ"


def mdt_sphere():
    return Sphere(ThetaResolution=120, PhiResolution=90, Radius=1.0)  # noqa: F405


# ---- prepare (serial): the meshes, the oracles' answers ----------------------------

def mdt_surface():
    """The ~50k-vertex surface (lucy.ply) or the synthetic sphere, as vtkPolyData."""
    from vtkmodules.vtkCommonDataModel import vtkPolyData

    if SYNTHETIC:
        source = mdt_sphere()
        source.UpdatePipeline()
        surface = vtkPolyData()
        surface.ShallowCopy(source.GetClientSideObject().GetOutput())
        return surface
    from vtkmodules.vtkIOPLY import vtkPLYReader

    reader = vtkPLYReader()
    reader.SetFileName(os.path.join(DATA, "surfaces", "lucy.ply"))
    reader.Update()
    return reader.GetOutput()


def mdt_tets():
    """The combustor's tets or a tetrahedralized Wavelet, as a vtkUnstructuredGrid."""
    from vtkmodules.vtkCommonDataModel import vtkUnstructuredGrid

    if not SYNTHETIC:
        from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader

        reader = vtkXMLUnstructuredGridReader()
        reader.SetFileName(os.path.join(DATA, "tets", "combustor_density_tets.vtu"))
        reader.Update()
        return reader.GetOutput()
    tets = Tetrahedralize(Input=Wavelet(WholeExtent=[0, 15, 0, 13, 0, 11]))  # noqa: F405
    tets.UpdatePipeline()
    grid = vtkUnstructuredGrid()
    grid.ShallowCopy(tets.GetClientSideObject().GetOutput())
    return grid


def mdt_add(data, name, values):
    array = numpy_support.numpy_to_vtk(np.ascontiguousarray(values), deep=1)
    array.SetName(name)
    data.GetPointData().AddArray(array)
    return array


def mdt_cells(data):
    """The triangles or tets of data as an (m, 3 or 4) array, for the oracles."""
    if data.IsA("vtkPolyData"):
        cells = data.GetPolys()
        types = np.full(cells.GetNumberOfCells(), cp_oracle.VTK_TRIANGLE)
    else:
        cells = data.GetCells()
        types = numpy_support.vtk_to_numpy(data.GetCellTypesArray())
    offsets = numpy_support.vtk_to_numpy(cells.GetOffsetsArray())
    connectivity = numpy_support.vtk_to_numpy(cells.GetConnectivityArray())
    if data.IsA("vtkPolyData"):
        assert np.all(np.diff(offsets) == 3), "the surface must be triangles"
    return cp_oracle.cells_of_highest_dimension(types, offsets, connectivity)


def mdt_prepare():
    from vtkmodules.vtkCommonDataModel import vtkPolyData, vtkUnstructuredGrid
    from vtkmodules.vtkIOXML import vtkXMLPolyDataWriter, vtkXMLUnstructuredGridWriter

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(19)
    surface, tets = mdt_surface(), mdt_tets()
    for name, scalar in MESHES:
        if name == "surface_places":
            continue  # surface_ids without its ids (its oracle is made with it)
        base = tets if name == "tets" else surface
        data = (vtkUnstructuredGrid if name == "tets" else vtkPolyData)()
        data.CopyStructure(base)
        n = data.GetNumberOfPoints()
        if scalar == "f":
            values = rng.random(n)  # no ties
        elif scalar == "i":
            values = (2 ** 62 + rng.integers(-2 ** 40, 2 ** 40, size=n)).astype(np.int64)
        else:
            values = rng.integers(0, 6, size=n).astype(np.float64)  # ties everywhere
            ids = mdt_add(data, "ids", np.arange(n, dtype=np.int64))
            data.GetPointData().SetGlobalIds(ids)
        mdt_add(data, scalar, values)
        cells = mdt_cells(data)
        types = cp_oracle.classify(values, cells, n).types
        smooth = smoother_oracle.smooth_integers if scalar == "i" else smoother_oracle.smooth
        smoothed = smooth(values, smoother_oracle.edges_of_cells(cells), ITERATIONS)
        points = dsa.WrapDataObject(data).Points
        np.savez(os.path.join(OUT, name + "_oracle.npz"), points=np.asarray(points),
                 types=types, smoothed=smoothed)
        if name == "surface_ids":
            p = np.asarray(points, dtype=np.float64)
            order = np.lexsort((p[:, 2], p[:, 1], p[:, 0]))  # by x, then y, then z
            renumbered = np.empty(n, dtype=np.int64)
            renumbered[order] = np.arange(n)
            by_place = cp_oracle.classify(values[order], renumbered[cells], n).types
            np.savez(os.path.join(OUT, "surface_places_oracle.npz"), points=p,
                     types=by_place[renumbered], smoothed=smoothed)
        writer = (vtkXMLUnstructuredGridWriter if name == "tets" else vtkXMLPolyDataWriter)()
        writer.SetFileName(mdt_path(name))
        writer.SetInputData(data)
        writer.SetDataModeToBinary()
        writer.Write()
        # The serial filters against the oracles: the reference is the serial result.
        reader = OpenDataFile(mdt_path(name))  # noqa: F405
        serial = mdt_keyed_cp([pv_helpers.fetch(mdt_cp(reader, scalar))])
        assert serial == mdt_oracle_cp(name), "serial critical points differ from the oracle"
        got = pv_helpers.fetch(mdt_smoother(reader, scalar)).PointData[scalar]
        bad = smoother_oracle.mismatches(got, smoothed, values.dtype)
        assert bad.size == 0, "serial smoother differs from the oracle at %d points" % bad.size
        print("%s: %d points, %d critical points" % (name, n, len(serial)))
    # Small tets with a point doubled and a collapsed tet on both copies.
    collapsed = vtkUnstructuredGrid()
    small = Tetrahedralize(Input=Wavelet(WholeExtent=[0, 9, 0, 8, 0, 7]))  # noqa: F405
    small.UpdatePipeline()
    collapsed.CopyStructure(small.GetClientSideObject().GetOutput())
    ids = collapsed.GetCell(0).GetPointIds()
    collapsed.GetPoints().InsertNextPoint(collapsed.GetPoint(ids.GetId(0)))
    n = collapsed.GetNumberOfPoints()
    collapsed.InsertNextCell(10, 4, [ids.GetId(0), n - 1, ids.GetId(1), ids.GetId(2)])
    mdt_add(collapsed, "f", rng.random(n))
    writer = vtkXMLUnstructuredGridWriter()
    writer.SetFileName(os.path.join(OUT, "collapsed.vtu"))
    writer.SetInputData(collapsed)
    writer.Write()


# ---- the filters ------------------------------------------------------------------

def mdt_cp(source, scalar):
    cp = TopoGPUCriticalPoints(Input=source)  # noqa: F405
    cp.SelectInputScalars = ["POINTS", scalar]
    return cp


def mdt_smoother(source, scalar):
    sm = TopoGPUScalarFieldSmoother(Input=source)  # noqa: F405
    sm.SelectInputScalars = ["POINTS", scalar]
    sm.NumberOfIterations = ITERATIONS
    return sm


# ---- write (mpiexec -n N pvbatch --mpi): each rank records its output --------------

RECORD = """
import os
import numpy as np
from vtkmodules.numpy_interface import dataset_adapter as dsa
from vtkmodules.vtkParallelCore import vtkMultiProcessController
rank = vtkMultiProcessController.GetGlobalController().GetLocalProcessId()
data = self.GetInput()
d = dsa.WrapDataObject(data)
arrays = {"npoints": data.GetNumberOfPoints(), "kind": np.array(data.GetClassName())}
if data.GetNumberOfPoints() > 0:
    arrays["points"] = np.asarray(d.Points)
    for name in ("CriticalType", "ttkVertexScalarField", %r, "vtkGhostType"):
        if data.GetPointData().GetArray(name) is not None:
            arrays[name] = np.asarray(d.PointData[name])
np.savez(os.path.join(%r, "%s_rank%%d.npz" %% rank), **arrays)
self.GetOutput().ShallowCopy(data)
"""


def mdt_split(source, split, tag):
    if split == "redistribute":
        return RedistributeDataSet(Input=source)  # noqa: F405
    if split == "d3":
        return D3(Input=source)  # noqa: F405
    # Each rank writes its piece, then reads it back through the partitioned reader.
    path = os.path.join(OUT, tag + "_pieces.pvtu")
    SaveData(path, proxy=RedistributeDataSet(Input=source))  # noqa: F405
    return XMLPartitionedUnstructuredGridReader(FileName=[path])  # noqa: F405


def mdt_write():
    from vtkmodules.vtkParallelCore import vtkMultiProcessController

    ranks = vtkMultiProcessController.GetGlobalController().GetNumberOfProcesses()
    assert ranks > 1, "run under mpiexec -n 2 or more with pvbatch --mpi"
    for name, scalar in MESHES:
        for split in SPLITS[name]:
            if split == "source":
                # Sphere pieces (the serial sphere's field: a function of the place)
                source = Calculator(Input=mdt_sphere(), ResultArrayName=scalar,  # noqa
                                    Function=SPHERE_FIELD)
                split_source = RedistributeDataSet(Input=source)  # noqa: F405
                tag = "sphere_source"
            elif name == "surface_places":
                reader = PassArrays(  # noqa: F405  (the ids left out)
                    Input=OpenDataFile(mdt_path("surface_ids")),  # noqa: F405
                    PointDataArrays=[scalar], CellDataArrays=[])
                tag = "%s_%s" % (name, split)
                split_source = mdt_split(reader, split, tag)
            else:
                reader = OpenDataFile(mdt_path(name))  # noqa: F405
                tag = "%s_%s" % (name, split)
                split_source = mdt_split(reader, split, tag)
            cp = mdt_cp(split_source, scalar)
            messages = pv_helpers.Messages(cp)
            ProgrammableFilter(Input=cp, Script=RECORD % (scalar, OUT, tag + "_cp")  # noqa
                               ).UpdatePipeline()
            sm = mdt_smoother(split_source, scalar)
            sm_messages = pv_helpers.Messages(sm)
            ProgrammableFilter(Input=sm, Script=RECORD % (scalar, OUT, tag + "_sm")  # noqa
                               ).UpdatePipeline()
            with open(os.path.join(OUT, tag + "_messages.txt"), "w") as f:
                for text in messages.errors + sm_messages.errors:
                    f.write("error: %s\n" % text)
                for text in messages.warnings + sm_messages.warnings:
                    f.write("warning: %s\n" % text)
    # Collapsed cells: an error on rank 0 (whichever rank holds them), empty outputs.
    split_source = RedistributeDataSet(  # noqa: F405
        Input=OpenDataFile(os.path.join(OUT, "collapsed.vtu")))  # noqa: F405
    errors = []
    for make, what in ((mdt_cp, "cp"), (mdt_smoother, "sm")):
        proxy = make(split_source, "f")
        messages = pv_helpers.Messages(proxy)
        ProgrammableFilter(Input=proxy, Script=RECORD % ("f", OUT, "collapsed_" + what)  # noqa
                           ).UpdatePipeline()
        errors += messages.errors
    with open(os.path.join(OUT, "collapsed_messages.txt"), "w") as f:
        f.write("\n".join(errors))


# ---- compare (serial) -------------------------------------------------------------

def mdt_keyed_cp(outputs):
    """[(point, type)] of the critical points in the outputs, sorted."""
    keyed = []
    for out in outputs:
        if out.GetNumberOfPoints() == 0:
            continue
        keyed += [(tuple(p), int(t)) for p, t in
                  zip(np.asarray(out.Points, dtype=np.float64).tolist(),
                      np.asarray(out.PointData["CriticalType"]))]
    return sorted(keyed)


def mdt_oracle_cp(name):
    oracle = np.load(os.path.join(OUT, name + "_oracle.npz"))
    points, types = oracle["points"].tolist(), oracle["types"]
    critical = np.flatnonzero(types != cp_oracle.REGULAR)
    return sorted((tuple(points[v]), int(types[v])) for v in critical)


def mdt_ranks(tag):
    return [np.load(p) for p in sorted(glob.glob(os.path.join(OUT, tag + "_rank*.npz")))]


class mdt_PlaceIndex:
    """Finds points by place: exactly, or within tol (the Sphere source's pieces round
    their shared points apart from the serial sphere's)."""

    def __init__(self, points, tol):
        self.points = np.asarray(points, dtype=np.float64)
        self.tol = tol
        keys = self.points if tol == 0 else np.floor(self.points / (4 * tol))
        self.cells = {}
        for i, k in enumerate(map(tuple, keys.tolist())):
            self.cells.setdefault(k, []).append(i)

    def find(self, points):
        """The serial vertex at each of points (asserts there is exactly one)."""
        points = np.asarray(points, dtype=np.float64)
        if self.tol == 0:
            found = [self.cells.get(k, []) for k in map(tuple, points.tolist())]
        else:
            found = []
            for p in points:
                base = np.floor(p / (4 * self.tol)).astype(np.int64)
                near = [i for offset in np.ndindex(3, 3, 3)
                        for i in self.cells.get(tuple((base + offset - 1).tolist()), ())
                        if np.max(np.abs(self.points[i] - p)) <= self.tol]
                found.append(near)
        bad = [k for k, f in enumerate(found) if len(f) != 1]
        assert not bad, "point %s matches %d serial points" % (points[bad[0]],
                                                              len(found[bad[0]]))
        return np.array([f[0] for f in found], dtype=np.int64)


def mdt_compare_one(name, scalar, split, oracle):
    tag = "%s_%s" % (name, split) if split != "source" else "sphere_source"
    with open(os.path.join(OUT, tag + "_messages.txt")) as f:
        messages = f.read()
    assert "error" not in messages, "%s: %s" % (tag, messages)
    if name == "surface_places":
        assert "neighbour of equal value" in messages, "%s: no warning of the ties" % tag
    points, types, smoothed = oracle
    index = mdt_PlaceIndex(points, 1e-5 if split == "source" else 0.0)
    # Critical points: every one once, of the serial type.
    got, owner = {}, {}
    for rank, out in enumerate(mdt_ranks(tag + "_cp")):
        if int(out["npoints"]) == 0:
            continue
        for v, t in zip(index.find(out["points"]), out["CriticalType"]):
            assert v not in got, "%s: vertex %s reported twice (ranks %d and %d)" % (
                tag, points[v], owner[v], rank)
            got[int(v)], owner[int(v)] = int(t), rank
    expected = {int(v): int(types[v]) for v in np.flatnonzero(types != cp_oracle.REGULAR)}
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    wrong = sorted(v for v in set(got) & set(expected) if got[v] != expected[v])
    assert not missing and not extra and not wrong, (
        "%s: %d critical points missing, %d spurious, %d of another type (of %d)"
        % (tag, len(missing), len(extra), len(wrong), len(expected)))
    # Smoother: every point of every piece has the serial value; every vertex is there.
    seen = np.zeros(len(points), dtype=bool)
    worst = 0.0
    for out in mdt_ranks(tag + "_sm"):
        if int(out["npoints"]) == 0:
            continue
        v = index.find(out["points"])
        ghost = out["vtkGhostType"] if "vtkGhostType" in out.files else \
            np.zeros(len(v), dtype=np.uint8)
        seen[v[(ghost.astype(np.int64) & 1) == 0]] = True
        if smoothed.dtype.kind in "iu":  # exact: any difference counts
            error = (out[scalar].astype(np.int64) != smoothed[v].astype(np.int64)) * 1.0
        else:
            error = np.abs(out[scalar].astype(np.float64) - smoothed[v]) / (1 + np.abs(smoothed[v]))
        worst = max(worst, float(error.max()))
    assert seen.all(), "%s: %d vertices in no piece" % (tag, np.count_nonzero(~seen))
    limit = 1e-12 if split != "source" else 1e-5
    assert worst <= limit, "%s: smoothed values off by %g" % (tag, worst)
    print("%s: %d critical points and %d smoothed values as the reference"
          % (tag, len(expected), len(points)))


def mdt_compare():
    for name, scalar in MESHES:
        oracle = np.load(os.path.join(OUT, name + "_oracle.npz"))
        expected = (oracle["points"], oracle["types"], oracle["smoothed"])
        for split in SPLITS[name]:
            if split == "source":
                # the field in numpy on the serial sphere's points
                sphere = mdt_sphere()
                sphere.UpdatePipeline()
                data = sphere.GetClientSideObject().GetOutputDataObject(0)
                p = np.asarray(dsa.WrapDataObject(data).Points, dtype=np.float64)
                values = np.sin(7 * p[:, 0]) * np.cos(5 * p[:, 1]) + p[:, 2]
                cells = mdt_cells(data)
                expected = (p, cp_oracle.classify(values, cells, len(p)).types,
                            smoother_oracle.smooth(
                                values, smoother_oracle.edges_of_cells(cells), ITERATIONS))
            mdt_compare_one(name, scalar, split, expected)
    with open(os.path.join(OUT, "collapsed_messages.txt")) as f:
        errors = f.read()
    assert errors.count("collapsed cells") == 2 and "global ids" in errors, errors
    for what in ("cp", "sm"):
        outputs = mdt_ranks("collapsed_" + what)
        assert outputs and all(int(o["npoints"]) == 0 for o in outputs), what
    print("collapsed cells: a clear error on rank 0, empty outputs")
    print("distributed meshes identical to the serial run")


{"prepare": mdt_prepare, "write": mdt_write, "compare": mdt_compare}[MODE]()
